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
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
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
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * RabbitMQ throughput, shove against the raw {@code amqp-client} and against Spring AMQP's listener containers, same
 * broker, same run, same messages: a durable queue holding persistent ~100-byte JSON messages, published (by shove's
 * publisher, with confirms) before each mode reads them, each mode its own fresh copy:
 *
 * <ul>
 *   <li>(a) raw, manual ack, prefetch 100, one multiple-ack every 50 deliveries: the best raw mode in PERFORMANCE.md;
 *       issue 13's target: shove at least 0.9x this;
 *   <li>(b) raw, manual ack, prefetch 100, each delivery acknowledged on its own;
 *   <li>(c) shove: one consumer, prefetch 100, no-op handler;
 *   <li>(d) Spring AMQP {@code SimpleMessageListenerContainer}, prefetch 100, a batch listener of 50 decoding each
 *       message, one multiple-ack per batch;
 *   <li>(e) Spring AMQP {@code DirectMessageListenerContainer}, prefetch 100, {@code messagesPerAck} 50, a listener
 *       decoding each message.
 * </ul>
 *
 * (d) and (e) and their configurations are described in {@link SpringAmqpPeers}; the best of the two in each run
 * (the higher rate) is recorded as the mode {@code max(d,e)}, and issue 13's target is shove at least 1.0x that. Like
 * shove, the Spring modes decode every message's JSON into the same record; the raw modes (a) and (b) do not decode.
 *
 * <p>A rate is measured from the first message handled to the last. Each mode's client CPU time per message is
 * measured too: the process's CPU time ({@code com.sun.management.OperatingSystemMXBean#getProcessCpuTime()}) from
 * just before its consumer starts (after the mode's messages are published) until its consumer is closed, divided by
 * the messages (the broker is another process). Prints each run's rates and CPU, then the medians, and writes them
 * with issue 13's targets through {@link BenchReport} as {@code rabbitmq.json} and {@code rabbitmq.md}. After each
 * mode the queue must be empty; messages left in it are reported and purged, so the next mode starts from its own
 * copy. Before the measured runs each mode reads {@code warmup} messages once, uncounted, so that class loading and
 * the JIT's first compilations (Spring's container classes load only when (d) first runs) do not land in run 1.
 *
 * <p><b>Round trips of a retry</b> (mode r; target 4 of PERFORMANCE.md: a retried message costs at most 3 broker
 * round trips more than an acked one). On a fresh topic with a 1 s hold tier, shove first handles {@code
 * roundTripMessages} messages that are acknowledged, then as many that are retried once (the handler returns {@link
 * Outcome#retry()} at {@code retryCount} 0 and acknowledges the copy). For each phase the management API's per-queue
 * {@code message_stats} of the topic's queues are read before and after (the broker refreshes them every {@code
 * collect_statistics_interval}, 5 s by default, so the harness waits until they settle). Per message it prints what
 * clients did: publishes (the benchmark's own, plus shove's copies into the hold queue, the only publisher there),
 * deliveries ({@code deliver_get} of the main queue) and acknowledgements ({@code ack}); the broker's own move of an
 * expired copy from the hold queue back to the main queue (a TTL dead-letter) is no client round trip and is left
 * out. Per-queue figures, unlike {@code /api/overview}, are not disturbed by other work on the broker. The report
 * gets the per-message totals as figures without a target.
 *
 * <p>Arguments (all optional, {@code key=value}): {@code uri} (env {@code SHOVE_RABBITMQ_URI}, default {@code
 * amqp://guest:guest@127.0.0.1:5672}), {@code management} ({@code http://127.0.0.1:15672}, guest/guest), {@code runs}
 * (3), {@code messages} (50_000), {@code warmup} (5000, 0 for none), {@code prefetch} (100), {@code ackEvery} (50: the raw multiple-ack's batch and both
 * Spring containers' acknowledgement batch), {@code roundTripMessages} (1000), {@code smlcListener} ({@code batch},
 * or {@code single}: (d) with a per-message listener), {@code modes} (abcder: r is the round-trip count).
 */
public final class RabbitMqBenchmark {
    record Msg(String id, String key, long amount, String note) {}

    /** One mode's run: messages/s from the first message handled to the last, client CPU microseconds per message. */
    record Result(double rate, double cpuMicros) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** The measured modes, in the order they run. */
    private static final String MEASURED = "abcde";

    private final String uri;
    private final String management;
    private final int messages;
    private final int prefetch;
    private final int ackEvery;
    private final int roundTripMessages;
    private final int warmup;
    private final String modes;
    private final SpringAmqpPeers spring;
    private final HttpClient http = HttpClient.newHttpClient();

    private RabbitMqBenchmark(BenchArgs args) {
        this.uri = args.textOrEnv("uri", "SHOVE_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672");
        this.management = args.text("management", "http://127.0.0.1:15672");
        this.messages = args.integer("messages", 50_000);
        this.prefetch = args.integer("prefetch", 100);
        this.ackEvery = args.integer("ackEvery", 50);
        this.roundTripMessages = args.integer("roundTripMessages", 1000);
        this.warmup = args.integer("warmup", 5000);
        this.modes = args.text("modes", "abcder");
        String smlcListener = args.text("smlcListener", "batch");
        if (!smlcListener.equals("batch") && !smlcListener.equals("single")) {
            throw new IllegalArgumentException("smlcListener must be batch or single, not '" + smlcListener + "'");
        }
        this.spring = new SpringAmqpPeers(uri, prefetch, ackEvery, smlcListener.equals("batch"));
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        int status = 0;
        try {
            new RabbitMqBenchmark(args).run(args.runs());
        } catch (Exception | Error e) {
            e.printStackTrace();
            status = 1;
        }
        // When a SimpleMessageListenerContainer's consumer closes its channel while the connection closes, the
        // client's connection shutdown can fail part way ("An unexpected connection driver error occurred") and never
        // stop the connection's consumer work pool, whose threads are not daemons: in one run of `scripts/bench.sh
        // all` they kept the JVM alive for 17 minutes after the report was written. Exit rather than wait.
        System.exit(status);
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
        double loadBefore = PROCESS.getSystemLoadAverage();
        System.out.printf(
                Locale.ROOT,
                "RabbitMQ benchmark: durable queue, %,d persistent messages (~100-byte JSON) per mode; prefetch %d,"
                        + " acks batched by %d (raw a, Spring d and e); %d run(s), %d cores, load average %.2f%n",
                messages,
                prefetch,
                ackEvery,
                runs,
                Runtime.getRuntime().availableProcessors(),
                loadBefore);
        RabbitMqConfig config =
                RabbitMqConfig.builder(uri).managementApi(management).build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        try (Broker<RabbitMq> broker = Broker.connect(config);
                Connection raw = factory.newConnection("shove-bench-raw")) {
            broker.topology().declare(plain);
            broker.topology().declare(retried);
            try {
                if (warmup > 0) {
                    StringBuilder warm = new StringBuilder("warm-up, not counted (" + warmup + " messages each):");
                    for (int m = 0; m < MEASURED.length(); m++) {
                        char mode = MEASURED.charAt(m);
                        if (modes.indexOf(mode) >= 0) {
                            Result r = measure(mode, broker, plain, raw, warmup);
                            warm.append(String.format(Locale.ROOT, "  (%c) %,.0f/s", mode, r.rate()));
                        }
                    }
                    System.out.println(warm);
                }
                @Nullable Result[][] results = new Result[MEASURED.length()][runs];
                for (int run = 0; run < runs; run++) {
                    for (int m = 0; m < MEASURED.length(); m++) {
                        char mode = MEASURED.charAt(m);
                        if (modes.indexOf(mode) >= 0) {
                            results[m][run] = measure(mode, broker, plain, raw, messages);
                        }
                    }
                    printRun("run " + (run + 1), results, run);
                }
                Ops @Nullable [] roundTrips = modes.contains("r") ? roundTrips(broker, retried) : null;
                report(results, runs, loadBefore, roundTrips);
            } finally {
                deleteQueues(raw, plain, retried);
            }
        }
    }

    /** Publishes the mode's own copy of the messages, reads them with the mode's consumer, checks the queue is empty. */
    private Result measure(char mode, Broker<RabbitMq> broker, Topic<Msg> topic, Connection raw, int count)
            throws Exception {
        publish(broker, topic, count);
        Progress progress = new Progress(count);
        switch (mode) {
            case 'a' -> raw(topic, raw, ackEvery, progress);
            case 'b' -> raw(topic, raw, 1, progress);
            case 'c' -> shove(broker, topic, progress);
            case 'd' -> spring.simple(topic.name(), progress);
            case 'e' -> spring.direct(topic.name(), progress);
            default -> throw new IllegalArgumentException("no mode '" + mode + "'");
        }
        Result result = progress.result();
        try (Channel channel = raw.createChannel()) {
            long left = channel.queueDeclarePassive(topic.name()).getMessageCount();
            if (left > 0) {
                System.err.printf(
                        Locale.ROOT,
                        "mode (%c) left %,d messages in queue '%s' (unacknowledged at its consumer's close); purged%n",
                        mode,
                        left,
                        topic.name());
                channel.queuePurge(topic.name());
            }
        }
        return result;
    }

    private void printRun(String title, @Nullable Result[][] results, int run) {
        StringBuilder rates = new StringBuilder(title + ":");
        StringBuilder cpu = new StringBuilder(" ".repeat(title.length()) + "  client CPU per message:");
        for (int m = 0; m < MEASURED.length(); m++) {
            Result r = results[m][run];
            if (r != null) {
                rates.append(String.format(Locale.ROOT, "  (%c) %,.0f/s", MEASURED.charAt(m), r.rate()));
                cpu.append(String.format(Locale.ROOT, "  (%c) %.2f us", MEASURED.charAt(m), r.cpuMicros()));
            }
        }
        Result best = bestSpring(results, run);
        Result c = results[2][run];
        if (c != null && results[0][run] != null) {
            rates.append(String.format(Locale.ROOT, "  c/a %.2f", c.rate() / results[0][run].rate()));
        }
        if (c != null && best != null) {
            rates.append(String.format(Locale.ROOT, "  c/max(d,e) %.2f", c.rate() / best.rate()));
        }
        System.out.println(rates);
        System.out.println(cpu);
    }

    /** {@return the better of the run's Spring AMQP modes (d, e), null if neither ran} */
    private static @Nullable Result bestSpring(@Nullable Result[][] results, int run) {
        Result d = results[3][run];
        Result e = results[4][run];
        if (d == null || e == null) {
            return d == null ? e : d;
        }
        return d.rate() >= e.rate() ? d : e;
    }

    private void report(@Nullable Result[][] results, int runs, double loadBefore, Ops @Nullable [] roundTrips) {
        double loadAfter = PROCESS.getSystemLoadAverage();
        BenchReport report = new BenchReport(
                "rabbitmq",
                String.format(
                        Locale.ROOT,
                        "RabbitMQ, durable queue, %,d persistent ~100-byte JSON messages per mode and run, prefetch %d,"
                                + " acks batched by %d; %d run(s); load average %.2f before, %.2f after",
                        messages,
                        prefetch,
                        ackEvery,
                        runs,
                        loadBefore,
                        loadAfter));
        String[] labels = {
            "raw amqp-client, manual ack, one multiple-ack every " + ackEvery,
            "raw amqp-client, manual ack, each delivery acknowledged",
            "shove, one consumer, no-op handler",
            spring.simpleLabel(),
            spring.directLabel()
        };
        for (int run = 0; run < runs; run++) {
            for (int m = 0; m < MEASURED.length(); m++) {
                Result r = results[m][run];
                if (r != null) {
                    report.run(String.valueOf(MEASURED.charAt(m)), labels[m], r.rate(), r.cpuMicros(), Double.NaN);
                }
            }
            Result best = bestSpring(results, run);
            if (best != null) {
                report.run(
                        "max(d,e)",
                        "the better Spring AMQP container of each run",
                        best.rate(),
                        best.cpuMicros(),
                        Double.NaN);
            }
        }
        var atLeast = BenchReport.Goal.AT_LEAST;
        var none = BenchReport.Goal.NONE;
        var rate = BenchReport.Metric.RATE;
        var cpu = BenchReport.Metric.CPU;
        report.ratio("shove / best Spring AMQP container", rate, "c", "max(d,e)", atLeast, 1.0);
        report.ratio("shove / raw multiple-ack consumer", rate, "c", "a", atLeast, 0.9);
        report.ratio("shove / raw ack-each consumer", rate, "c", "b", none, Double.NaN);
        report.ratio("shove / Spring AMQP SimpleMessageListenerContainer", rate, "c", "d", none, Double.NaN);
        report.ratio("shove / Spring AMQP DirectMessageListenerContainer", rate, "c", "e", none, Double.NaN);
        report.ratio("shove / raw multiple-ack consumer, client CPU per message", cpu, "c", "a", none, Double.NaN);
        report.ratio(
                "shove / best Spring AMQP container, client CPU per message", cpu, "c", "max(d,e)", none, Double.NaN);
        if (roundTrips != null) {
            Ops acked = roundTrips[0];
            Ops retriedOnce = roundTrips[1];
            String unit = "round trips/msg";
            report.figure("round trips of an acknowledged message (shove)", acked.total(), unit, none, Double.NaN);
            report.figure("round trips of a message retried once (shove)", retriedOnce.total(), unit, none, Double.NaN);
            report.figure(
                    "round trips a retry adds (shove)", retriedOnce.total() - acked.total(), unit, none, Double.NaN);
        }
        report.write();
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

    /**
     * What a consuming mode did: messages handled, when the first and the last were, the process's CPU time since it
     * was made (just before the mode's consumer starts), and the first failure of its listener. Thread-safe.
     */
    static final class Progress {
        private final int expected;
        private final long cpuStart = PROCESS.getProcessCpuTime();
        private final AtomicInteger handled = new AtomicInteger();
        private final CountDownLatch done = new CountDownLatch(1);
        private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        private volatile long first;
        private volatile long last;

        Progress(int expected) {
            this.expected = expected;
        }

        /** Counts {@code count} more messages handled. */
        void handled(int count) {
            long now = System.nanoTime();
            int before = handled.getAndAdd(count);
            if (before == 0) {
                first = now;
            }
            if (before < expected && before + count >= expected) {
                last = now;
                done.countDown();
            }
        }

        /** Ends the mode with a failure: {@link #await} throws it. */
        void failed(String what, Exception cause) {
            failure.compareAndSet(null, new IllegalStateException(what + ": " + cause.getMessage(), cause));
            done.countDown();
        }

        /** Waits until every message was handled (10 minutes at most) or the mode failed; throws if not done. */
        void await(String what) throws InterruptedException {
            boolean finished = done.await(10, TimeUnit.MINUTES);
            RuntimeException failed = failure.get();
            if (failed != null) {
                throw failed;
            }
            if (!finished) {
                throw new IllegalStateException(what + " handled " + handled.get() + " of " + expected
                        + " messages in 10 minutes: is the broker overloaded, or did the consumer stop?");
            }
        }

        /** {@return the mode's rate and its CPU per message, the CPU counted until now} */
        Result result() {
            long cpu = PROCESS.getProcessCpuTime() - cpuStart;
            double seconds = Math.max(1e-9, (last - first) / 1e9);
            return new Result(expected / seconds, cpu / 1000.0 / expected);
        }
    }

    /** (a) and (b): a raw consumer, prefetch 100, acknowledging every {@code every} deliveries at once. */
    private void raw(Topic<Msg> topic, Connection connection, int every, Progress progress)
            throws IOException, InterruptedException {
        AtomicInteger seen = new AtomicInteger();
        Channel channel = connection.createChannel();
        try {
            channel.basicQos(prefetch);
            String tag = channel.basicConsume(topic.name(), false, new DefaultConsumer(channel) {
                @Override
                public void handleDelivery(
                        String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                        throws IOException {
                    int n = seen.incrementAndGet();
                    sink.addAndGet(body.length);
                    if (n % every == 0 || n == progress.expected) {
                        getChannel().basicAck(envelope.getDeliveryTag(), every > 1);
                    }
                    progress.handled(1);
                }
            });
            progress.await("raw consumer (ack every " + every + ") on queue '" + topic.name() + "'");
            channel.basicCancel(tag);
        } finally {
            try {
                channel.close();
            } catch (Exception e) {
                // the benchmark is over either way
            }
        }
    }

    /** (c): one shove consumer, prefetch 100, no-op handler. */
    private void shove(Broker<RabbitMq> broker, Topic<Msg> topic, Progress progress) throws InterruptedException {
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .prefetch(prefetch)
                        .noAutoscaler()
                        .noDeadLetterConsumer()
                        .build(),
                () -> (m, meta, ctx) -> {
                    progress.handled(1);
                    return Outcome.ack();
                });
        group.start();
        try {
            progress.await("shove consumer on topic '" + topic.name() + "'");
        } finally {
            SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
            if (!outcome.isClean()) {
                throw new IllegalStateException(
                        "shove consumer on topic '" + topic.name() + "' did not stop cleanly: " + outcome);
            }
        }
    }

    // ---------------------------------------------------------------- round trips of a retry (target 4)

    /** Client operations per message in one phase, from the per-queue statistics. */
    record Ops(double publishes, double deliveries, double acks, long fromHold) {
        double total() {
            return publishes + deliveries + acks;
        }
    }

    /** {@return the per-message operations of the acknowledged phase, then of the retried one} */
    private Ops[] roundTrips(Broker<RabbitMq> broker, Topic<Msg> topic) throws Exception {
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
        return new Ops[] {acked, retried};
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
