package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Gathers every harness's {@link BenchReport} under the report directory into one table: {@code summary.json} (the
 * reports in one array, the failed harnesses, the counts) and {@code summary.md} (every target in one table, marked
 * met or not; the harnesses that failed; the ratios shown without a target; then each harness's modes and figures),
 * and prints the Markdown. {@code scripts/bench.sh all} runs it after the harnesses.
 *
 * <p>A harness that failed leaves no report but a file {@code <harness>.failed} (written by {@code scripts/bench.sh}:
 * its exit status, or that it wrote no report, and where its log is); each such file is one line of the failed table,
 * so a failed harness is never mistaken for one without targets.
 *
 * <p>Arguments (optional): {@code dir} (default {@code target/bench}, or the system property {@code
 * shove.bench.dir}).
 */
public final class BenchSummary {
    private BenchSummary() {}

    public static void main(String[] argv) throws IOException {
        BenchArgs args = BenchArgs.parse(argv);
        Path dir = Path.of(args.text("dir", BenchReport.directory().toString()));
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no benchmark reports: " + dir.toAbsolutePath()
                    + " does not exist; run a harness first (scripts/bench.sh all, or scripts/bench.sh memory)");
        }
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        List<Path> files = list(dir, ".json").stream()
                .filter(p -> !p.getFileName().toString().equals("summary.json"))
                .toList();
        List<Path> failures = list(dir, ".failed");

        ObjectNode summary = json.createObjectNode();
        ArrayNode reports = summary.putArray("reports");
        ArrayNode failed = summary.putArray("failed");
        StringBuilder details = new StringBuilder();
        StringBuilder targets =
                new StringBuilder("| harness | figure | value | per run | target | met |\n|---|---|---|---|---|---|\n");
        StringBuilder comparisons = new StringBuilder("| harness | figure | value | per run |\n|---|---|---|---|\n");
        int met = 0;
        int missed = 0;
        int compared = 0;
        for (Path file : files) {
            JsonNode report = json.readTree(file.toFile());
            reports.add(report);
            details.append(BenchReport.markdown(report));
            String harness = report.path("harness").asText();
            for (JsonNode t : report.path("targets")) {
                String verdict = t.path("met").asText();
                if (verdict.equals("-")) {
                    compared++;
                    comparisons.append(row(harness, t)).append(" |\n");
                    continue;
                }
                if (verdict.equals("met")) {
                    met++;
                } else {
                    missed++;
                }
                targets.append(row(harness, t))
                        .append(" | ")
                        .append(t.path("target").asText())
                        .append(" | ")
                        .append(verdict)
                        .append(" |\n");
            }
        }
        StringBuilder failedTable = new StringBuilder("| harness | why |\n|---|---|\n");
        for (Path file : failures) {
            String name = file.getFileName().toString();
            String harness = name.substring(0, name.length() - ".failed".length());
            String why = Files.readString(file).strip().replace('\n', ' ').replace("|", "\\|");
            ObjectNode node = failed.addObject();
            node.put("harness", harness);
            node.put("why", why);
            failedTable.append("| ").append(harness).append(" | ").append(why).append(" |\n");
        }
        summary.put("met", met);
        summary.put("notMet", missed);
        summary.put("failedHarnesses", failures.size());

        StringBuilder markdown = new StringBuilder("## Targets: ")
                .append(met)
                .append(" met, ")
                .append(missed)
                .append(" not met");
        if (!failures.isEmpty()) {
            markdown.append(", ").append(failures.size()).append(" harness(es) failed");
        }
        markdown.append("\n\n");
        if (met + missed > 0) {
            markdown.append(targets).append('\n');
        }
        if (!failures.isEmpty()) {
            markdown.append("## Failed harnesses\n\n").append(failedTable).append('\n');
        }
        if (compared > 0) {
            markdown.append("## Ratios and figures without a target\n\n")
                    .append(comparisons)
                    .append('\n');
        }
        markdown.append("## Harnesses\n\n").append(details);
        json.writeValue(dir.resolve("summary.json").toFile(), summary);
        Files.writeString(dir.resolve("summary.md"), markdown);
        System.out.print(markdown);
        System.out.println("written: " + dir.resolve("summary.json") + " and " + dir.resolve("summary.md"));
    }

    private static List<Path> list(Path dir, String suffix) throws IOException {
        try (Stream<Path> listing = Files.list(dir)) {
            // by harness name, so scale comes before scale-kafka
            return listing.filter(p -> p.getFileName().toString().endsWith(suffix))
                    .sorted(Comparator.comparing(p -> {
                        String name = p.getFileName().toString();
                        return name.substring(0, name.length() - suffix.length());
                    }))
                    .toList();
        }
    }

    /** The first four cells of a target's row: harness, figure, value, per run (without the closing bar). */
    private static String row(String harness, JsonNode target) {
        return "| " + harness + " | " + target.path("name").asText() + " | " + BenchReport.value(target) + " | "
                + BenchReport.perRun(target);
    }
}
