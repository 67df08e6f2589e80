package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * End-to-end latency, publish → handler entry, of shove's consumer against the raw client's natural low-latency
 * consumer on the same broker, in the same run, at the same fixed offered load.
 *
 * <p><b>What one run does.</b> First a <i>saturation phase</i> (once per invocation, skipped with {@code rate=}):
 * the publisher publishes as fast as it can for {@code saturation} seconds to a fresh topic while the raw consumer
 * reads it; the rate the raw consumer handles messages at in the second half of the phase (the first warms up the
 * JIT, the client and the broker) is the raw mode's maximum. It is the rate of the whole pipeline (publisher, broker and consumer share this machine's cores), not the
 * drain rate of a backlog, which on a small machine is a load the publisher alone could not offer. The offered load
 * is half of it. Then, per run, each mode in turn (raw first in odd runs, shove first in even ones), each on a fresh topic of its own with the same
 * publisher code: probe messages until the consumer handles one (so a consumer group's join is not measured), a
 * warm-up of {@code warmup} seconds at the offered load, not recorded, and a wait until the consumer has caught up
 * with it (so a backlog of a cold start is not measured); then the measured phase of {@code seconds} seconds (or
 * {@code messages} messages) on a schedule of its own, then a wait for the consumer to handle everything.
 *
 * <p><b>The messages</b> are ~100-byte JSON records carrying their intended send time as {@link System#nanoTime()}
 * (the publisher and the consumers share this JVM, so the clocks agree). The handler side takes {@code nanoTime()}
 * first thing on handler entry (shove's handler; the raw consumer once it decoded the payload, as shove's codec
 * does before the handler) and records the difference in an HdrHistogram ({@link ConcurrentHistogram}, nanoseconds,
 * 3 significant digits). On the brokers both modes publish with shove's publisher ({@code publishAsync}, at most
 * {@value #MAX_IN_FLIGHT} unconfirmed), so the raw consumer reads exactly what shove's consumer reads and only the
 * consumer differs; in memory the raw mode puts the JSON bytes into an {@code ArrayBlockingQueue} instead.
 *
 * <p><b>Coordinated omission.</b> The publisher is paced by schedule, not by sleeping between sends: message
 * {@code i} is due at {@code start + i / rate}; the publisher parks until then, or sends at once when it is behind,
 * and the message carries its <i>intended</i> time, not the time it was actually sent. A publisher stalled by a slow
 * broker, a full in-flight window or a GC pause therefore cannot hide the stall: every message due meanwhile shows
 * the wait it would have had. So each latency is recorded with plain {@code recordValue}, and deliberately not with
 * {@code recordValueWithExpectedInterval}: that method back-fills samples a stalled <i>recorder</i> missed, assuming
 * one sample per interval, which would be right for latencies measured from the actual send time in the
 * publishing thread, but here the samples are recorded by consumers that receive in batches, and nothing is omitted
 * (each message carries its own due time), so the correction would invent samples that never existed. Messages
 * still not handled {@code drain} seconds after the last was due are recorded as having waited that long (a lower
 * bound) and the run says so. The publisher's own lag (when it came to send a message - its due time) in the
 * measured phase is printed per mode too.
 *
 * <p>The consumers: see {@link MemoryLatency}, {@link KafkaLatency}, {@link RabbitMqLatency}, {@link NatsLatency},
 * {@link RedisLatency} and {@link SqsLatency}. shove's is a plain consumer group on the same broker connection: one
 * registration, default settings apart from {@code prefetch}, a handler that records and acknowledges.
 *
 * <p>Arguments ({@code key=value}): {@code broker} (memory, kafka, rabbitmq, nats, redis or sqs; required), {@code
 * runs} (3; the report gives the median of the per-run figures), {@code warmup} (5 s), {@code seconds} (20), {@code
 * messages} (the measured messages, instead of {@code seconds}), {@code saturation} (6 s), {@code rate} (the raw
 * maximum in messages per second, which skips the saturation phase; the offered load is half of it), {@code drain}
 * (30 s), {@code prefetch} (shove's prefetch and the raw consumer's batch: 1000 on Kafka, 30 on SQS, else 100), and
 * each broker's address as in the throughput harnesses ({@code bootstrap}, {@code uri}, {@code url}, {@code
 * endpoint}). Writes {@code latency-<broker>} with {@link BenchReport}.
 */
public final class LatencyBenchmark {
    /** The message: its id, its intended send time ({@link System#nanoTime()}) and padding to ~100 bytes of JSON. */
    record Msg(String id, long sent, String note) {}

    /** The {@link Msg#sent()} of a probe message, which only tells that the consumer is reading. */
    static final long PROBE = -1;

    /** Decodes the raw consumers' payloads (shove's JSON codec uses Jackson too). */
    static final ObjectMapper JSON = new ObjectMapper();

    private static final String NOTE = "x".repeat(48);
    private static final int MAX_IN_FLIGHT = 10_000;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    /**
     * One broker as this harness drives it: shove's connection to it, and the raw client's consumer. Backends are
     * created and used by the harness's main thread; their lanes' consumers run on threads of their own.
     */
    interface Backend extends AutoCloseable {
        /** {@return shove's connection to the broker} */
        Broker<?> broker();

        /** {@return what the raw consumer is, for the report} */
        String rawLabel();

        /**
         * Starts the raw consumer of a declared topic; each message it reads goes to {@code sink}.
         *
         * @param topic a fresh topic, already declared by shove
         * @param prefetch how many messages the consumer may hold unacknowledged (or asks for at once)
         * @param sink where handled messages go
         * @return the lane: how messages are sent to the consumer, and how it stops
         */
        Lane raw(Topic<Msg> topic, int prefetch, Sink sink) throws Exception;

        /** Deletes what declaring {@code topic} created on the broker; reports, never throws. */
        void delete(Topic<Msg> topic);

        /** Closes the raw client and shove's connection. */
        @Override
        void close();
    }

    /** A running consumer of one topic and how messages are sent to it; {@link #close()} stops the consumer. */
    interface Lane extends AutoCloseable {
        /** Sends one message; the future completes once the broker (or the queue) took it. */
        CompletableFuture<?> send(Msg message) throws Exception;

        /** Stops the consumer; fails if it failed. */
        @Override
        void close();
    }

    /** Something to stop. */
    @FunctionalInterface
    interface Stoppable {
        void stop() throws Exception;
    }

    /** A lane on a broker: sent by shove's publisher, whichever consumer reads it. */
    static Lane published(Broker<?> broker, Topic<Msg> topic, Stoppable consumer) {
        return new Lane() {
            @Override
            public CompletableFuture<?> send(Msg message) {
                return broker.publisher().publishAsync(topic, message, Map.of());
            }

            @Override
            public void close() {
                try {
                    consumer.stop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while stopping the consumer of " + topic.name(), e);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(
                            "could not stop the consumer of " + topic.name() + ": " + e.getMessage(), e);
                }
            }
        };
    }

    /**
     * Where a consumer hands what it read: counts the messages, records the latency of those due in the measured
     * phase, and notices the first probe. Thread-safe: consumers call it from any number of threads.
     */
    static final class Sink {
        private final ConcurrentHistogram latency = new ConcurrentHistogram(3);
        private final CountDownLatch probed = new CountDownLatch(1);
        private final LongAdder handled = new LongAdder();
        private final LongAdder measured = new LongAdder();
        private final AtomicLong lastMeasured = new AtomicLong();
        private volatile long measureFrom = Long.MAX_VALUE;

        /**
         * A message reached the handler.
         *
         * @param sent the message's {@link Msg#sent()}
         */
        void handle(long sent) {
            long now = System.nanoTime();
            if (sent == PROBE) {
                probed.countDown();
                return;
            }
            handled.increment();
            if (sent >= measureFrom) {
                latency.recordValue(Math.max(0, now - sent));
                measured.increment();
                lastMeasured.accumulateAndGet(now, Math::max);
            }
        }

        /** Decodes a raw payload and handles it. */
        void handle(byte[] json) {
            try {
                handle(JSON.readValue(json, Msg.class).sent());
            } catch (IOException e) {
                throw new IllegalStateException("a payload is not the benchmark's JSON: " + e.getMessage(), e);
            }
        }

        long handled() {
            return handled.sum();
        }
    }

    /** One mode's figures in one run. */
    record Result(
            double rate,
            double p50,
            double p99,
            double p999,
            double max,
            long count,
            long missing,
            double publisherLagP99,
            double publisherLagMax) {}

    private final BenchArgs args;
    private final String brokerName;
    private final int warmupSeconds;
    private final int seconds;
    private final long messages;
    private final int saturationSeconds;
    private final double fixedRate;
    private final int drainSeconds;
    private final int prefetch;

    private LatencyBenchmark(BenchArgs args) {
        this.args = args;
        this.brokerName = args.text("broker", "");
        this.warmupSeconds = args.integer("warmup", 5);
        this.seconds = args.integer("seconds", 20);
        this.messages = args.longValue("messages", 0);
        this.saturationSeconds = args.integer("saturation", 6);
        this.fixedRate = Double.parseDouble(args.text("rate", "0"));
        this.drainSeconds = args.integer("drain", 30);
        this.prefetch = args.integer(
                "prefetch",
                switch (brokerName) {
                    case "kafka" -> 1000;
                    case "sqs" -> 30;
                    default -> 100;
                });
    }

    public static void main(String[] argv) {
        BenchArgs args = BenchArgs.parse(argv);
        int status = 0;
        try {
            new LatencyBenchmark(args).run(args.runs());
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        }
        // the clients' own threads (lettuce, the AWS SDK) must not keep the JVM alive
        System.exit(status);
    }

    private Backend backend() throws Exception {
        return switch (brokerName) {
            case "memory" -> new MemoryLatency();
            case "kafka" -> new KafkaLatency(args.textOrEnv("bootstrap", "SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092"));
            case "rabbitmq" ->
                new RabbitMqLatency(
                        args.textOrEnv("uri", "SHOVE_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672"),
                        args.integer("ackEvery", 50));
            case "nats" -> new NatsLatency(args.textOrEnv("url", "SHOVE_NATS_URL", "nats://127.0.0.1:4222"));
            case "redis" -> new RedisLatency(args.textOrEnv("uri", "SHOVE_REDIS_URI", "redis://127.0.0.1:6379"));
            case "sqs" -> new SqsLatency(args.textOrEnv("endpoint", "SHOVE_SQS_ENDPOINT", "http://127.0.0.1:4566"));
            default ->
                throw new IllegalArgumentException("broker='" + brokerName
                        + "': name one of memory, kafka, rabbitmq, nats, redis, sqs (e.g. scripts/bench.sh latency"
                        + " broker=kafka)");
        };
    }

    private void run(int runs) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        int payload = JSON.writeValueAsBytes(new Msg("m-1000000", System.nanoTime(), NOTE)).length;
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try (Backend backend = backend()) {
            System.out.printf(
                    Locale.ROOT,
                    "Latency benchmark, %s: publish -> handler entry, raw (%s) against shove (prefetch %d); %d-byte JSON;"
                            + " warm-up %d s, measured %s; %d run(s), %d cores, load average %.2f%n",
                    brokerName,
                    backend.rawLabel(),
                    prefetch,
                    payload,
                    warmupSeconds,
                    messages > 0 ? String.format(Locale.ROOT, "%,d messages", messages) : seconds + " s",
                    runs,
                    Runtime.getRuntime().availableProcessors(),
                    loadBefore);
            double maximum = fixedRate;
            if (maximum <= 0) {
                Topic<Msg> topic = topic(backend, "sat", suffix);
                try {
                    maximum = saturate(backend, topic);
                } finally {
                    backend.delete(topic);
                }
            }
            double offered = maximum / 2;
            long warmupCount = Math.max(1, Math.round(warmupSeconds * offered));
            long measuredCount = messages > 0 ? messages : Math.max(1, Math.round(seconds * offered));
            System.out.printf(
                    Locale.ROOT,
                    "offered load: %,.0f msg/s (half of %,.0f%s); %,d warm-up + %,d measured messages per mode%n",
                    offered,
                    maximum,
                    fixedRate > 0 ? ", given as rate=" : ", the raw maximum",
                    warmupCount,
                    measuredCount);
            Result[][] results = new Result[2][runs];
            for (int run = 0; run < runs; run++) {
                // the order alternates: the mode that follows the saturation phase (or the other mode) meets a
                // busier broker and JIT, so neither should always go first
                for (int step = 0; step < 2; step++) {
                    int mode = (step + run) % 2;
                    String name = mode == 0 ? "raw" : "shove";
                    Topic<Msg> topic = topic(backend, name + (run + 1), suffix);
                    try {
                        results[mode][run] = measure(backend, topic, mode == 1, offered, warmupCount, measuredCount);
                    } finally {
                        backend.delete(topic);
                    }
                    print("run " + (run + 1) + ", " + name, results[mode][run]);
                }
                System.out.printf(
                        Locale.ROOT,
                        "run %d: shove p99 - raw p99 = %.3f ms%n",
                        run + 1,
                        results[1][run].p99() - results[0][run].p99());
            }
            report(backend, results, offered, maximum, payload, measuredCount, runs);
        }
    }

    private static Topic<Msg> topic(Backend backend, String mode, String suffix) {
        Topic<Msg> topic = Topic.builder("latency-" + mode + "-" + suffix, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        backend.broker().topology().declare(topic);
        return topic;
    }

    /** The raw consumer's rate with the publisher flat out, over the second half of the phase. */
    private double saturate(Backend backend, Topic<Msg> topic) throws Exception {
        Sink sink = new Sink();
        try (Lane lane = backend.raw(topic, prefetch, sink)) {
            awaitReady(lane, sink, "the raw consumer", topic);
            Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long start = System.nanoTime();
            long from = start + TimeUnit.SECONDS.toNanos(saturationSeconds) / 2;
            long end = start + TimeUnit.SECONDS.toNanos(saturationSeconds);
            long fromCount = -1;
            long fromTime = 0;
            long i = 0;
            for (long now = start; now < end; now = System.nanoTime()) {
                if (fromCount < 0 && now >= from) {
                    fromCount = sink.handled();
                    fromTime = now;
                }
                send(lane, new Msg("m-" + i++, now, NOTE), inFlight, failure, topic);
            }
            long toCount = sink.handled();
            long toTime = System.nanoTime();
            if (toCount <= fromCount) {
                throw new IllegalStateException("the raw consumer of topic '" + topic.name() + "' handled nothing in"
                        + " the second half of the saturation phase (" + i
                        + " messages published); is the broker healthy? Or give the raw maximum as rate=");
            }
            double rate = (toCount - fromCount) / ((toTime - fromTime) / 1e9);
            System.out.printf(
                    Locale.ROOT,
                    "saturation: the raw mode handled %,.0f msg/s with the publisher flat out for %d s (%,d published,"
                            + " %,d handled)%n",
                    rate,
                    saturationSeconds,
                    i,
                    toCount);
            return rate;
        }
    }

    /** One mode on its own topic: probe, warm-up, measured phase, drain. */
    private Result measure(
            Backend backend, Topic<Msg> topic, boolean shove, double rate, long warmupCount, long measuredCount)
            throws Exception {
        Sink sink = new Sink();
        String what = shove ? "shove's consumer" : "the raw consumer";
        try (Lane lane = shove ? shove(backend.broker(), topic, sink) : backend.raw(topic, prefetch, sink)) {
            awaitReady(lane, sink, what, topic);
            Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long total = warmupCount + measuredCount;
            // warm-up, not recorded; then the consumer catches up, so that a backlog of a cold start is not measured
            long warmupDue = pace(lane, rate, System.nanoTime(), 0, warmupCount, null, inFlight, failure, topic);
            awaitHandled(sink, warmupCount, warmupDue);
            Histogram lag = new Histogram(3);
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
            sink.measureFrom = start;
            long lastDue = pace(lane, rate, start, warmupCount, measuredCount, lag, inFlight, failure, topic);
            awaitHandled(sink, total, lastDue);
            if (!inFlight.tryAcquire(MAX_IN_FLIGHT, drainSeconds, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the broker did not confirm "
                        + (MAX_IN_FLIGHT - inFlight.availablePermits()) + " publishes to topic '" + topic.name()
                        + "' within " + drainSeconds + " s of the last");
            }
            if (failure.get() != null) {
                throw new IllegalStateException(
                        "publishing to topic '" + topic.name() + "' failed: " + failure.get(), failure.get());
            }
            long missing = Math.max(0, total - sink.handled());
            if (missing > 0) {
                // they waited at least this long: a lower bound, so the percentiles are lower bounds too
                sink.latency.recordValueWithCount(Math.max(0, System.nanoTime() - lastDue), missing);
                System.out.printf(
                        Locale.ROOT,
                        "%s of topic '%s' had not handled %,d of %,d messages %d s after the last was due: each is"
                                + " recorded as late as that one is now, a lower bound, so the percentiles below are"
                                + " lower bounds too%n",
                        what,
                        topic.name(),
                        missing,
                        total,
                        drainSeconds);
            }
            Histogram h = sink.latency;
            long count = sink.measured.sum();
            double achieved = count / Math.max(1e-9, (sink.lastMeasured.get() - sink.measureFrom) / 1e9);
            return new Result(
                    achieved,
                    ms(h.getValueAtPercentile(50)),
                    ms(h.getValueAtPercentile(99)),
                    ms(h.getValueAtPercentile(99.9)),
                    ms(h.getMaxValue()),
                    count,
                    missing,
                    ms(lag.getValueAtPercentile(99)),
                    ms(lag.getMaxValue()));
        }
    }

    /**
     * Publishes messages {@code first} to {@code first + count - 1}, message {@code i} due at {@code start + (i -
     * first) / rate}: parks until a message is due, or sends at once when behind; each message carries its due time.
     *
     * @return the due time of the last message
     */
    private static long pace(
            Lane lane,
            double rate,
            long start,
            long first,
            long count,
            @Nullable Histogram lag,
            Semaphore inFlight,
            AtomicReference<Throwable> failure,
            Topic<Msg> topic)
            throws Exception {
        double interval = 1e9 / rate;
        for (long n = 0; n < count; n++) {
            long due = start + (long) (n * interval);
            long now = System.nanoTime();
            while (now < due) {
                LockSupport.parkNanos(due - now);
                now = System.nanoTime();
            }
            if (lag != null) {
                lag.recordValue(Math.max(0, System.nanoTime() - due));
            }
            send(lane, new Msg("m-" + (first + n), due, NOTE), inFlight, failure, topic);
        }
        return start + (long) ((count - 1) * interval);
    }

    /** Waits until the sink handled {@code count} messages, or {@code drain} seconds after {@code lastDue}. */
    private void awaitHandled(Sink sink, long count, long lastDue) throws InterruptedException {
        long deadline = Math.max(lastDue, System.nanoTime()) + TimeUnit.SECONDS.toNanos(drainSeconds);
        while (sink.handled() < count && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
    }

    /** shove's consumer: a plain consumer group, default settings apart from prefetch, a recording handler. */
    private Lane shove(Broker<?> broker, Topic<Msg> topic, Sink sink) {
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .prefetch(prefetch)
                        .groupName("latency-shove-" + topic.name())
                        .build(),
                () -> (m, meta, ctx) -> {
                    sink.handle(m.sent());
                    return Outcome.ack();
                });
        group.start();
        return published(broker, topic, () -> {
            SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
            if (!outcome.isClean()) {
                System.out.println("shove's consumer of topic '" + topic.name() + "' did not stop cleanly: " + outcome);
            }
        });
    }

    /** Sends probes, one every 100 ms, until the consumer handled one: its subscription is in place. */
    private static void awaitReady(Lane lane, Sink sink, String what, Topic<Msg> topic) throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        do {
            try {
                lane.send(new Msg("probe", PROBE, NOTE)).get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(
                        "could not publish a probe to topic '" + topic.name() + "': " + e.getCause(), e.getCause());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " of topic '" + topic.name() + "' handled none of the probe"
                        + " messages within " + READY_TIMEOUT.toSeconds() + " s; is the broker healthy?");
            }
        } while (!sink.probed.await(100, TimeUnit.MILLISECONDS));
    }

    private static void send(
            Lane lane, Msg message, Semaphore inFlight, AtomicReference<Throwable> failure, Topic<Msg> topic)
            throws Exception {
        Throwable failed = failure.get();
        if (failed != null) {
            throw new IllegalStateException("publishing to topic '" + topic.name() + "' failed: " + failed, failed);
        }
        inFlight.acquire();
        lane.send(message).whenComplete((ok, error) -> {
            if (error != null) {
                failure.compareAndSet(null, error);
            }
            inFlight.release();
        });
    }

    private static void print(String label, Result r) {
        System.out.printf(
                Locale.ROOT,
                "%s: %,.0f msg/s, p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms (%,d measured%s); publisher lag"
                        + " p99 %.3f ms, max %.3f ms%n",
                label,
                r.rate(),
                r.p50(),
                r.p99(),
                r.p999(),
                r.max(),
                r.count(),
                r.missing() > 0 ? String.format(Locale.ROOT, ", %,d never handled: lower bounds", r.missing()) : "",
                r.publisherLagP99(),
                r.publisherLagMax());
    }

    private void report(
            Backend backend,
            Result[][] results,
            double offered,
            double maximum,
            int payload,
            long measuredCount,
            int runs) {
        BenchReport report = new BenchReport(
                "latency-" + brokerName,
                String.format(
                        Locale.ROOT,
                        "publish -> handler entry at %,.0f msg/s offered (half of %,.0f msg/s, %s), %d-byte JSON,"
                                + " warm-up %d s, %,d measured messages per mode, shove prefetch %d, %d run(s)",
                        offered,
                        maximum,
                        fixedRate > 0 ? "given as rate=" : "the raw mode's maximum measured in this run",
                        payload,
                        warmupSeconds,
                        measuredCount,
                        prefetch,
                        runs));
        String shoveLabel = "shove consumer group, no-op handler, prefetch " + prefetch;
        for (int run = 0; run < runs; run++) {
            report.run("raw", backend.rawLabel(), results[0][run].rate(), Double.NaN, Double.NaN);
            report.run("shove", shoveLabel, results[1][run].rate(), Double.NaN, Double.NaN);
        }
        report.ratio(
                "shove / raw achieved rate",
                BenchReport.Metric.RATE,
                "shove",
                "raw",
                BenchReport.Goal.NONE,
                Double.NaN);
        String[] modes = {"raw", "shove"};
        for (int mode = 0; mode < 2; mode++) {
            Result[] r = results[mode];
            report.figure(modes[mode] + " p50", perRun(r, Result::p50), "ms", BenchReport.Goal.NONE, Double.NaN);
            report.figure(modes[mode] + " p99", perRun(r, Result::p99), "ms", BenchReport.Goal.NONE, Double.NaN);
            report.figure(modes[mode] + " p99.9", perRun(r, Result::p999), "ms", BenchReport.Goal.NONE, Double.NaN);
        }
        double[] differences = new double[runs];
        for (int run = 0; run < runs; run++) {
            differences[run] = results[1][run].p99() - results[0][run].p99();
        }
        report.figure("shove p99 - raw p99", differences, "ms", BenchReport.Goal.AT_MOST, 2.0);
        long missing = Arrays.stream(results)
                .flatMap(Arrays::stream)
                .mapToLong(Result::missing)
                .sum();
        if (missing > 0) {
            report.figure(
                    "messages never handled (their percentiles are lower bounds)",
                    missing,
                    "msg",
                    BenchReport.Goal.AT_MOST,
                    0);
        }
        report.write();
    }

    private static double[] perRun(Result[] results, java.util.function.ToDoubleFunction<Result> figure) {
        return Arrays.stream(results).mapToDouble(figure).toArray();
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    /** Deletes Kafka topics, RabbitMQ queues, ...: what a backend's {@link Backend#delete} names, one by one. */
    static void deleteAll(String what, List<String> names, DeleteOne delete) {
        List<String> failed = new ArrayList<>();
        for (String name : names) {
            try {
                delete.delete(name);
            } catch (Exception e) {
                failed.add(name + " (" + e.getMessage() + ")");
            }
        }
        if (!failed.isEmpty()) {
            System.err.println("could not delete the benchmark's " + what + ": " + String.join(", ", failed));
        }
    }

    /** Deletes one named thing. */
    @FunctionalInterface
    interface DeleteOne {
        void delete(String name) throws Exception;
    }
}
