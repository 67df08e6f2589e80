package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.rabbitmq.RabbitMq;
import dev.shove.rabbitmq.RabbitMqConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RabbitMQ throughput, shove against the raw {@code amqp-client}, same broker, same run, same messages: a durable
 * queue holding persistent ~100-byte JSON messages, published (by shove's publisher, with confirms) before each mode
 * reads them:
 *
 * <ul>
 *   <li>(a) raw, manual ack, prefetch 100, one multiple-ack every 50 deliveries: the best raw mode in PERFORMANCE.md,
 *       the reference of the 0.8x target;
 *   <li>(b) raw, manual ack, prefetch 100, each delivery acknowledged on its own;
 *   <li>(c) shove: one consumer, prefetch 100, no-op handler.
 * </ul>
 *
 * A rate is measured from the first message handled to the last. Prints messages/s per run, then the median of the
 * runs and the ratios c/a and c/b.
 *
 * <p><b>Round trips of a retry</b> (target 4 of PERFORMANCE.md: a retried message costs at most 3 broker round trips
 * more than an acked one). On a fresh topic with a 1 s hold tier, shove first handles {@code roundTripMessages}
 * messages that are acknowledged, then as many that are retried once (the handler returns {@link Outcome#retry()}
 * at {@code retryCount} 0 and acknowledges the copy). For each phase the management API's per-queue {@code
 * message_stats} of the topic's queues are read before and after (the broker refreshes them every {@code
 * collect_statistics_interval}, 5 s by default, so the harness waits until they settle). Per message it prints what
 * clients did: publishes (the benchmark's own, plus shove's copies into the hold queue, the only publisher there),
 * deliveries ({@code deliver_get} of the main queue) and acknowledgements ({@code ack}); the broker's own move of an
 * expired copy from the hold queue back to the main queue (a TTL dead-letter) is no client round trip and is left
 * out. Per-queue figures, unlike {@code /api/overview}, are not disturbed by other work on the broker.
 *
 * <p>Arguments (all optional, {@code key=value}): {@code uri} (env {@code SHOVE_RABBITMQ_URI}, default {@code
 * amqp://guest:guest@127.0.0.1:5672}), {@code management} ({@code http://127.0.0.1:15672}, guest/guest), {@code runs}
 * (3), {@code messages} (50_000), {@code prefetch} (100), {@code ackEvery} (50), {@code roundTripMessages} (1000),
 * {@code modes} (abcr: r is the round-trip count).
 */
public final class RabbitMqBenchmark {
    record Msg(String id, String key, long amount, String note) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String uri;
    private final String management;
    private final int messages;
    private final int prefetch;
    private final int ackEvery;
    private final int roundTripMessages;
    private final String modes;
    private final HttpClient http = HttpClient.newHttpClient();

    private RabbitMqBenchmark(BenchArgs args) {
        this.uri = args.textOrEnv("uri", "SHOVE_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672");
        this.management = args.text("management", "http://127.0.0.1:15672");
        this.messages = args.integer("messages", 50_000);
        this.prefetch = args.integer("prefetch", 100);
        this.ackEvery = args.integer("ackEvery", 50);
        this.roundTripMessages = args.integer("roundTripMessages", 1000);
        this.modes = args.text("modes", "abcr");
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        int runs = args.runs();
        new RabbitMqBenchmark(args).run(runs);
    }

    private void run(int runs) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Topic<Msg> plain = Topic.builder("bench-plain-" + suffix, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<Msg> retried = Topic.builder("bench-retry-" + suffix, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        System.out.printf(
                Locale.ROOT,
                "RabbitMQ benchmark: durable queue, %,d persistent messages (~100-byte JSON) per mode; prefetch %d,"
                        + " raw multiple-ack every %d; %d run(s), %d cores%n",
                messages,
                prefetch,
                ackEvery,
                runs,
                Runtime.getRuntime().availableProcessors());
        RabbitMqConfig config =
                RabbitMqConfig.builder(uri).managementApi(management).build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        try (Broker<RabbitMq> broker = Broker.connect(config);
                Connection raw = factory.newConnection("shove-bench-raw")) {
            broker.topology().declare(plain);
            broker.topology().declare(retried);
            try {
                double[][] rates = new double[3][runs];
                for (int run = 0; run < runs; run++) {
                    rates[0][run] = modes.contains("a") ? raw(broker, plain, raw, ackEvery) : Double.NaN;
                    rates[1][run] = modes.contains("b") ? raw(broker, plain, raw, 1) : Double.NaN;
                    rates[2][run] = modes.contains("c") ? shove(broker, plain) : Double.NaN;
                    System.out.printf(
                            Locale.ROOT,
                            "run %d: (a) raw multiple-ack/%d %,.0f/s  (b) raw ack each %,.0f/s  (c) shove no-op %,.0f/s"
                                    + "  c/a %.2f  c/b %.2f%n",
                            run + 1,
                            ackEvery,
                            rates[0][run],
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
                if (modes.contains("r")) {
                    roundTrips(broker, retried);
                }
            } finally {
                deleteQueues(raw, plain, retried);
            }
        }
    }

    private void publish(Broker<RabbitMq> broker, Topic<Msg> topic, int count) {
        String note = "x".repeat(30);
        List<Msg> batch = new ArrayList<>(1000);
        for (int i = 0; i < count; i++) {
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

    /** (a) and (b): a raw consumer, prefetch 100, acknowledging every {@code every} deliveries at once. */
    private double raw(Broker<RabbitMq> broker, Topic<Msg> topic, Connection connection, int every)
            throws IOException, InterruptedException {
        publish(broker, topic, messages);
        AtomicInteger seen = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        Channel channel = connection.createChannel();
        try {
            channel.basicQos(prefetch);
            String tag = channel.basicConsume(topic.name(), false, new DefaultConsumer(channel) {
                @Override
                public void handleDelivery(
                        String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                        throws IOException {
                    int n = seen.incrementAndGet();
                    if (n == 1) {
                        first.set(System.nanoTime());
                    }
                    sink.addAndGet(body.length);
                    if (n % every == 0 || n == messages) {
                        getChannel().basicAck(envelope.getDeliveryTag(), every > 1);
                    }
                    if (n == messages) {
                        last.set(System.nanoTime());
                        done.countDown();
                    }
                }
            });
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("raw run saw " + seen.get() + " of " + messages + " messages");
            }
            channel.basicCancel(tag);
        } finally {
            try {
                channel.close();
            } catch (Exception e) {
                // the benchmark is over either way
            }
        }
        return rate(messages, first.get(), last.get());
    }

    /** (c): one shove consumer, prefetch 100, no-op handler. */
    private double shove(Broker<RabbitMq> broker, Topic<Msg> topic) throws InterruptedException {
        publish(broker, topic, messages);
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
        return rate(messages, first.get(), last.get());
    }

    // ---------------------------------------------------------------- round trips of a retry (target 4)

    /** Client operations per message in one phase, from the per-queue statistics. */
    record Ops(double publishes, double deliveries, double acks, long fromHold) {
        double total() {
            return publishes + deliveries + acks;
        }
    }

    private void roundTrips(Broker<RabbitMq> broker, Topic<Msg> topic) throws Exception {
        String main = topic.name();
        String hold = main + "-hold-1s";
        int k = roundTripMessages;
        Ops acked = phase(broker, topic, main, hold, k, false);
        Ops retried = phase(broker, topic, main, hold, k, true);
        System.out.printf(
                Locale.ROOT,
                "round trips per message (%,d messages each, management API per-queue stats):%n"
                        + "  acked:         %.2f publishes + %.2f deliveries + %.2f acks = %.2f%n"
                        + "  retried once:  %.2f publishes + %.2f deliveries + %.2f acks = %.2f"
                        + "  (plus %,d broker-side TTL moves from the hold queue, no client round trip)%n"
                        + "  a retry costs %.2f more (target 4 of PERFORMANCE.md: at most 3)%n",
                k,
                acked.publishes(),
                acked.deliveries(),
                acked.acks(),
                acked.total(),
                retried.publishes(),
                retried.deliveries(),
                retried.acks(),
                retried.total(),
                retried.fromHold(),
                retried.total() - acked.total());
    }

    private Ops phase(Broker<RabbitMq> broker, Topic<Msg> topic, String main, String hold, int k, boolean retry)
            throws Exception {
        Map<String, Long> mainBefore = settledStats(main, -1);
        Map<String, Long> holdBefore = settledStats(hold, -1);
        publish(broker, topic, k);
        AtomicInteger acked = new AtomicInteger();
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
                    if (retry && meta.retryCount() == 0) {
                        return Outcome.retry();
                    }
                    if (acked.incrementAndGet() == k) {
                        done.countDown();
                    }
                    return Outcome.ack();
                });
        group.start();
        boolean finished = done.await(5, TimeUnit.MINUTES);
        SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
        if (!finished || !outcome.isClean()) {
            throw new IllegalStateException("round-trip phase did not finish cleanly: " + outcome);
        }
        long expectedAcks = mainBefore.get("ack") + (retry ? 2L * k : k);
        Map<String, Long> mainAfter = settledStats(main, expectedAcks);
        Map<String, Long> holdAfter = settledStats(hold, -1);
        long holdPublishes = holdAfter.get("publish") - holdBefore.get("publish");
        long publishes = k + holdPublishes; // the benchmark's own, plus shove's copies into the hold queue
        long deliveries = mainAfter.get("deliver_get") - mainBefore.get("deliver_get");
        long acks = mainAfter.get("ack") - mainBefore.get("ack") + holdAfter.get("ack") - holdBefore.get("ack");
        return new Ops((double) publishes / k, (double) deliveries / k, (double) acks / k, holdPublishes);
    }

    /**
     * A queue's cumulative {@code message_stats}, once they stopped moving (and, when {@code minAcks} is not -1, once
     * they count at least that many acks): the broker refreshes them only every few seconds.
     */
    private Map<String, Long> settledStats(String queue, long minAcks) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<String, Long> previous = queueStats(queue);
        while (System.nanoTime() < deadline) {
            Thread.sleep(6000); // longer than the default collect_statistics_interval of 5 s
            Map<String, Long> now = queueStats(queue);
            if (now.equals(previous) && (minAcks < 0 || now.get("ack") >= minAcks)) {
                return now;
            }
            previous = now;
        }
        throw new IllegalStateException("the statistics of queue '" + queue + "' did not settle within 60 s: "
                + previous + " (is the management plugin collecting statistics?)");
    }

    private Map<String, Long> queueStats(String queue) throws IOException, InterruptedException {
        String path = "/api/queues/%2F/" + URLEncoder.encode(queue, StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create(management + path))
                .header(
                        "Authorization",
                        "Basic " + Base64.getEncoder().encodeToString("guest:guest".getBytes(StandardCharsets.UTF_8)))
                .GET()
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(
                    "management API answered " + response.statusCode() + " for queue '" + queue + "'");
        }
        JsonNode stats = JSON.readTree(response.body()).path("message_stats");
        Map<String, Long> values = new HashMap<>();
        for (String field : List.of("publish", "deliver_get", "ack", "redeliver")) {
            values.put(field, stats.path(field).asLong(0));
        }
        return values;
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

    private static void deleteQueues(Connection connection, Topic<?>... topics) {
        try (Channel channel = connection.createChannel()) {
            for (Topic<?> topic : topics) {
                for (String queue : List.of(topic.name(), topic.name() + "-hold-1s", topic.name() + "-dlq")) {
                    channel.queueDelete(queue);
                }
            }
        } catch (Exception e) {
            System.err.println("could not delete the benchmark queues: " + e);
        }
    }
}
