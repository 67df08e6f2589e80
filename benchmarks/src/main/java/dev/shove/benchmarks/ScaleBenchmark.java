package dev.shove.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How shove's cost grows with the number of registrations on one in-memory broker, and what an idle consumer group
 * costs (target "Scale" of issue 13: 1,000 idle registrations use less than 1% of one core and less than 200 MB of
 * heap). For each count of registrations, a fresh broker and one consumer group with that many topics (each with a
 * hold tier and a dead-letter queue, one consumer each, the dead-letter consumers running, the autoscaler on), then:
 *
 * <ul>
 *   <li><b>startup</b>: from {@code register} of the first topic to {@code group.health().isReady()};
 *   <li><b>idle CPU</b>: the process's CPU time over {@code idle} seconds in which nothing is published, as a share of
 *       one core (a group that polls busily shows here; the JVM's own background work is included, so this is an
 *       upper bound of shove's);
 *   <li><b>heap</b>: used heap after a full GC while the group runs, minus the same before the broker was connected;
 *   <li><b>threads</b>: live platform threads while idle, minus those before (virtual threads are not counted by the
 *       JVM, and cost no thread of their own while parked).
 * </ul>
 *
 * <p>Arguments ({@code key=value}, all optional): {@code registrations} (comma-separated counts, {@code 1,100,1000}),
 * {@code idle} (seconds, 10).
 */
public final class ScaleBenchmark {
    record Msg(String id) {}

    record Result(int registrations, double startupMillis, double idleCorePercent, double heapMb, int threads) {}

    private ScaleBenchmark() {}

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        int[] counts = Arrays.stream(args.text("registrations", "1,100,1000").split(","))
                .map(String::trim)
                .mapToInt(Integer::parseInt)
                .toArray();
        int idleSeconds = args.integer("idle", 10);
        System.out.printf(
                Locale.ROOT,
                "Scale benchmark (in memory): registrations %s, %d s idle each; %d cores, max heap %d MB%n",
                Arrays.toString(counts),
                idleSeconds,
                Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20);
        measure(10, 2); // warm-up: class loading and JIT of the start path, not printed
        List<Result> results = new ArrayList<>();
        for (int count : counts) {
            results.add(measure(count, idleSeconds));
        }
        System.out.println();
        System.out.println("| registrations | startup | idle CPU (share of one core) | heap | platform threads |");
        System.out.println("|---|---|---|---|---|");
        for (Result r : results) {
            System.out.printf(
                    Locale.ROOT,
                    "| %,d | %.0f ms | %.2f%% | %.1f MB | +%d |%n",
                    r.registrations(),
                    r.startupMillis(),
                    r.idleCorePercent(),
                    r.heapMb(),
                    r.threads());
        }
    }

    private static Result measure(int registrations, int idleSeconds) throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        System.gc();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        int threadsBefore = threads.getThreadCount();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup();
            long start = System.nanoTime();
            for (int i = 0; i < registrations; i++) {
                Topic<Msg> topic = Topic.builder("scale-" + i, Msg.class)
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

            Thread.sleep(1_000); // let start-up work (first autoscaler reads, JIT) settle before measuring
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
        }
    }
}
