package dev.shove.benchmarks;

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
 *       flush per batch).
 * </ul>
 *
 * A rate is measured from the first message handled to the last. Prints messages/s per run, then the median of the
 * runs and the ratios c/a and c/b.
 *
 * <p>Arguments (all optional, {@code key=value}): {@code url} (env {@code SHOVE_NATS_URL}, default {@code
 * nats://127.0.0.1:4222}), {@code runs} (3), {@code messages} (100_000), {@code batch} (100), {@code modes} (abc).
 */
public final class NatsBenchmark {
    record Msg(String id, String key, long amount, String note) {}

    private final String url;
    private final int messages;
    private final int batch;
    private final String modes;

    private NatsBenchmark(BenchArgs args) {
        this.url = args.textOrEnv("url", "SHOVE_NATS_URL", "nats://127.0.0.1:4222");
        this.messages = args.integer("messages", 100_000);
        this.batch = args.integer("batch", 100);
        this.modes = args.text("modes", "abc");
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
                double[][] rates = new double[3][runs];
                for (int run = 0; run < runs; run++) {
                    rates[0][run] = modes.contains("a") ? raw(broker, topic, raw, false, run) : Double.NaN;
                    rates[1][run] = modes.contains("b") ? raw(broker, topic, raw, true, run) : Double.NaN;
                    rates[2][run] = modes.contains("c") ? shove(broker, topic, raw, run) : Double.NaN;
                    System.out.printf(
                            Locale.ROOT,
                            "run %d: (a) raw fetch %d + ack each %,.0f/s  (b) raw fetch %d + AckAll %,.0f/s"
                                    + "  (c) shove no-op %,.0f/s  c/a %.2f  c/b %.2f%n",
                            run + 1,
                            batch,
                            rates[0][run],
                            batch,
                            rates[1][run],
                            rates[2][run],
                            rates[2][run] / rates[0][run],
                            rates[2][run] / rates[1][run]);
                }
                double a = median(rates[0]);
                double b = median(rates[1]);
                double c = median(rates[2]);
                System.out.printf(
                        Locale.ROOT,
                        "median of %d: (a) %,.0f/s  (b) %,.0f/s  (c) %,.0f/s  c/a %.2f  c/b %.2f (ratios of the"
                                + " medians; compare the per-run ratios above too)%n",
                        runs,
                        a,
                        b,
                        c,
                        c / a,
                        c / b);
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

    /** (a) and (b): a raw pull consumer of its own, starting at the messages just published. */
    private double raw(Broker<Nats> broker, Topic<Msg> topic, Connection connection, boolean ackAll, int run)
            throws Exception {
        JetStreamManagement jsm = connection.jetStreamManagement();
        long start = jsm.getStreamInfo(topic.name()).getStreamState().getLastSequence() + 1;
        publish(broker, topic, messages);
        String durable = "raw-" + (ackAll ? "all-" : "each-") + run;
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
                    throw new IllegalStateException("raw run saw " + seen + " of " + messages + " messages");
                }
                if (first == 0) {
                    first = System.nanoTime();
                }
                for (Message m : got) {
                    bytes += m.getData().length;
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
        return rate(messages, first, last);
    }

    /** (c): one shove consumer of a group of its own (starting at the messages just published), prefetch {@code batch}, no-op handler. */
    private double shove(Broker<Nats> broker, Topic<Msg> topic, Connection connection, int run) throws Exception {
        long start = connection
                        .jetStreamManagement()
                        .getStreamInfo(topic.name())
                        .getStreamState()
                        .getLastSequence()
                + 1;
        publish(broker, topic, messages);
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
        SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
        if (!finished || !outcome.isClean()) {
            throw new IllegalStateException(
                    "shove run did not finish cleanly: handled " + handled.get() + " of " + messages + ", " + outcome);
        }
        return rate(messages, first.get(), last.get());
    }

    private static final AtomicLong sink = new AtomicLong();

    private static double rate(int count, long firstNanos, long lastNanos) {
        return count / ((lastNanos - firstNanos) / 1e9);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
