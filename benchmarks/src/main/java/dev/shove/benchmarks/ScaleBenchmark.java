package dev.shove.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemoryConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * How shove's cost grows with the number of registrations on one broker, and what an idle consumer group costs (target
 * "Scale" of issue 13: 1,000 idle registrations in memory use less than 1% of one core and less than 200 MB of heap;
 * Kafka is measured with 100). For each count of registrations, a fresh broker and one consumer group with that many
 * topics (each with a hold tier and a dead-letter queue, one consumer each, the dead-letter consumers running, the
 * autoscaler on), then:
 *
 * <ul>
 *   <li><b>startup</b>: from {@code register} of the first topic to {@code group.health().isReady()};
 *   <li><b>idle CPU</b>: the process's CPU time over {@code idle} seconds in which nothing is published, as a share of
 *       one core, after {@code settle} seconds in which the JIT finishes compiling the start-up code (a group that polls
 *       busily shows here; the JVM's own background work is included, so this is an upper bound of shove's);
 *   <li><b>heap</b>: used heap after a full GC while the group runs, minus the same before the broker was connected;
 *   <li><b>threads</b>: live platform threads while idle, minus those before (virtual threads are not counted by the
 *       JVM, and cost no thread of their own while parked).
 * </ul>
 *
 * With {@code runs} above 1 each count is measured that many times (a fresh broker each time) and the table shows the
 * median of each figure.
 *
 * <p><b>Report.</b> The figures go to {@link BenchReport} {@code scale} in memory ({@code target/bench/scale.json}
 * and {@code .md}), {@code scale-<scheme>} on a broker ({@code scale-kafka}), one line per count and figure. In memory
 * the idle CPU and the heap of 1,000 registrations carry the targets of issue 13 (at most 1% of one core, at most 200
 * MB; "not measured" when the counts leave 1,000 out); the rest, and every figure on a broker, have none.
 *
 * <p>Arguments ({@code key=value}, all optional): {@code uri} (a broker URI, e.g. {@code kafka://127.0.0.1:9092};
 * in memory when absent), {@code registrations} (comma-separated counts; {@code 1,100,1000} in memory, {@code 1,100}
 * on a broker), {@code idle} (seconds, 10), {@code settle} (seconds between ready and the idle window, 20),
 * {@code runs} (1). On Kafka the topics the run declared are deleted
 * afterwards.
 */
public final class ScaleBenchmark {
    record Msg(String id) {}

    record Result(int registrations, double startupMillis, double idleCorePercent, double heapMb, int threads) {}

    /** The count of registrations issue 13's in-memory targets are about. */
    private static final int TARGET_REGISTRATIONS = 1_000;

    private ScaleBenchmark() {}

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        String uri = args.text("uri", "");
        int[] counts = Arrays.stream(args.text("registrations", uri.isEmpty() ? "1,100,1000" : "1,100")
                        .split(","))
                .map(String::trim)
                .mapToInt(Integer::parseInt)
                .toArray();
        int idleSeconds = args.integer("idle", 10);
        int settleSeconds = args.integer("settle", 20);
        int runs = args.integer("runs", 1);
        String scheme = uri.isEmpty() ? "" : URI.create(uri).getScheme();
        System.out.printf(
                Locale.ROOT,
                "Scale benchmark (%s): registrations %s, %d s idle each after %d s to settle, %d run(s); %d cores,"
                        + " max heap %d MB%n",
                uri.isEmpty() ? "in memory" : uri,
                Arrays.toString(counts),
                idleSeconds,
                settleSeconds,
                runs,
                Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20);
        measure(uri, 10, 2, 1); // warm-up: class loading and JIT of the start path, not printed
        List<List<Result>> results = new ArrayList<>();
        for (int count : counts) {
            List<Result> perRun = new ArrayList<>();
            for (int run = 0; run < runs; run++) {
                Result r = measure(uri, count, idleSeconds, settleSeconds);
                perRun.add(r);
                if (runs > 1) {
                    System.out.printf(Locale.ROOT, "run %d: %s%n", run + 1, row(r));
                }
            }
            results.add(perRun);
        }
        System.out.println();
        System.out.println("| registrations | startup | idle CPU (share of one core) | heap | platform threads |");
        System.out.println("|---|---|---|---|---|");
        for (List<Result> perRun : results) {
            System.out.println(row(new Result(
                    perRun.getFirst().registrations(),
                    median(perRun.stream().mapToDouble(Result::startupMillis)),
                    median(perRun.stream().mapToDouble(Result::idleCorePercent)),
                    median(perRun.stream().mapToDouble(Result::heapMb)),
                    (int) median(perRun.stream().mapToDouble(Result::threads)))));
        }
        report(scheme, counts, idleSeconds, settleSeconds, runs, results).write();
    }

    private static String row(Result r) {
        return String.format(
                Locale.ROOT,
                "| %,d | %.0f ms | %.2f%% | %.1f MB | +%d |",
                r.registrations(),
                r.startupMillis(),
                r.idleCorePercent(),
                r.heapMb(),
                r.threads());
    }

    /** The figures as a report: in memory the 1,000 registrations' idle CPU and heap with their targets. */
    private static BenchReport report(
            String scheme, int[] counts, int idleSeconds, int settleSeconds, int runs, List<List<Result>> results) {
        BenchReport report = new BenchReport(
                scheme.isEmpty() ? "scale" : "scale-" + scheme,
                String.format(
                        Locale.ROOT,
                        "Scale (%s): registrations %s in one consumer group, each topic with a hold tier and a"
                                + " dead-letter queue, %d s idle after %d s to settle, median of %d run(s)",
                        scheme.isEmpty() ? "in memory" : scheme,
                        Arrays.toString(counts),
                        idleSeconds,
                        settleSeconds,
                        runs));
        BenchReport.Goal none = BenchReport.Goal.NONE;
        boolean targets = scheme.isEmpty();
        boolean targetMeasured = false;
        for (List<Result> perRun : results) {
            int count = perRun.getFirst().registrations();
            String n = String.format(Locale.ROOT, "%,d registration%s: ", count, count == 1 ? "" : "s");
            boolean target = targets && count == TARGET_REGISTRATIONS;
            targetMeasured |= target;
            report.figure(
                    n + "startup",
                    perRun.stream().mapToDouble(Result::startupMillis).toArray(),
                    "ms",
                    none,
                    Double.NaN);
            report.figure(
                    n + "idle CPU",
                    perRun.stream().mapToDouble(Result::idleCorePercent).toArray(),
                    "% of a core",
                    target ? BenchReport.Goal.AT_MOST : none,
                    target ? 1.0 : Double.NaN);
            report.figure(
                    n + "heap",
                    perRun.stream().mapToDouble(Result::heapMb).toArray(),
                    "MB",
                    target ? BenchReport.Goal.AT_MOST : none,
                    target ? 200 : Double.NaN);
            report.figure(
                    n + "platform threads added",
                    perRun.stream().mapToDouble(Result::threads).toArray(),
                    "threads",
                    none,
                    Double.NaN);
        }
        if (targets && !targetMeasured) {
            String n = String.format(Locale.ROOT, "%,d registrations: ", TARGET_REGISTRATIONS);
            report.figure(n + "idle CPU", Double.NaN, "% of a core", BenchReport.Goal.AT_MOST, 1.0);
            report.figure(n + "heap", Double.NaN, "MB", BenchReport.Goal.AT_MOST, 200);
        }
        return report;
    }

    private static double median(java.util.stream.DoubleStream values) {
        double[] sorted = values.sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static Result measure(String uri, int registrations, int idleSeconds, int settleSeconds) throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        System.gc();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        int threadsBefore = threads.getThreadCount();
        String prefix = "scale-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        try (Broker<?> broker = uri.isEmpty() ? Broker.connect(InMemoryConfig.ofDefaults()) : Broker.connect(uri)) {
            var group = broker.consumerGroup();
            long start = System.nanoTime();
            for (int i = 0; i < registrations; i++) {
                Topic<Msg> topic = Topic.builder(prefix + i, Msg.class)
                        .holdQueue(Duration.ofSeconds(1))
                        .dlq()
                        .build();
                group.register(
                        topic,
                        ConsumerGroupConfig.builder().consumers(1, 2).build(),
                        () -> (m, meta, c) -> Outcome.ack());
            }
            group.start();
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (!group.health().isReady()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the group of " + registrations
                            + " registrations is not ready after 5 minutes: " + group.health());
                }
                Thread.sleep(5);
            }
            double startupMillis = (System.nanoTime() - start) / 1e6;

            // start-up work (the JIT compiling the start path, the first autoscaler reads) is not idle cost
            Thread.sleep(settleSeconds * 1_000L);
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            Thread.sleep(idleSeconds * 1_000L);
            double idlePercent = 100.0 * (os.getProcessCpuTime() - cpu0) / (System.nanoTime() - wall0);
            int liveThreads = threads.getThreadCount() - threadsBefore;
            System.gc();
            double heapMb = (memory.getHeapMemoryUsage().getUsed() - heapBefore) / (1024.0 * 1024.0);

            SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
            if (!outcome.isClean()) {
                throw new IllegalStateException("the group did not stop cleanly: " + outcome);
            }
            return new Result(registrations, startupMillis, idlePercent, heapMb, liveThreads);
        } finally {
            if (uri.startsWith("kafka://")) {
                deleteKafkaTopics(uri, prefix);
            }
        }
    }

    /** Deletes the topics (main, hold, dead-letter) a run declared on a shared Kafka. */
    private static void deleteKafkaTopics(String uri, String prefix) throws Exception {
        URI parsed = URI.create(uri);
        Properties p = new Properties();
        p.put("bootstrap.servers", parsed.getHost() + ":" + (parsed.getPort() > 0 ? parsed.getPort() : 9092));
        try (Admin admin = Admin.create(p)) {
            List<String> doomed = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith(prefix))
                    .toList();
            admin.deleteTopics(doomed).all().get(60, TimeUnit.SECONDS);
        }
    }
}
