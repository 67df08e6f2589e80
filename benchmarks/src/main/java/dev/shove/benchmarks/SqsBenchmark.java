package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.sqs.Sqs;
import dev.shove.sqs.SqsConfig;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * SQS throughput on the emulator, shove against the raw AWS SDK v2, same emulator, same run, same messages: ~100-byte
 * JSON messages published (by shove's publisher, through SNS {@code PublishBatch}) before each mode reads them. Both
 * modes use the SDK's synchronous client over Apache HttpClient 5 on virtual threads, as shove does.
 *
 * <ul>
 *   <li>(a) raw: {@code pollers} virtual threads, each a loop of {@code ReceiveMessage} of 10 (long poll), decode each
 *       body from JSON to the same record type shove decodes it to, one {@code DeleteMessageBatch} per receive, sent on a virtual thread of its own without waiting,
 *       then the next receive: the best raw mode in PERFORMANCE.md and the reference of the 0.8x target;
 *   <li>(b) shove: one consumer, prefetch {@code prefetch} (which runs {@code prefetch / 10} pollers, as many as (a)
 *       by default), no-op handler, deletes coalesced into batches of 10.
 * </ul>
 *
 * A rate is measured from the first message handled to the last. Prints messages/s and CPU time per message per run,
 * then the median of the runs and the ratio b/a.
 *
 * <p><b>Report.</b> The runs go to {@link BenchReport} {@code sqs} ({@code target/bench/sqs.json} and {@code .md})
 * with the ratio b/a of the rates and of the CPU per message, without a target (issue 13 sets none for SQS).
 *
 * <p>Arguments (all optional, {@code key=value}): {@code endpoint} (env {@code SHOVE_SQS_ENDPOINT}, default {@code
 * http://127.0.0.1:4566}), {@code runs} (3), {@code messages} (20_000), {@code pollers} (3), {@code prefetch} (30).
 */
public final class SqsBenchmark {
    record Msg(String id, String key, long amount, String note) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicLong sink = new AtomicLong();

    private final String endpoint;
    private final int messages;
    private final int pollers;
    private final int prefetch;

    private SqsBenchmark(BenchArgs args) {
        this.endpoint = args.textOrEnv("endpoint", "SHOVE_SQS_ENDPOINT", "http://127.0.0.1:4566");
        this.messages = args.integer("messages", 20_000);
        this.pollers = args.integer("pollers", 3);
        this.prefetch = args.integer("prefetch", 30);
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        try {
            new SqsBenchmark(args).run(args.runs());
        } catch (Exception | Error e) {
            // the SDK's threads would keep the JVM alive after main failed; exit with a failure instead
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private void run(int runs) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Topic<Msg> topic = Topic.builder("bench-sqs-" + suffix, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        System.out.printf(
                Locale.ROOT,
                "SQS benchmark (fauxqs at %s): %,d messages (~100-byte JSON) per mode; raw %d poller(s) of 10,"
                        + " shove prefetch %d; %d run(s), %d cores%n",
                endpoint,
                messages,
                pollers,
                prefetch,
                runs,
                Runtime.getRuntime().availableProcessors());
        try (Broker<Sqs> broker = Broker.connect(SqsConfig.emulator(endpoint));
                SqsClient raw = SqsClient.builder()
                        .httpClientBuilder(Apache5HttpClient.builder().maxConnections(100))
                        .region(Region.US_EAST_1)
                        .credentialsProvider(
                                StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                        .endpointOverride(URI.create(endpoint))
                        .build()) {
            broker.topology().declare(topic);
            String url = raw.getQueueUrl(r -> r.queueName(topic.name())).queueUrl();
            try {
                BenchReport report = new BenchReport(
                        "sqs",
                        String.format(
                                Locale.ROOT,
                                "SQS (fauxqs emulator): %,d messages (~100-byte JSON) per mode and run, published"
                                        + " through SNS; raw %d poller(s) of 10, shove prefetch %d, %d run(s)",
                                messages,
                                pollers,
                                prefetch,
                                runs));
                double[][] rates = new double[2][runs];
                double[][] cpu = new double[2][runs];
                for (int run = 0; run < runs; run++) {
                    publish(broker, topic);
                    long cpu0 = cpuNanos();
                    rates[0][run] = raw(raw, url);
                    cpu[0][run] = (cpuNanos() - cpu0) / (double) messages / 1000;
                    publish(broker, topic);
                    long cpu1 = cpuNanos();
                    rates[1][run] = shove(broker, topic);
                    cpu[1][run] = (cpuNanos() - cpu1) / (double) messages / 1000;
                    report.run(
                            "a",
                            "raw receive 10 + DeleteMessageBatch, decoding JSON",
                            rates[0][run],
                            cpu[0][run],
                            Double.NaN);
                    report.run("b", "shove, one consumer, no-op handler", rates[1][run], cpu[1][run], Double.NaN);
                    System.out.printf(
                            Locale.ROOT,
                            "run %d: (a) raw receive 10 + DeleteMessageBatch %,.0f/s (%.1f us CPU/msg)  (b) shove"
                                    + " no-op %,.0f/s (%.1f us CPU/msg)  b/a %.2f%n",
                            run + 1,
                            rates[0][run],
                            cpu[0][run],
                            rates[1][run],
                            cpu[1][run],
                            rates[1][run] / rates[0][run]);
                }
                double a = median(rates[0]);
                double b = median(rates[1]);
                System.out.printf(
                        Locale.ROOT,
                        "median of %d: (a) %,.0f/s  (b) %,.0f/s  b/a %.2f (ratio of the medians; compare the per-run"
                                + " ratios above too)%n",
                        runs,
                        a,
                        b,
                        b / a);
                report.ratio(
                        "shove / raw receive 10 + DeleteMessageBatch, decoding JSON",
                        BenchReport.Metric.RATE,
                        "b",
                        "a",
                        BenchReport.Goal.NONE,
                        Double.NaN);
                report.ratio(
                        "shove / raw: CPU per message",
                        BenchReport.Metric.CPU,
                        "b",
                        "a",
                        BenchReport.Goal.NONE,
                        Double.NaN);
                report.write();
            } finally {
                for (String queue : List.of(topic.name(), topic.name() + "-dlq")) {
                    try {
                        String u = raw.getQueueUrl(r -> r.queueName(queue)).queueUrl();
                        raw.deleteQueue(r -> r.queueUrl(u));
                    } catch (RuntimeException e) {
                        System.err.println("could not delete queue " + queue + ": " + e);
                    }
                }
            }
        }
    }

    private void publish(Broker<Sqs> broker, Topic<Msg> topic) {
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

    /** (a): {@code pollers} receive loops of 10 on virtual threads, one DeleteMessageBatch per receive. */
    private double raw(SqsClient sqs, String url) throws InterruptedException {
        AtomicInteger seen = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int p = 0; p < pollers; p++) {
                threads.execute(() -> receive(sqs, url, threads, seen, first, last, done));
            }
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("raw run saw " + seen.get() + " of " + messages + " messages");
            }
            // closing waits for the polls still in flight, which end within their wait; what they bring belongs to
            // the next mode
        }
        return rate(messages, first.get(), last.get());
    }

    private void receive(
            SqsClient sqs,
            String url,
            ExecutorService threads,
            AtomicInteger seen,
            AtomicLong first,
            AtomicLong last,
            CountDownLatch done) {
        while (done.getCount() > 0) {
            ReceiveMessageResponse response = sqs.receiveMessage(r ->
                    r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1).messageAttributeNames("All"));
            if (!response.hasMessages() || response.messages().isEmpty()) {
                continue;
            }
            List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(10);
            int i = 0;
            for (Message m : response.messages()) {
                try {
                    sink.addAndGet(JSON.readValue(m.body(), Msg.class).amount());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                entries.add(DeleteMessageBatchRequestEntry.builder()
                        .id(Integer.toString(i++))
                        .receiptHandle(m.receiptHandle())
                        .build());
            }
            threads.execute(() -> sqs.deleteMessageBatch(r -> r.queueUrl(url).entries(entries)));
            int n = seen.addAndGet(entries.size());
            if (n == entries.size()) {
                first.compareAndSet(0, System.nanoTime());
            }
            if (n >= messages && last.compareAndSet(0, System.nanoTime())) {
                done.countDown();
            }
        }
    }

    /** (b): one shove consumer, no-op handler. */
    private double shove(Broker<Sqs> broker, Topic<Msg> topic) throws InterruptedException {
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

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

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
