package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * In-memory throughput and allocation, shove against a plain hand-off between two threads, same process, same run:
 *
 * <ul>
 *   <li>(a) raw hand-off: one producer thread puts the message records into an {@link ArrayBlockingQueue} (the
 *       in-memory broker's capacity), one consumer thread takes them and does nothing: the floor of any hand-off;
 *   <li>(b) raw hand-off with JSON: the same, but the producer encodes each record to JSON bytes and the consumer
 *       decodes them (Jackson, as shove's default codec does): the floor with the codec work shove cannot skip;
 *   <li>(c) shove: the in-memory broker, one consumer, a no-op handler that acknowledges; the main thread publishes
 *       in batches of 1,000 while the consumer runs: publish → handle → ack, the case of target 3 in PERFORMANCE.md;
 *   <li>(d) shove on a {@code byte[]} topic (the raw codec): the same, publishing the same JSON bytes, encoded once
 *       beforehand, and handing them to the handler undecoded: what the engine and the broker cost without the
 *       codec.
 * </ul>
 *
 * A rate is measured from the first publish (put) to the last message handled. Each run is preceded by one warm-up
 * run of the same mode (a tenth of the messages) that is not counted.
 *
 * <p><b>Allocation per message.</b> {@code com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes()} (JDK 21+)
 * is read before and after the measured part of a run; the difference divided by the messages is the figure printed.
 * It sums the TLAB and outside-TLAB allocation of every thread, including threads that ended during the run; virtual
 * threads allocate on their carrier, so a handler's allocation is counted too. It therefore includes everything the
 * process allocates meanwhile: the publisher's encoding, the broker, the engine, the benchmark's own counters, and
 * any JIT or GC bookkeeping (small against a million messages). An upper bound of shove's cost per message, not a
 * profile; use {@code SHOVE_BENCH_JAVA_OPTS=-XX:StartFlightRecording=...} and {@code jdk.ObjectAllocationSample} to
 * see where it goes.
 *
 * <p><b>CPU per message.</b> The process's CPU time ({@code com.sun.management.OperatingSystemMXBean
 * #getProcessCpuTime()}) over the same span, divided by the messages: what the work costs whatever else runs on the
 * machine. On a shared, noisy machine it moves far less between runs than the rate does, so it is the figure to
 * compare two versions of the engine by.
 *
 * <p><b>Report.</b> Besides the console lines, the runs go to {@link BenchReport} {@code memory} ({@code
 * target/bench/memory.json} and {@code .md}) with the targets of issue 13: the {@code byte[]} topic at least 0.5x the
 * raw hand-off (d/a) with at most 150 bytes allocated per message (the median of (d)'s runs), the JSON topic at least
 * 0.8x the raw JSON hand-off (c/b); c/a is shown without a target.
 *
 * <p>Arguments (all optional, {@code key=value}): {@code runs} (3), {@code messages} (1_000_000), {@code capacity}
 * (the in-memory broker's queue capacity and the raw queue's, {@value InMemoryConfig#DEFAULT_CAPACITY}), {@code
 * prefetch} (100), {@code modes} (abcd).
 */
public final class MemoryBenchmark {
    record Msg(String id, String key, long amount, String note) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NOTE = "x".repeat(30);
    private static final String[] ID = {"a", "b", "c", "d"};
    private static final String[] LABEL = {
        "raw hand-off (ArrayBlockingQueue, two threads)",
        "raw hand-off, JSON encoded and decoded",
        "shove JSON topic, no-op handler",
        "shove byte[] topic, no-op handler"
    };

    private final int messages;
    private final int capacity;
    private final int prefetch;
    private final String modes;

    /** One measured run: messages per second, bytes allocated and CPU nanoseconds spent per message. */
    record Result(double rate, double bytesPerMessage, double cpuNanosPerMessage) {
        static final Result SKIPPED = new Result(Double.NaN, Double.NaN, Double.NaN);
    }

    private MemoryBenchmark(BenchArgs args) {
        this.messages = args.integer("messages", 1_000_000);
        this.capacity = args.integer("capacity", InMemoryConfig.DEFAULT_CAPACITY);
        this.prefetch = args.integer("prefetch", 100);
        this.modes = args.text("modes", "abcd");
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        int runs = args.runs();
        new MemoryBenchmark(args).run(runs);
    }

    private void run(int runs) throws Exception {
        System.out.printf(
                Locale.ROOT,
                "In-memory benchmark: %,d messages (~100-byte JSON), queue capacity %,d, shove prefetch %d; %d run(s),"
                        + " %d cores%n",
                messages,
                capacity,
                prefetch,
                runs,
                Runtime.getRuntime().availableProcessors());
        BenchReport report = new BenchReport(
                "memory",
                String.format(
                        Locale.ROOT,
                        "In memory: %,d messages (~100-byte JSON) per mode and run after a warm-up of a tenth, queue"
                                + " capacity %,d, shove prefetch %d, %d run(s)",
                        messages,
                        capacity,
                        prefetch,
                        runs));
        Result[][] results = new Result[4][runs];
        for (int run = 0; run < runs; run++) {
            results[0][run] = modes.contains("a") ? measure(this::rawHandOff) : Result.SKIPPED;
            results[1][run] = modes.contains("b") ? measure(this::rawHandOffJson) : Result.SKIPPED;
            results[2][run] = modes.contains("c") ? measure(this::shoveJson) : Result.SKIPPED;
            results[3][run] = modes.contains("d") ? measure(this::shoveRaw) : Result.SKIPPED;
            for (int m = 0; m < 4; m++) {
                Result r = results[m][run];
                if (r != Result.SKIPPED) {
                    report.run(ID[m], LABEL[m], r.rate(), r.cpuNanosPerMessage() / 1000, r.bytesPerMessage());
                }
            }
            Result a = results[0][run];
            Result b = results[1][run];
            Result c = results[2][run];
            Result d = results[3][run];
            System.out.printf(
                    Locale.ROOT,
                    "run %d: (a) raw hand-off %,.0f/s %,.0f B/msg %.2f us/msg  (b) raw hand-off + JSON %,.0f/s"
                            + " %,.0f B/msg %.2f us/msg  (c) shove no-op %,.0f/s %,.0f B/msg %.2f us/msg  (d) shove byte[]"
                            + " %,.0f/s %,.0f B/msg %.2f us/msg  c/a %.2f  c/b %.2f  d/a %.2f%n",
                    run + 1,
                    a.rate(),
                    a.bytesPerMessage(),
                    a.cpuNanosPerMessage() / 1000,
                    b.rate(),
                    b.bytesPerMessage(),
                    b.cpuNanosPerMessage() / 1000,
                    c.rate(),
                    c.bytesPerMessage(),
                    c.cpuNanosPerMessage() / 1000,
                    d.rate(),
                    d.bytesPerMessage(),
                    d.cpuNanosPerMessage() / 1000,
                    c.rate() / a.rate(),
                    c.rate() / b.rate(),
                    d.rate() / a.rate());
        }
        double[] rate = new double[4];
        double[] bytes = new double[4];
        double[] cpu = new double[4];
        for (int m = 0; m < 4; m++) {
            rate[m] = median(Arrays.stream(results[m]).mapToDouble(Result::rate).toArray());
            bytes[m] = median(Arrays.stream(results[m])
                    .mapToDouble(Result::bytesPerMessage)
                    .toArray());
            cpu[m] = median(Arrays.stream(results[m])
                            .mapToDouble(Result::cpuNanosPerMessage)
                            .toArray())
                    / 1000;
        }
        System.out.printf(
                Locale.ROOT,
                "median of %d: (a) %,.0f/s %,.0f B/msg %.2f us/msg  (b) %,.0f/s %,.0f B/msg %.2f us/msg  (c) %,.0f/s"
                        + " %,.0f B/msg %.2f us/msg  (d) %,.0f/s %,.0f B/msg %.2f us/msg  c/a %.2f  c/b %.2f  d/a %.2f"
                        + " (ratios of the medians; compare the per-run ratios above too)%n",
                runs,
                rate[0],
                bytes[0],
                cpu[0],
                rate[1],
                bytes[1],
                cpu[1],
                rate[2],
                bytes[2],
                cpu[2],
                rate[3],
                bytes[3],
                cpu[3],
                rate[2] / rate[0],
                rate[2] / rate[1],
                rate[3] / rate[0]);
        report.ratio(
                "shove byte[] topic / raw hand-off", BenchReport.Metric.RATE, "d", "a", BenchReport.Goal.AT_LEAST, 0.5);
        report.figure(
                "shove byte[] topic: bytes allocated per message (d)",
                Arrays.stream(results[3]).mapToDouble(Result::bytesPerMessage).toArray(),
                "B/msg",
                BenchReport.Goal.AT_MOST,
                150);
        report.ratio(
                "shove JSON topic / raw JSON hand-off",
                BenchReport.Metric.RATE,
                "c",
                "b",
                BenchReport.Goal.AT_LEAST,
                0.8);
        report.ratio(
                "shove JSON topic / raw hand-off",
                BenchReport.Metric.RATE,
                "c",
                "a",
                BenchReport.Goal.NONE,
                Double.NaN);
        report.write();
    }

    /** A mode: moves {@code count} messages and returns its rate; the allocation is measured around it. */
    @FunctionalInterface
    interface Mode {
        double run(int count) throws Exception;
    }

    private Result measure(Mode mode) throws Exception {
        mode.run(Math.max(1, messages / 10)); // warm-up, not counted
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long before = threads.getTotalThreadAllocatedBytes();
        long cpuBefore = os.getProcessCpuTime();
        double rate = mode.run(messages);
        long cpu = os.getProcessCpuTime() - cpuBefore;
        long allocated = threads.getTotalThreadAllocatedBytes() - before;
        return new Result(rate, (double) allocated / messages, (double) cpu / messages);
    }

    private static Msg message(int i) {
        return new Msg("m-" + i, "key-" + (i % 1000), i, NOTE);
    }

    /** (a): records through an ArrayBlockingQueue to a consumer thread that drops them. */
    private double rawHandOff(int count) throws InterruptedException {
        ArrayBlockingQueue<Msg> queue = new ArrayBlockingQueue<>(capacity);
        AtomicLong end = new AtomicLong();
        Thread consumer = Thread.ofPlatform().name("bench-raw-consumer").start(() -> {
            try {
                for (int i = 0; i < count; i++) {
                    sink.addAndGet(queue.take().amount());
                }
                end.set(System.nanoTime());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            queue.put(message(i));
        }
        consumer.join();
        return rate(count, start, end.get());
    }

    /** (b): JSON bytes through an ArrayBlockingQueue; the consumer decodes each one. */
    private double rawHandOffJson(int count) throws Exception {
        ArrayBlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(capacity);
        AtomicLong end = new AtomicLong();
        Thread consumer = Thread.ofPlatform().name("bench-raw-consumer").start(() -> {
            try {
                for (int i = 0; i < count; i++) {
                    sink.addAndGet(JSON.readValue(queue.take(), Msg.class).amount());
                }
                end.set(System.nanoTime());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            queue.put(JSON.writeValueAsBytes(message(i)));
        }
        consumer.join();
        return rate(count, start, end.get());
    }

    /** (c): a JSON topic of message records. */
    private double shoveJson(int count) throws InterruptedException {
        return shove(count, Msg.class, MemoryBenchmark::message);
    }

    /** (d): a {@code byte[]} topic; the payloads are encoded once, here, not in the measured part. */
    private double shoveRaw(int count) throws Exception {
        byte[][] payloads = new byte[1000][];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = JSON.writeValueAsBytes(message(i));
        }
        return shove(count, byte[].class, i -> payloads[i % payloads.length]);
    }

    /** Shove on the in-memory broker, publish → no-op handler → ack. A fresh broker per run. */
    private <M> double shove(int count, Class<M> type, IntFunction<M> messages) throws InterruptedException {
        Topic<M> topic = Topic.builder("bench-memory", type)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        AtomicInteger handled = new AtomicInteger();
        AtomicLong end = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        try (Broker<InMemory> broker =
                Broker.connect(InMemoryConfig.builder().capacity(capacity).build())) {
            broker.topology().declare(topic);
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .prefetch(prefetch)
                            .noAutoscaler()
                            .noDeadLetterConsumer()
                            .build(),
                    () -> (m, meta, ctx) -> {
                        if (handled.incrementAndGet() == count) {
                            end.set(System.nanoTime());
                            done.countDown();
                        }
                        return Outcome.ack();
                    });
            group.start();
            long start = System.nanoTime();
            List<M> batch = new ArrayList<>(1000);
            for (int i = 0; i < count; i++) {
                batch.add(messages.apply(i));
                if (batch.size() == 1000) {
                    broker.publisher().publishBatch(topic, batch);
                    batch.clear();
                }
            }
            if (!batch.isEmpty()) {
                broker.publisher().publishBatch(topic, batch);
            }
            boolean finished = done.await(10, TimeUnit.MINUTES);
            SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
            if (!finished || !outcome.isClean()) {
                throw new IllegalStateException(
                        "shove run did not finish cleanly: handled " + handled.get() + " of " + count + ", " + outcome);
            }
            return rate(count, start, end.get());
        }
    }

    private static final AtomicLong sink = new AtomicLong();

    private static double rate(int count, long fromNanos, long toNanos) {
        return count / Math.max(1e-9, (toNanos - fromNanos) / 1e9);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
