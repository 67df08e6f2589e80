package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.redis.Redis;
import dev.shove.redis.RedisConfig;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Redis Streams throughput, shove against raw lettuce, same server, same run, same entries: ~100-byte JSON messages
 * published by shove's publisher to a fresh topic before each mode reads them with a consumer group of its own. The
 * raw modes decode the same JSON shove decodes:
 *
 * <ul>
 *   <li>(a) raw, {@code XREADGROUP COUNT 100}, then one {@code XACK} per entry, each awaited;
 *   <li>(b) raw, {@code XREADGROUP COUNT 100}, then one {@code XACK} per entry, pipelined;
 *   <li>(c) raw, {@code XREADGROUP COUNT 100}, then one {@code XACK} for the whole read: the best raw mode of
 *       PERFORMANCE.md, the reference of the 0.8x target;
 *   <li>(d) shove: one consumer, prefetch 100, no-op handler.
 * </ul>
 *
 * A rate is measured from the first message handled to the last. Prints messages/s per run and the process CPU time
 * per message, then the median of the runs and the ratio d/c.
 *
 * <p><b>Report.</b> The runs go to {@link BenchReport} {@code redis} ({@code target/bench/redis.json} and {@code
 * .md}) with the ratios d/c (shove against the best raw mode, which decodes the same JSON), d/b and d/a, and d/c of
 * the CPU per message, all without a target (issue 13 sets none for Redis).
 *
 * <p>Arguments (all optional, {@code key=value}): {@code uri} (env {@code SHOVE_REDIS_URI}, default {@code
 * redis://127.0.0.1:6379}), {@code runs} (3), {@code messages} (100_000), {@code prefetch} (100), {@code modes}
 * (abcd).
 */
public final class RedisBenchmark {
    record Msg(String id, String key, long amount, String note) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    private static final int COUNT = 100;
    private static final String[] LABELS = {
        "raw XREADGROUP 100, XACK each awaited, decoding JSON",
        "raw XREADGROUP 100, XACK each pipelined, decoding JSON",
        "raw XREADGROUP 100, one XACK per read, decoding JSON",
        "shove, one consumer, no-op handler"
    };

    /** Keeps the raw modes' decoded messages from being optimised away. */
    static final AtomicLong sink = new AtomicLong();

    private final String uri;
    private final int messages;
    private final int prefetch;
    private final String modes;

    private RedisBenchmark(BenchArgs args) {
        this.uri = args.textOrEnv("uri", "SHOVE_REDIS_URI", "redis://127.0.0.1:6379");
        this.messages = args.integer("messages", 100_000);
        this.prefetch = args.integer("prefetch", 100);
        this.modes = args.text("modes", "abcd");
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        new RedisBenchmark(args).run(args.runs());
    }

    private void run(int runs) throws Exception {
        System.out.printf(
                Locale.ROOT,
                "Redis benchmark: %,d messages (~100-byte JSON) per mode, XREADGROUP COUNT %d, shove prefetch %d;"
                        + " %d run(s), %d cores%n",
                messages,
                COUNT,
                prefetch,
                runs,
                Runtime.getRuntime().availableProcessors());
        RedisClient client = RedisClient.create(uri);
        List<Topic<Msg>> made = new ArrayList<>();
        try (Broker<Redis> broker = Broker.connect(RedisConfig.of(uri));
                StatefulRedisConnection<String, byte[]> raw = client.connect(CODEC)) {
            try {
                BenchReport report = new BenchReport(
                        "redis",
                        String.format(
                                Locale.ROOT,
                                "Redis Streams: %,d messages (~100-byte JSON) per mode and run, XREADGROUP COUNT %d,"
                                        + " shove prefetch %d, %d run(s)",
                                messages,
                                COUNT,
                                prefetch,
                                runs));
                String[] names = {
                    "(a) raw XACK each", "(b) raw XACK each, pipelined", "(c) raw one XACK per read", "(d) shove no-op"
                };
                double[][] rates = new double[4][runs];
                double[][] cpu = new double[4][runs];
                for (int run = 0; run < runs; run++) {
                    StringBuilder line = new StringBuilder("run " + (run + 1) + ":");
                    for (int mode = 0; mode < 4; mode++) {
                        char letter = (char) ('a' + mode);
                        if (!modes.contains(String.valueOf(letter))) {
                            rates[mode][run] = Double.NaN;
                            cpu[mode][run] = Double.NaN;
                            continue;
                        }
                        Topic<Msg> topic = Topic.builder("bench-" + UUID.randomUUID(), Msg.class)
                                .holdQueue(Duration.ofSeconds(1))
                                .dlq()
                                .build();
                        made.add(topic);
                        broker.topology().declare(topic);
                        publish(broker, topic);
                        long cpuBefore = processCpuNanos();
                        double[] result = mode == 3 ? shove(broker, topic) : raw(raw.sync(), raw.async(), topic, mode);
                        rates[mode][run] = result[0];
                        cpu[mode][run] = (processCpuNanos() - cpuBefore) / 1000.0 / messages;
                        report.run(String.valueOf(letter), LABELS[mode], rates[mode][run], cpu[mode][run], Double.NaN);
                        line.append(String.format(
                                Locale.ROOT,
                                "  %s %,.0f/s (%.2f µs CPU/msg)",
                                names[mode],
                                rates[mode][run],
                                cpu[mode][run]));
                    }
                    line.append(String.format(Locale.ROOT, "  d/c %.2f", rates[3][run] / rates[2][run]));
                    System.out.println(line);
                }
                StringBuilder median = new StringBuilder("median of " + runs + ":");
                for (int mode = 0; mode < 4; mode++) {
                    median.append(String.format(
                            Locale.ROOT,
                            "  %s %,.0f/s (%.2f µs CPU/msg)",
                            names[mode],
                            median(rates[mode]),
                            median(cpu[mode])));
                }
                double[] ratios = new double[runs];
                for (int run = 0; run < runs; run++) {
                    ratios[run] = rates[3][run] / rates[2][run];
                }
                median.append(String.format(Locale.ROOT, "  d/c (median of the per-run ratios) %.2f", median(ratios)));
                System.out.println(median);
                BenchReport.Goal none = BenchReport.Goal.NONE;
                report.ratio(
                        "shove / raw one XACK per read, decoding JSON",
                        BenchReport.Metric.RATE,
                        "d",
                        "c",
                        none,
                        Double.NaN);
                report.ratio(
                        "shove / raw XACK each, pipelined, decoding JSON",
                        BenchReport.Metric.RATE,
                        "d",
                        "b",
                        none,
                        Double.NaN);
                report.ratio(
                        "shove / raw XACK each, decoding JSON", BenchReport.Metric.RATE, "d", "a", none, Double.NaN);
                report.ratio(
                        "shove / raw one XACK per read: CPU per message",
                        BenchReport.Metric.CPU,
                        "d",
                        "c",
                        none,
                        Double.NaN);
                report.write();
            } finally {
                RedisCommands<String, byte[]> sync = raw.sync();
                for (Topic<Msg> t : made) {
                    sync.del(
                            "shove:{" + t.name() + "}",
                            "shove:{" + t.name() + "}:meta",
                            "shove:{" + t.name() + "}:" + t.dlq().orElseThrow());
                }
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private void publish(Broker<Redis> broker, Topic<Msg> topic) {
        String note = "x".repeat(30);
        List<Msg> batch = new ArrayList<>(1000);
        for (int i = 0; i < messages; i++) {
            batch.add(new Msg("m-" + i, "key-" + (i % 1000), i, note));
            if (batch.size() == 1000) {
                broker.publisher().publishBatch(topic, batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            broker.publisher().publishBatch(topic, batch);
        }
    }

    /** (a), (b), (c): one raw consumer reading {@value #COUNT} at a time and decoding each payload. */
    @SuppressWarnings("unchecked")
    private double[] raw(
            RedisCommands<String, byte[]> sync, RedisAsyncCommands<String, byte[]> async, Topic<Msg> topic, int mode)
            throws Exception {
        String stream = "shove:{" + topic.name() + "}";
        String group = "raw";
        sync.xgroupCreate(XReadArgs.StreamOffset.from(stream, "0"), group, new XGroupCreateArgs());
        Consumer<String> consumer = Consumer.from(group, "raw-1");
        int seen = 0;
        long first = 0;
        while (seen < messages) {
            List<StreamMessage<String, byte[]>> read = sync.xreadgroup(
                    consumer, XReadArgs.Builder.count(COUNT).block(1000), XReadArgs.StreamOffset.lastConsumed(stream));
            if (read.isEmpty()) {
                continue;
            }
            if (first == 0) {
                first = System.nanoTime();
            }
            String[] ids = new String[read.size()];
            for (int i = 0; i < ids.length; i++) {
                StreamMessage<String, byte[]> m = read.get(i);
                Msg msg = JSON.readValue(m.getBody().get("shove-payload"), Msg.class);
                sink.addAndGet(msg.amount());
                ids[i] = m.getId();
            }
            switch (mode) {
                case 0 -> {
                    for (String id : ids) {
                        sync.xack(stream, group, id);
                    }
                }
                case 1 -> {
                    List<RedisFuture<Long>> acks = new ArrayList<>(ids.length);
                    for (String id : ids) {
                        acks.add(async.xack(stream, group, id));
                    }
                    for (RedisFuture<Long> f : acks) {
                        f.get(10, TimeUnit.SECONDS);
                    }
                }
                default -> sync.xack(stream, group, ids);
            }
            seen += read.size();
        }
        return new double[] {rate(messages, first, System.nanoTime())};
    }

    /** (d): one shove consumer, no-op handler. */
    private double[] shove(Broker<Redis> broker, Topic<Msg> topic) throws InterruptedException {
        AtomicInteger handled = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .prefetch(prefetch)
                        .noAutoscaler()
                        .noDeadLetterConsumer()
                        .build(),
                () -> (m, meta, ctx) -> {
                    int n = handled.incrementAndGet();
                    if (n == 1) {
                        first.set(System.nanoTime());
                    }
                    if (n == messages) {
                        last.set(System.nanoTime());
                        done.countDown();
                    }
                    return Outcome.ack();
                });
        group.start();
        boolean finished = done.await(10, TimeUnit.MINUTES);
        SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
        if (!finished || !outcome.isClean()) {
            throw new IllegalStateException(
                    "shove run did not finish cleanly: handled " + handled.get() + " of " + messages + ", " + outcome);
        }
        return new double[] {rate(messages, first.get(), last.get())};
    }

    private static double rate(int count, long firstNanos, long lastNanos) {
        return count / Math.max(1e-9, (lastNanos - firstNanos) / 1e9);
    }

    private static double median(double[] values) {
        double[] sorted =
                Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
