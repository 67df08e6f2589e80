package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.nats.Nats;
import dev.shove.nats.NatsConfig;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * NATS JetStream throughput, shove against the raw jnats client, same server, same run, same messages: a file-storage
 * stream holding ~100-byte JSON messages, published (by shove's publisher, each acknowledged by the stream) before each
 * mode reads them, each mode with a durable pull consumer of its own:
 *
 * <ul>
 *   <li>(a) raw, pull {@code fetch(100)}, each message acknowledged ({@code ack()}, explicit ack policy): the raw mode
 *       of PERFORMANCE.md;
 *   <li>(b) raw, pull {@code fetch(100)} on a consumer with {@code AckPolicy.All}, one ack per batch (its last
 *       message): the best raw mode, the reference of the 0.8x target;
 *   <li>(c) shove: one consumer, prefetch 100, no-op handler (shove acks each message, written in batches with one
 *       flush per batch);
 *   <li>(d) raw as (a), each message decoded from JSON to the same record type shove decodes it to (Jackson, as
 *       shove's default codec): the fair floor for a library that decodes and acks each message;
 *   <li>(e) raw as (b), each message decoded likewise: the best raw mode doing the work shove does.
 * </ul>
 *
 * A rate is measured from the first message handled to the last; the process's CPU time per message over the same
 * mode (its consumer's set-up included, the publishing before it not) is printed with it. Prints one line per run,
 * then the median of the runs and the ratios of shove to each raw mode.
 *
 * <p><b>Report.</b> The runs go to {@link BenchReport} {@code nats} ({@code target/bench/nats.json} and {@code .md})
 * with the ratios c/d (the decoding floor), c/e, c/a and c/b, all without a target (issue 13 sets none for NATS).
 *
 * <p>Arguments (all optional, {@code key=value}): {@code url} (env {@code SHOVE_NATS_URL}, default {@code
 * nats://127.0.0.1:4222}), {@code runs} (3), {@code messages} (100_000), {@code batch} (100), {@code modes} (abcde).
 */
public final class NatsBenchmark {
    record Msg(String id, String key, long amount, String note) {}

    /** One mode's run: messages per second, and the process's CPU microseconds per message. */
    record Result(double rate, double cpuMicros) {
        static final Result SKIPPED = new Result(Double.NaN, Double.NaN);
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] ID = {"a", "b", "c", "d", "e"};
    private static final String[] LABEL = {
        "raw fetch 100 + ack each, no decoding",
        "raw fetch 100 + AckAll per batch, no decoding",
        "shove, one consumer, no-op handler",
        "raw fetch 100 + ack each, decoding JSON",
        "raw fetch 100 + AckAll per batch, decoding JSON"
    };

    private final String url;
    private final int messages;
    private final int batch;
    private final String modes;

    private NatsBenchmark(BenchArgs args) {
        this.url = args.textOrEnv("url", "SHOVE_NATS_URL", "nats://127.0.0.1:4222");
        this.messages = args.integer("messages", 100_000);
        this.batch = args.integer("batch", 100);
        this.modes = args.text("modes", "abcde");
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        new NatsBenchmark(args).run(args.runs());
    }

    private void run(int runs) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Topic<Msg> topic = Topic.builder("bench-nats-" + suffix, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        System.out.printf(
                Locale.ROOT,
                "NATS benchmark: file-storage stream, %,d messages (~100-byte JSON) per mode; pull batch %d; %d run(s),"
                        + " %d cores%n",
                messages,
                batch,
                runs,
                Runtime.getRuntime().availableProcessors());
        NatsConfig config =
                NatsConfig.builder(url).streamMaxAge(Duration.ofHours(1)).build();
        Connection raw = io.nats.client.Nats.connect(url);
        try (Broker<Nats> broker = Broker.connect(config)) {
            broker.topology().declare(topic);
            JetStreamManagement jsm = raw.jetStreamManagement();
            try {
                BenchReport report = new BenchReport(
                        "nats",
                        String.format(
                                Locale.ROOT,
                                "NATS JetStream, file storage: %,d messages (~100-byte JSON) per mode and run, pull"
                                        + " batch %d, shove prefetch %d, %d run(s)",
                                messages,
                                batch,
                                batch,
                                runs));
                Result[][] results = new Result[5][runs];
                for (int run = 0; run < runs; run++) {
                    results[0][run] = modes.contains("a") ? raw(broker, topic, raw, false, false, run) : Result.SKIPPED;
                    results[1][run] = modes.contains("b") ? raw(broker, topic, raw, true, false, run) : Result.SKIPPED;
                    results[2][run] = modes.contains("c") ? shove(broker, topic, raw, run) : Result.SKIPPED;
                    results[3][run] = modes.contains("d") ? raw(broker, topic, raw, false, true, run) : Result.SKIPPED;
                    results[4][run] = modes.contains("e") ? raw(broker, topic, raw, true, true, run) : Result.SKIPPED;
                    StringBuilder line = new StringBuilder("run " + (run + 1) + ":");
                    for (int m = 0; m < 5; m++) {
                        Result r = results[m][run];
                        if (r != Result.SKIPPED) {
                            report.run(ID[m], LABEL[m], r.rate(), r.cpuMicros(), Double.NaN);
                            line.append(String.format(
                                    Locale.ROOT,
                                    "  (%s) %s %,.0f/s (%.2f us CPU/msg)",
                                    ID[m],
                                    LABEL[m],
                                    r.rate(),
                                    r.cpuMicros()));
                        }
                    }
                    double c = results[2][run].rate();
                    line.append(String.format(
                            Locale.ROOT,
                            "  c/a %.2f  c/b %.2f  c/d %.2f  c/e %.2f",
                            c / results[0][run].rate(),
                            c / results[1][run].rate(),
                            c / results[3][run].rate(),
                            c / results[4][run].rate()));
                    System.out.println(line);
                }
                StringBuilder median = new StringBuilder("median of " + runs + ":");
                for (int m = 0; m < 5; m++) {
                    median.append(String.format(
                            Locale.ROOT,
                            "  (%s) %,.0f/s (%.2f us CPU/msg)",
                            ID[m],
                            report.median(ID[m], BenchReport.Metric.RATE),
                            report.median(ID[m], BenchReport.Metric.CPU)));
                }
                median.append(String.format(
                        Locale.ROOT,
                        "  c/a %.2f  c/b %.2f  c/d %.2f  c/e %.2f (medians of the per-run ratios)",
                        report.ratioValue(BenchReport.Metric.RATE, "c", "a"),
                        report.ratioValue(BenchReport.Metric.RATE, "c", "b"),
                        report.ratioValue(BenchReport.Metric.RATE, "c", "d"),
                        report.ratioValue(BenchReport.Metric.RATE, "c", "e")));
                System.out.println(median);
                BenchReport.Goal none = BenchReport.Goal.NONE;
                report.ratio(
                        "shove / raw ack each, decoding JSON", BenchReport.Metric.RATE, "c", "d", none, Double.NaN);
                report.ratio("shove / raw AckAll, decoding JSON", BenchReport.Metric.RATE, "c", "e", none, Double.NaN);
                report.ratio("shove / raw ack each", BenchReport.Metric.RATE, "c", "a", none, Double.NaN);
                report.ratio("shove / raw AckAll", BenchReport.Metric.RATE, "c", "b", none, Double.NaN);
                report.ratio(
                        "shove / raw ack each, decoding JSON: CPU per message",
                        BenchReport.Metric.CPU,
                        "c",
                        "d",
                        none,
                        Double.NaN);
                report.write();
            } finally {
                try {
                    jsm.deleteStream(topic.name());
                    jsm.deleteStream(topic.dlq().orElseThrow());
                } catch (IOException | JetStreamApiException e) {
                    System.out.println("could not delete the benchmark's streams: " + e);
                }
            }
        } finally {
            raw.close();
        }
    }

    private void publish(Broker<Nats> broker, Topic<Msg> topic, int count) {
        String note = "x".repeat(30);
        List<Msg> chunk = new ArrayList<>(1000);
        for (int i = 0; i < count; i++) {
            chunk.add(new Msg("m-" + i, "key-" + (i % 1000), i, note));
            if (chunk.size() == 1000) {
                broker.publisher().publishBatch(topic, chunk);
                chunk.clear();
            }
        }
        if (!chunk.isEmpty()) {
            broker.publisher().publishBatch(topic, chunk);
        }
    }

    /**
     * (a), (b), (d) and (e): a raw pull consumer of its own, starting at the messages just published; acknowledging
     * each message or the last of each batch, decoding each message's JSON or not.
     */
    private Result raw(
            Broker<Nats> broker, Topic<Msg> topic, Connection connection, boolean ackAll, boolean decode, int run)
            throws Exception {
        JetStreamManagement jsm = connection.jetStreamManagement();
        long start = jsm.getStreamInfo(topic.name()).getStreamState().getLastSequence() + 1;
        publish(broker, topic, messages);
        long cpu = processCpuNanos();
        String durable = "raw-" + (ackAll ? "all-" : "each-") + (decode ? "json-" : "") + run;
        jsm.addOrUpdateConsumer(
                topic.name(),
                ConsumerConfiguration.builder()
                        .durable(durable)
                        .filterSubject(topic.name())
                        .ackPolicy(ackAll ? AckPolicy.All : AckPolicy.Explicit)
                        .deliverPolicy(DeliverPolicy.ByStartSequence)
                        .startSequence(start)
                        .maxAckPending(10_000)
                        .build());
        JetStreamSubscription sub =
                connection.jetStream().subscribe(null, PullSubscribeOptions.fastBind(topic.name(), durable));
        int seen = 0;
        long first = 0;
        long bytes = 0;
        try {
            while (seen < messages) {
                List<Message> got = sub.fetch(batch, Duration.ofSeconds(2));
                if (got.isEmpty()) {
                    throw new IllegalStateException("raw consumer " + durable + " of stream " + topic.name() + " saw "
                            + seen + " of " + messages + " messages, then nothing for 2 s");
                }
                if (first == 0) {
                    first = System.nanoTime();
                }
                for (Message m : got) {
                    bytes += decode ? JSON.readValue(m.getData(), Msg.class).amount() : m.getData().length;
                    if (!ackAll) {
                        m.ack();
                    }
                }
                if (ackAll) {
                    got.getLast().ack();
                }
                seen += got.size();
            }
        } finally {
            sub.unsubscribe();
            jsm.deleteConsumer(topic.name(), durable);
        }
        long last = System.nanoTime();
        sink.addAndGet(bytes);
        return new Result(rate(messages, first, last), (processCpuNanos() - cpu) / 1000.0 / messages);
    }

    /** (c): one shove consumer of a group of its own (starting at the messages just published), prefetch {@code batch}, no-op handler. */
    private Result shove(Broker<Nats> broker, Topic<Msg> topic, Connection connection, int run) throws Exception {
        long start = connection
                        .jetStreamManagement()
                        .getStreamInfo(topic.name())
                        .getStreamState()
                        .getLastSequence()
                + 1;
        publish(broker, topic, messages);
        long cpu = processCpuNanos();
        AtomicInteger handled = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .prefetch(batch)
                        .startAt(dev.shove.Position.sequence(start))
                        .groupName("bench-shove-" + run)
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
        double cpuMicros = (processCpuNanos() - cpu) / 1000.0 / messages;
        SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
        if (!finished || !outcome.isClean()) {
            throw new IllegalStateException("shove run on " + topic.name() + " did not finish cleanly: handled "
                    + handled.get() + " of " + messages + ", " + outcome);
        }
        return new Result(rate(messages, first.get(), last.get()), cpuMicros);
    }

    private static final AtomicLong sink = new AtomicLong();

    private static double rate(int count, long firstNanos, long lastNanos) {
        return count / ((lastNanos - firstNanos) / 1e9);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
