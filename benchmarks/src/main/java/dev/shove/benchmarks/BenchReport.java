package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One harness's figures, written as {@code <harness>.json} and {@code <harness>.md} under the report directory
 * ({@code target/bench/} by default, the system property {@code shove.bench.dir} otherwise), for {@link
 * BenchSummary} to gather into one table.
 *
 * <p>A harness records, per run, each mode's rate and (where it measures them) client CPU microseconds and bytes
 * allocated per message ({@link #run}); names the ratios it is judged by ({@link #ratio}: median of the per-run
 * ratios, so both sides of a ratio come from the same run); adds absolute figures with their targets ({@link
 * #figure}: latency percentiles, bytes per message, idle CPU); then calls {@link #write()}. Not thread-safe: a
 * harness records from its main thread.
 */
final class BenchReport {
    /** Which of a mode's figures a ratio compares. */
    enum Metric {
        /** Messages per second: higher is better. */
        RATE,
        /** Client CPU microseconds per message: lower is better. */
        CPU,
        /** Bytes allocated per message: lower is better. */
        BYTES
    }

    /** How a figure is held against its target. */
    enum Goal {
        /** The figure must be at least the target. */
        AT_LEAST(">="),
        /** The figure must be at most the target. */
        AT_MOST("<="),
        /** No target: the figure is shown for comparison only. */
        NONE("");

        private final String symbol;

        Goal(String symbol) {
            this.symbol = symbol;
        }

        boolean met(double value, double target) {
            return switch (this) {
                case AT_LEAST -> value >= target;
                case AT_MOST -> value <= target;
                case NONE -> true;
            };
        }
    }

    private record Mode(String id, String label, List<double[]> runs) {}

    private record Ratio(String name, Metric metric, String numerator, String denominator, Goal goal, double target) {}

    private record Figure(String name, double value, double[] perRun, String unit, Goal goal, double target) {}

    private final String harness;
    private final String setup;
    private final double loadAtStart = loadAverage();
    private final Map<String, Mode> modes = new LinkedHashMap<>();
    private final List<Ratio> ratios = new ArrayList<>();
    private final List<Figure> figures = new ArrayList<>();

    /**
     * @param harness the harness's name, which names its files ({@code kafka}, {@code rabbitmq}, {@code latency-nats})
     * @param setup one line saying what was measured (sizes, prefetch, runs)
     */
    BenchReport(String harness, String setup) {
        this.harness = harness;
        this.setup = setup;
    }

    /**
     * Records one run of a mode. Runs are kept in the order recorded; the i-th run of two modes is one run of the
     * harness, which is what ratios compare.
     *
     * @param mode the mode's id as the harness prints it ({@code a}, {@code b}, ...)
     * @param label what the mode is, e.g. {@code raw poll loop, decoding JSON}
     * @param rate messages per second
     * @param cpuMicros client CPU microseconds per message, or {@code NaN} where not measured
     * @param bytes bytes allocated per message, or {@code NaN} where not measured
     */
    void run(String mode, String label, double rate, double cpuMicros, double bytes) {
        modes.computeIfAbsent(mode, id -> new Mode(id, label, new ArrayList<>()))
                .runs()
                .add(new double[] {rate, cpuMicros, bytes});
    }

    /**
     * Names a ratio between two modes' figures, with its target; its value is the median of the per-run ratios.
     *
     * @param name e.g. {@code shove / raw poll loop decoding JSON}
     * @param metric which figure the ratio compares
     * @param numerator the mode id above the line
     * @param denominator the mode id below the line
     * @param goal how the ratio is held against {@code target}
     * @param target the target ratio ({@code NaN} with {@link Goal#NONE})
     */
    void ratio(String name, Metric metric, String numerator, String denominator, Goal goal, double target) {
        ratios.add(new Ratio(name, metric, numerator, denominator, goal, target));
    }

    /**
     * Adds an absolute figure with its target.
     *
     * @param name e.g. {@code p99 shove - p99 raw}
     * @param value the figure
     * @param unit e.g. {@code ms}, {@code B/msg}, {@code % of a core}
     * @param goal how the figure is held against {@code target}
     * @param target the target ({@code NaN} with {@link Goal#NONE})
     */
    void figure(String name, double value, String unit, Goal goal, double target) {
        figures.add(new Figure(name, value, new double[0], unit, goal, target));
    }

    /**
     * Adds an absolute figure measured once per run, with its target: its value is the median of the runs, and the
     * runs are shown beside it.
     *
     * @param name e.g. {@code 1,000 registrations: idle CPU}
     * @param perRun the figure of each run, in run order
     * @param unit e.g. {@code ms}, {@code B/msg}, {@code % of a core}
     * @param goal how the median is held against {@code target}
     * @param target the target ({@code NaN} with {@link Goal#NONE})
     */
    void figure(String name, double[] perRun, String unit, Goal goal, double target) {
        figures.add(new Figure(name, median(perRun), perRun.clone(), unit, goal, target));
    }

    /** {@return the median of a mode's recorded figure, {@code NaN} without runs} */
    double median(String mode, Metric metric) {
        Mode m = modes.get(mode);
        if (m == null) {
            return Double.NaN;
        }
        return median(m.runs().stream().mapToDouble(r -> r[metric.ordinal()]).toArray());
    }

    /** {@return the median of the per-run ratios numerator / denominator, {@code NaN} if either mode has no runs} */
    double ratioValue(Metric metric, String numerator, String denominator) {
        Mode n = modes.get(numerator);
        Mode d = modes.get(denominator);
        if (n == null || d == null) {
            return Double.NaN;
        }
        return median(perRunRatios(metric, numerator, denominator));
    }

    /** The ratio numerator / denominator of each run both modes have, in run order; empty if either has none. */
    private double[] perRunRatios(Metric metric, String numerator, String denominator) {
        Mode n = modes.get(numerator);
        Mode d = modes.get(denominator);
        if (n == null || d == null) {
            return new double[0];
        }
        int runs = Math.min(n.runs().size(), d.runs().size());
        double[] perRun = new double[runs];
        for (int i = 0; i < runs; i++) {
            perRun[i] = n.runs().get(i)[metric.ordinal()] / d.runs().get(i)[metric.ordinal()];
        }
        return perRun;
    }

    /** Writes {@code <harness>.json} and {@code <harness>.md} and prints the Markdown. */
    void write() {
        Path dir = directory();
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = json.createObjectNode();
        root.put("harness", harness);
        root.put("setup", setup);
        root.put("time", Instant.now().toString());
        root.put("cores", Runtime.getRuntime().availableProcessors());
        // the machine's load (1-minute average, as uptime prints it) when the harness began and when it ended: on a
        // shared machine it says how much else ran meanwhile
        putNumber(root, "loadAtStart", loadAtStart);
        putNumber(root, "loadAtEnd", loadAverage());
        ArrayNode modeArray = root.putArray("modes");
        for (Mode m : modes.values()) {
            ObjectNode node = modeArray.addObject();
            node.put("id", m.id());
            node.put("label", m.label());
            node.put("runs", m.runs().size());
            putNumber(node, "rate", median(m.id(), Metric.RATE));
            putNumber(node, "cpuMicros", median(m.id(), Metric.CPU));
            putNumber(node, "bytes", median(m.id(), Metric.BYTES));
            ArrayNode rates = node.putArray("rates");
            m.runs().forEach(r -> rates.add(r[0]));
        }
        ArrayNode targets = root.putArray("targets");
        for (Ratio r : ratios) {
            double value = ratioValue(r.metric(), r.numerator(), r.denominator());
            ObjectNode node = addTarget(
                    targets,
                    r.name() + " (" + r.metric().name().toLowerCase(Locale.ROOT) + " " + r.numerator() + "/"
                            + r.denominator() + ")",
                    value,
                    "x",
                    r.goal(),
                    r.target());
            putRuns(node, perRunRatios(r.metric(), r.numerator(), r.denominator()));
        }
        for (Figure f : figures) {
            ObjectNode node = addTarget(targets, f.name(), f.value(), f.unit(), f.goal(), f.target());
            if (f.perRun().length > 0) {
                putRuns(node, f.perRun());
            }
        }
        try {
            Files.createDirectories(dir);
            json.writeValue(dir.resolve(harness + ".json").toFile(), root);
            String markdown = markdown(root);
            Files.writeString(dir.resolve(harness + ".md"), markdown);
            System.out.print(markdown);
            System.out.println("written: " + dir.resolve(harness + ".json") + " and .md");
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the benchmark report to " + dir, e);
        }
    }

    /** {@return the directory reports go to: {@code shove.bench.dir}, else {@code target/bench}} */
    static Path directory() {
        return Path.of(System.getProperty("shove.bench.dir", "target/bench"));
    }

    /** {@return one harness's Markdown: a table of its modes (if it has any), then one of its targets and ratios} */
    static String markdown(com.fasterxml.jackson.databind.JsonNode root) {
        StringBuilder out = new StringBuilder();
        out.append("### ")
                .append(root.path("harness").asText())
                .append("\n\n")
                .append(root.path("setup").asText())
                .append(" (")
                .append(root.path("time").asText())
                .append(", ")
                .append(root.path("cores").asInt())
                .append(" cores");
        if (root.path("loadAtStart").isNumber() && root.path("loadAtEnd").isNumber()) {
            out.append(String.format(
                    Locale.ROOT,
                    ", load average %.1f at the start, %.1f at the end",
                    root.path("loadAtStart").asDouble(),
                    root.path("loadAtEnd").asDouble()));
        }
        out.append(")\n\n");
        if (!root.path("modes").isEmpty()) {
            out.append(
                    "| mode | what | runs | msg/s (median) | client CPU us/msg | B/msg |\n|---|---|---|---|---|---|\n");
            for (var m : root.path("modes")) {
                out.append("| ")
                        .append(m.path("id").asText())
                        .append(" | ")
                        .append(m.path("label").asText())
                        .append(" | ")
                        .append(m.path("runs").asInt())
                        .append(" | ")
                        .append(format(m.path("rate"), "%,.0f"))
                        .append(" | ")
                        .append(format(m.path("cpuMicros"), "%.2f"))
                        .append(" | ")
                        .append(format(m.path("bytes"), "%,.0f"))
                        .append(" |\n");
            }
            out.append('\n');
        }
        if (!root.path("targets").isEmpty()) {
            out.append("| figure | value | per run | target | met |\n|---|---|---|---|---|\n");
            for (var t : root.path("targets")) {
                out.append("| ")
                        .append(t.path("name").asText())
                        .append(" | ")
                        .append(value(t))
                        .append(" | ")
                        .append(perRun(t))
                        .append(" | ")
                        .append(t.path("target").asText())
                        .append(" | ")
                        .append(t.path("met").asText())
                        .append(" |\n");
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** {@return a target's value with its unit, {@code -} when not measured} */
    static String value(com.fasterxml.jackson.databind.JsonNode target) {
        return target.path("value").isNumber()
                ? String.format(Locale.ROOT, "%,.2f", target.path("value").asDouble()) + " "
                        + target.path("unit").asText()
                : "-";
    }

    /** {@return a target's per-run values, {@code 0.60 / 0.80 / 0.79}, empty for a figure measured once} */
    static String perRun(com.fasterxml.jackson.databind.JsonNode target) {
        List<String> values = new ArrayList<>();
        for (var v : target.path("perRun")) {
            values.add(format(v, "%,.2f"));
        }
        return String.join(" / ", values);
    }

    private static String format(com.fasterxml.jackson.databind.JsonNode value, String pattern) {
        return value.isNumber() ? String.format(Locale.ROOT, pattern, value.asDouble()) : "-";
    }

    private static ObjectNode addTarget(
            ArrayNode targets, String name, double value, String unit, Goal goal, double target) {
        ObjectNode node = targets.addObject();
        node.put("name", name);
        putNumber(node, "value", value);
        node.put("unit", unit);
        if (goal == Goal.NONE) {
            node.put("target", "-");
            node.put("met", "-");
        } else {
            node.put("target", goal.symbol + " " + String.format(Locale.ROOT, "%,.2f", target) + " " + unit);
            node.put("met", Double.isNaN(value) ? "not measured" : goal.met(value, target) ? "met" : "NOT met");
        }
        return node;
    }

    /** {@return the system's load average over the last minute, {@code NaN} where the platform has none} */
    private static double loadAverage() {
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                .getSystemLoadAverage();
        return load < 0 ? Double.NaN : load;
    }

    private static void putRuns(ObjectNode node, double[] values) {
        ArrayNode perRun = node.putArray("perRun");
        for (double v : values) {
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                perRun.addNull();
            } else {
                perRun.add(v);
            }
        }
    }

    private static void putNumber(ObjectNode node, String field, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }

    private static double median(double[] values) {
        double[] finite =
                Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (finite.length == 0) {
            return Double.NaN;
        }
        int mid = finite.length / 2;
        return finite.length % 2 == 1 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
    }
}
