package dev.shove.benchmarks;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.kafka.Kafka;
import dev.shove.kafka.KafkaConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * Kafka throughput, shove against the raw client, same broker, same run, same pre-published records:
 *
 * <ul>
 *   <li>(a) raw: one {@code KafkaConsumer}, each record handed to a virtual thread, offsets committed per poll once
 *       every record of the poll is done (contiguous);
 *   <li>(b) shove: one consumer, no-op handler;
 *   <li>(c) shove, sequenced topic, 1,000 keys over 8 partitions, 1 ms handler;
 *   <li>(d) raw partition-serial: one {@code KafkaConsumer}, one worker per partition handling that partition's
 *       records one after another (1 ms each), partitions in parallel;
 *   <li>(e) raw poll loop: one {@code KafkaConsumer}, records handled on the poll thread, {@code commitAsync} per
 *       poll: the best raw mode, the reference of the 0.8x target in PERFORMANCE.md.
 * </ul>
 *
 * Each mode reads the same records with its own consumer group from the beginning; a rate is measured from the first
 * record handled to the last. Prints records/s per run, then the median of the runs and the ratios b/a and c/d.
 * Each mode's client CPU time per record is printed too: the process's CPU time ({@code
 * com.sun.management.OperatingSystemMXBean#getProcessCpuTime()}) over the whole mode (the broker is another process),
 * divided by the records. It moves far less than the rates on a shared machine, so it is the figure to compare two
 * versions of the engine by.
 *
 * <p>Arguments (all optional, {@code key=value}): {@code bootstrap} (env {@code SHOVE_KAFKA_BOOTSTRAP}, default
 * {@code 127.0.0.1:9092}), {@code runs} (3), {@code records} (300_000), {@code seqRecords} (30_000), {@code prefetch}
 * (1000), {@code seqPrefetch} (200), {@code keys} (1000), {@code workMs} (1), {@code modes} (abcde: which of the
 * five to run), {@code transactional} (false: shove's modes with {@code KafkaConfig.transactional()}) and {@code
 * reply} (false: shove's handlers answer every record with a reply to a topic of their own instead of a plain ack).
 */
public final class KafkaBenchmark {
    record Msg(String id, String key, long amount, String note) {}

    private final String bootstrap;
    private final int records;
    private final int seqRecords;
    private final int prefetch;
    private final int seqPrefetch;
    private final int keys;
    private final long workMs;
    private final String modes;
    private final boolean transactional;
    private final boolean reply;
    /** Where shove's handlers reply with {@code reply=true}. */
    private volatile @Nullable Topic<Msg> replyTopic;

    private KafkaBenchmark(BenchArgs args) {
        this.bootstrap = args.textOrEnv("bootstrap", "SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
        this.records = args.integer("records", 300_000);
        this.seqRecords = args.integer("seqRecords", 30_000);
        this.prefetch = args.integer("prefetch", 1000);
        this.seqPrefetch = args.integer("seqPrefetch", 200);
        this.keys = args.integer("keys", 1000);
        this.workMs = args.longValue("workMs", 1);
        this.modes = args.text("modes", "abcde");
        this.transactional = Boolean.parseBoolean(args.text("transactional", "false"));
        this.reply = Boolean.parseBoolean(args.text("reply", "false"));
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        int runs = args.runs();
        KafkaBenchmark bench = new KafkaBenchmark(args);
        bench.run(runs);
    }

    private void run(int runs) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Topic<Msg> plain = Topic.builder("bench-plain-" + suffix, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<Msg> sequenced = Topic.builder("bench-seq-" + suffix, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(8)
                .build();
        Topic<Msg> replies = Topic.builder("bench-replies-" + suffix, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .build();
        KafkaConfig.Builder configBuilder = KafkaConfig.builder(bootstrap).partitions(8);
        if (transactional) {
            configBuilder.transactional();
        }
        KafkaConfig config = configBuilder.build();
        System.out.printf(
                Locale.ROOT,
                "Kafka benchmark: %s, %d records (~100-byte JSON) over 8 partitions; sequenced: %d records, %d keys,"
                        + " %d ms of work; shove prefetch %d / %d; %d run(s), %d cores; shove %s, handlers %s%n",
                bootstrap,
                records,
                seqRecords,
                keys,
                workMs,
                prefetch,
                seqPrefetch,
                runs,
                Runtime.getRuntime().availableProcessors(),
                transactional ? "transactional" : "non-transactional",
                reply ? "reply" : "ack");
        try (Broker<Kafka> broker = Broker.connect(config)) {
            broker.topology().declare(plain);
            broker.topology().declare(sequenced);
            if (reply) {
                broker.topology().declare(replies);
                this.replyTopic = replies;
            }
            long t0 = System.nanoTime();
            publish(broker, plain, records);
            publish(broker, sequenced, seqRecords);
            System.out.printf(
                    Locale.ROOT,
                    "published %d records in %.1f s%n",
                    records + seqRecords,
                    (System.nanoTime() - t0) / 1e9);
            double[][] rates = new double[5][runs];
            double[][] cpu = new double[5][runs];
            for (int run = 0; run < runs; run++) {
                int r = run;
                measure("a", records, rates[0], cpu[0], r, () -> rawVirtualThreads(plain.name()));
                measure("b", records, rates[1], cpu[1], r, () -> shove(broker, plain, records, prefetch, 0));
                measure(
                        "c",
                        seqRecords,
                        rates[2],
                        cpu[2],
                        r,
                        () -> shove(broker, sequenced, seqRecords, seqPrefetch, workMs));
                measure("d", seqRecords, rates[3], cpu[3], r, () -> rawPartitionSerial(sequenced.name(), seqRecords));
                measure("e", records, rates[4], cpu[4], r, () -> rawPollLoop(plain.name()));
                System.out.printf(
                        Locale.ROOT,
                        "run %d: (a) raw virtual threads %,.0f/s  (b) shove no-op %,.0f/s  (c) shove sequenced %,.0f/s"
                                + "  (d) raw partition-serial %,.0f/s  (e) raw poll loop %,.0f/s  b/a %.2f  c/d %.1f"
                                + "  b/e %.2f%n",
                        run + 1,
                        rates[0][run],
                        rates[1][run],
                        rates[2][run],
                        rates[3][run],
                        rates[4][run],
                        rates[1][run] / rates[0][run],
                        rates[2][run] / rates[3][run],
                        rates[1][run] / rates[4][run]);
                System.out.printf(
                        Locale.ROOT,
                        "       client CPU per record: (a) %.2f us  (b) %.2f us  (c) %.2f us  (d) %.2f us  (e) %.2f us%n",
                        cpu[0][run] / 1000,
                        cpu[1][run] / 1000,
                        cpu[2][run] / 1000,
                        cpu[3][run] / 1000,
                        cpu[4][run] / 1000);
            }
            double a = median(rates[0]);
            double b = median(rates[1]);
            double c = median(rates[2]);
            double d = median(rates[3]);
            double e = median(rates[4]);
            System.out.printf(
                    Locale.ROOT,
                    "median of %d: (a) %,.0f/s  (b) %,.0f/s  (c) %,.0f/s  (d) %,.0f/s  (e) %,.0f/s  b/a %.2f  c/d %.1f"
                            + "  b/e %.2f (ratios of the medians; compare the per-run ratios above too)%n",
                    runs,
                    a,
                    b,
                    c,
                    d,
                    e,
                    b / a,
                    c / d,
                    b / e);
            System.out.printf(
                    Locale.ROOT,
                    "median client CPU per record: (a) %.2f us  (b) %.2f us  (c) %.2f us  (d) %.2f us  (e) %.2f us%n",
                    median(cpu[0]) / 1000,
                    median(cpu[1]) / 1000,
                    median(cpu[2]) / 1000,
                    median(cpu[3]) / 1000,
                    median(cpu[4]) / 1000);
        } finally {
            deleteTopics(plain.name(), sequenced.name(), replies.name());
        }
    }

    /** A mode: reads the records and returns its rate. */
    @FunctionalInterface
    interface Mode {
        double run() throws Exception;
    }

    /** Runs a mode if {@code modes} names it, storing its rate and the client's CPU time per record; NaN if not. */
    private void measure(String mode, int count, double[] rates, double[] cpu, int run, Mode body) throws Exception {
        if (!modes.contains(mode)) {
            rates[run] = Double.NaN;
            cpu[run] = Double.NaN;
            return;
        }
        long before = PROCESS.getProcessCpuTime();
        rates[run] = body.run();
        cpu[run] = (double) (PROCESS.getProcessCpuTime() - before) / count;
    }

    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private void publish(Broker<Kafka> broker, Topic<Msg> topic, int count) {
        String note = "x".repeat(30);
        List<Msg> batch = new ArrayList<>(1000);
        for (int i = 0; i < count; i++) {
            batch.add(new Msg("m-" + i, "key-" + (i % keys), i, note));
            if (batch.size() == 1000) {
                broker.publisher().publishBatch(topic, batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            broker.publisher().publishBatch(topic, batch);
        }
    }

    /** (b) and (c): one shove consumer in a fresh group. */
    private double shove(Broker<Kafka> broker, Topic<Msg> topic, int expected, int prefetchCount, long work)
            throws InterruptedException {
        AtomicInteger handled = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong last = new AtomicLong();
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .prefetch(prefetchCount)
                        .groupName("bench-shove-" + UUID.randomUUID())
                        .noDeadLetterConsumer()
                        .build(),
                () -> (m, meta, ctx) -> {
                    if (work > 0) {
                        Thread.sleep(work);
                    }
                    int n = handled.incrementAndGet();
                    if (n == 1) {
                        first.set(System.nanoTime());
                    }
                    if (n == expected) {
                        last.set(System.nanoTime());
                        done.countDown();
                    }
                    Topic<Msg> answer = replyTopic;
                    return answer == null ? Outcome.ack() : Outcome.reply(answer, m);
                });
        group.start();
        boolean finished = done.await(10, TimeUnit.MINUTES);
        SupervisorOutcome outcome = group.stop(Duration.ofSeconds(30));
        if (!finished || !outcome.isClean()) {
            throw new IllegalStateException("shove run on " + topic.name() + " did not finish cleanly: handled "
                    + handled.get() + " of " + expected + ", " + outcome);
        }
        return rate(expected, first.get(), last.get());
    }

    /** (e): the best raw mode: no hand-off at all, records handled on the poll thread, commitAsync per poll. */
    private double rawPollLoop(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(500))) {
            consumer.subscribe(List.of(topic));
            int seen = 0;
            long first = 0;
            while (seen < records) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                if (batch.isEmpty()) {
                    continue;
                }
                if (first == 0) {
                    first = System.nanoTime();
                }
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    noop(r);
                }
                seen += batch.count();
                consumer.commitAsync();
            }
            consumer.commitSync();
            return rate(seen, first, System.nanoTime());
        }
    }

    /** (a): each record on a virtual thread; commit once the whole poll is done. */
    private double rawVirtualThreads(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(500));
                ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            consumer.subscribe(List.of(topic));
            int seen = 0;
            long first = 0;
            while (seen < records) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                if (batch.isEmpty()) {
                    continue;
                }
                if (first == 0) {
                    first = System.nanoTime();
                }
                CountDownLatch latch = new CountDownLatch(batch.count());
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    executor.execute(() -> {
                        noop(r);
                        latch.countDown();
                    });
                }
                await(latch);
                seen += batch.count();
                consumer.commitAsync(nextOffsets(batch), null);
            }
            consumer.commitSync();
            return rate(seen, first, System.nanoTime());
        }
    }

    /**
     * (d): the classic partition-serial consumer: one worker thread per partition handles that partition's records one
     * after another; the poll loop pauses a partition whose worker is behind and commits what the workers finished.
     */
    private double rawPartitionSerial(String topic, int expected) throws InterruptedException {
        Map<TopicPartition, LinkedBlockingQueue<ConsumerRecord<byte[], byte[]>>> queues = new ConcurrentHashMap<>();
        Map<TopicPartition, AtomicLong> doneOffsets = new ConcurrentHashMap<>();
        AtomicInteger handled = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(500))) {
            consumer.subscribe(List.of(topic));
            while (handled.get() < expected) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(20));
                for (TopicPartition tp : batch.partitions()) {
                    LinkedBlockingQueue<ConsumerRecord<byte[], byte[]>> queue = queues.computeIfAbsent(tp, k -> {
                        LinkedBlockingQueue<ConsumerRecord<byte[], byte[]>> q = new LinkedBlockingQueue<>();
                        AtomicLong done = new AtomicLong(-1);
                        doneOffsets.put(k, done);
                        workers.add(Thread.ofVirtual().start(() -> {
                            try {
                                while (true) {
                                    ConsumerRecord<byte[], byte[]> r = q.take();
                                    first.compareAndSet(0, System.nanoTime());
                                    work(r);
                                    done.set(r.offset());
                                    handled.incrementAndGet();
                                }
                            } catch (InterruptedException e) {
                                // benchmark over
                            }
                        }));
                        return q;
                    });
                    queue.addAll(batch.records(tp));
                }
                List<TopicPartition> pause = new ArrayList<>();
                List<TopicPartition> resume = new ArrayList<>();
                queues.forEach((tp, q) -> (q.size() > 500 ? pause : resume).add(tp));
                consumer.pause(pause);
                consumer.resume(resume);
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                doneOffsets.forEach((tp, o) -> {
                    if (o.get() >= 0) {
                        offsets.put(tp, new OffsetAndMetadata(o.get() + 1));
                    }
                });
                if (!offsets.isEmpty()) {
                    consumer.commitAsync(offsets, null);
                }
            }
            long end = System.nanoTime();
            workers.forEach(Thread::interrupt);
            return rate(handled.get(), first.get(), end);
        }
    }

    private static final AtomicLong sink = new AtomicLong();

    private static void noop(ConsumerRecord<byte[], byte[]> r) {
        sink.addAndGet(r.value().length);
    }

    private void work(ConsumerRecord<byte[], byte[]> r) {
        try {
            Thread.sleep(workMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sink.addAndGet(r.value().length);
    }

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(ConsumerRecords<byte[], byte[]> batch) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : batch.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> part = batch.records(tp);
            offsets.put(tp, new OffsetAndMetadata(part.getLast().offset() + 1));
        }
        return offsets;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private Properties consumerProps(int maxPollRecords) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", "bench-raw-" + UUID.randomUUID());
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("max.poll.records", Integer.toString(maxPollRecords));
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        return p;
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

    private void deleteTopics(String... prefixes) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            List<String> doomed = new ArrayList<>();
            for (String t : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
                for (String prefix : prefixes) {
                    if (t.equals(prefix) || t.startsWith(prefix + "-")) {
                        doomed.add(t);
                    }
                }
            }
            admin.deleteTopics(doomed).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("could not delete the benchmark topics: " + e);
        }
    }
}
