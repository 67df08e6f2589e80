package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.kafka.Kafka;
import dev.shove.kafka.KafkaConfig;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;

/**
 * Kafka throughput, shove against the raw client and its peers, same broker, same run, same pre-published records:
 *
 * <ul>
 *   <li>(a) raw: one {@code KafkaConsumer}, each record handed to a virtual thread, offsets committed per poll once
 *       every record of the poll is done (contiguous);
 *   <li>(b) shove: one consumer, no-op handler;
 *   <li>(c) shove, sequenced topic, 1,000 keys over 8 partitions, 1 ms handler;
 *   <li>(d) raw partition-serial: one {@code KafkaConsumer}, one worker per partition handling that partition's
 *       records one after another (1 ms each), partitions in parallel;
 *   <li>(e) raw poll loop: one {@code KafkaConsumer}, records handled on the poll thread, {@code commitAsync} per
 *       poll, values not decoded: the cheapest raw consumer there is;
 *   <li>(f) raw poll loop decoding JSON: (e), each value decoded to the same record type shove's handlers get
 *       (Jackson) on the poll thread: the fair floor for a library that decodes, the reference of the 0.8x target;
 *   <li>(g) Spring Kafka 4.1: a {@code ConcurrentMessageListenerContainer} with a record listener decoding the same
 *       JSON, {@code AckMode.BATCH}, concurrency {@code springConcurrency} (see {@link #springKafka});
 *   <li>(p) for each work level of {@code pcWorkMs} (0, 1 and 10 ms): shove on the sequenced topic with that much work
 *       per record (mode {@code s<w>}), then Confluent Parallel Consumer 0.5.3.2 in KEY order, maxConcurrency 100,
 *       decoding the same JSON, on the same topic (mode {@code p<w>}): it only works on kafka-clients 3.7, so it runs
 *       as a child process from the classpath of the {@code benchmarks-parallel-consumer} module, which {@code
 *       scripts/bench.sh kafka} builds; its rate and CPU are measured inside the child (JVM start excluded), after
 *       an uncounted warm-up pass of {@code pcWarmup} records in a group of its own (a fresh JVM would otherwise
 *       measure its JIT against shove's warm one).
 * </ul>
 *
 * Each mode reads the same records with its own consumer group from the beginning; a rate is measured from the first
 * record handled to the last. Prints records/s per run, then the median of the runs and the ratios; then writes the
 * report ({@link BenchReport}, {@code kafka}) with issue 13's targets: b/f &gt;= 0.8, b/g &gt;= 1.0, b/f client CPU
 * per record &lt;= 1.5, s/p &gt;= 1.5 at each work level. Each mode's client CPU time per record is measured too: the
 * process's CPU time ({@code com.sun.management.OperatingSystemMXBean#getProcessCpuTime()}) over the whole mode (the
 * broker is another process), divided by the records. It moves far less than the rates on a shared machine, so it is
 * the figure to compare two versions of the engine by. So are the bytes each mode allocates per record ({@code
 * com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes()} over the mode, every thread of the process, as in
 * {@link MemoryBenchmark}; not for the Parallel Consumer's child process), which hardly move between runs at all.
 *
 * <p>Arguments (all optional, {@code key=value}): {@code bootstrap} (env {@code SHOVE_KAFKA_BOOTSTRAP}, default
 * {@code 127.0.0.1:9092}), {@code runs} (3), {@code records} (300_000), {@code seqRecords} (30_000), {@code prefetch}
 * (1000), {@code seqPrefetch} (200), {@code keys} (1000), {@code workMs} (1), {@code modes} (abcdefgp: which to run),
 * {@code springConcurrency} (1), {@code pcWorkMs} (0,1,10), {@code pcRecords} (records per work level of the p
 * modes: one count for all, or one per level; {@code seqRecords} by default), {@code pcMaxConcurrency} (100), {@code
 * pcWarmup} (5000), {@code warmup} (2: uncounted passes of the plain modes a, b, e, f, g before the measured
 * runs), {@code pcHome} (benchmarks-parallel-consumer), {@code transactional} (false: shove's modes with
 * {@code KafkaConfig.transactional()}) and {@code reply} (false: shove's handlers answer every record with a reply to
 * a topic of their own instead of a plain ack).
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
    /** Uncounted passes of the plain modes before the measured runs. */
    private final int warmup;

    private final int springConcurrency;
    private final long[] pcWorkMs;
    private final int[] pcRecords;
    private final int pcMaxConcurrency;
    private final int pcWarmup;
    private final String pcHome;
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
        this.transactional = Boolean.parseBoolean(args.text("transactional", "false"));
        this.reply = Boolean.parseBoolean(args.text("reply", "false"));
        String passes = args.text("warmup", "2");
        this.warmup = switch (passes) {
            case "true" -> 1;
            case "false" -> 0;
            default -> Integer.parseInt(passes);
        };
        this.springConcurrency = args.integer("springConcurrency", 1);
        this.pcWorkMs = Arrays.stream(args.text("pcWorkMs", "0,1,10").split(","))
                .map(String::strip)
                .mapToLong(Long::parseLong)
                .toArray();
        String pcCounts = args.text("pcRecords", Integer.toString(seqRecords));
        int[] counts = Arrays.stream(pcCounts.split(","))
                .map(String::strip)
                .mapToInt(Integer::parseInt)
                .toArray();
        if (counts.length != 1 && counts.length != pcWorkMs.length) {
            throw new IllegalArgumentException("pcRecords=" + pcCounts + " must give one count, or one per work level"
                    + " of pcWorkMs=" + args.text("pcWorkMs", "0,1,10"));
        }
        this.pcRecords = new int[pcWorkMs.length];
        for (int i = 0; i < pcWorkMs.length; i++) {
            pcRecords[i] = counts.length == 1 ? counts[0] : counts[i];
        }
        this.pcMaxConcurrency = args.integer("pcMaxConcurrency", 100);
        this.pcWarmup = args.integer("pcWarmup", 5000);
        this.pcHome = args.text("pcHome", "benchmarks-parallel-consumer");
        this.modes = args.text("modes", "abcdefgp");
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs args = BenchArgs.parse(argv);
        int runs = args.runs();
        KafkaBenchmark bench = new KafkaBenchmark(args);
        bench.run(runs);
    }

    private void run(int runs) throws Exception {
        if (modes.contains("p")) {
            pcClasspath(); // fails now, before publishing, if the Parallel Consumer module was not built
        }
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
        // Each p level reads a sequenced topic holding exactly its count: a shove consumer stopped with records of
        // its topic still coming would hand them back to the broker, noise that is no part of the measurement.
        Map<Integer, Topic<Msg>> seqByCount = new LinkedHashMap<>();
        seqByCount.put(seqRecords, sequenced);
        if (modes.contains("p")) {
            for (int n : pcRecords) {
                seqByCount.computeIfAbsent(
                        n,
                        count -> Topic.builder(sequenced.name() + "-" + count, Msg.class)
                                .holdQueue(Duration.ofSeconds(1))
                                .dlq()
                                .sequenced(SequenceFailure.SKIP, Msg::key)
                                .routingShards(8)
                                .build());
            }
        }
        String peers = (modes.contains("g")
                        ? String.format(Locale.ROOT, " Spring Kafka concurrency %d;", springConcurrency)
                        : "")
                + (modes.contains("p")
                        ? String.format(
                                Locale.ROOT,
                                " Parallel Consumer KEY order, maxConcurrency %d, %s ms of work over %s records (after"
                                        + " %d warm-up);",
                                pcMaxConcurrency,
                                join(pcWorkMs),
                                join(pcRecords),
                                pcWarmup)
                        : "");
        String setup = String.format(
                Locale.ROOT,
                "modes %s; %d records (~100-byte JSON) over 8 partitions; sequenced: %d records, %d keys, %d ms of"
                        + " work; shove prefetch %d / %d;%s %d run(s), %d cores; shove %s, handlers %s",
                modes,
                records,
                seqRecords,
                keys,
                workMs,
                prefetch,
                seqPrefetch,
                peers,
                runs,
                Runtime.getRuntime().availableProcessors(),
                transactional ? "transactional" : "non-transactional",
                reply ? "reply" : "ack");
        System.out.println("Kafka benchmark: " + bootstrap + ", " + setup);
        BenchReport report = new BenchReport("kafka", setup);
        try (Broker<Kafka> broker = Broker.connect(config)) {
            broker.topology().declare(plain);
            for (Topic<Msg> t : seqByCount.values()) {
                broker.topology().declare(t);
            }
            if (reply) {
                broker.topology().declare(replies);
                this.replyTopic = replies;
            }
            long t0 = System.nanoTime();
            publish(broker, plain, records);
            int published = records;
            for (var entry : seqByCount.entrySet()) {
                publish(broker, entry.getValue(), entry.getKey());
                published += entry.getKey();
            }
            System.out.printf(
                    Locale.ROOT, "published %d records in %.1f s%n", published, (System.nanoTime() - t0) / 1e9);
            for (int pass = 1; pass <= warmup; pass++) {
                // uncounted passes of the plain modes, so that no mode pays the JIT's start-up for the others
                // (measured: shove's first run cost 20-38 us of CPU per record, later ones 4.5-12.5; after one pass
                // the JIT still compiled for about a second of CPU during the first measured run, after two for half)
                long jitBefore = jitMillis();
                Map<String, double[]> discarded = new LinkedHashMap<>();
                measure("a", records, discarded, () -> rawVirtualThreads(plain.name()));
                measure("b", records, discarded, () -> shove(broker, plain, records, prefetch, 0));
                measure("e", records, discarded, () -> rawPollLoop(plain.name(), false));
                measure("f", records, discarded, () -> rawPollLoop(plain.name(), true));
                measure("g", records, discarded, () -> springKafka(plain.name()));
                System.out.printf(
                        Locale.ROOT, "warm-up pass %d done (not counted; JIT %,d ms)%n", pass, jitMillis() - jitBefore);
            }
            for (int run = 0; run < runs; run++) {
                long jitBefore = jitMillis();
                Map<String, double[]> figures = new LinkedHashMap<>();
                measure("a", records, figures, () -> rawVirtualThreads(plain.name()));
                measure("b", records, figures, () -> shove(broker, plain, records, prefetch, 0));
                measure("c", seqRecords, figures, () -> shove(broker, sequenced, seqRecords, seqPrefetch, workMs));
                measure("d", seqRecords, figures, () -> rawPartitionSerial(sequenced.name(), seqRecords));
                measure("e", records, figures, () -> rawPollLoop(plain.name(), false));
                measure("f", records, figures, () -> rawPollLoop(plain.name(), true));
                measure("g", records, figures, () -> springKafka(plain.name()));
                if (modes.contains("p")) {
                    for (int i = 0; i < pcWorkMs.length; i++) {
                        long w = pcWorkMs[i];
                        int n = pcRecords[i];
                        Topic<Msg> topic = seqByCount.get(n);
                        figures.put("s" + w, timed(n, () -> shove(broker, topic, n, seqPrefetch, w)));
                        figures.put("p" + w, parallelConsumer(topic.name(), n, w));
                    }
                }
                figures.forEach((id, f) -> report.run(id, label(id), f[0], f[1], f.length > 2 ? f[2] : Double.NaN));
                printRun(String.format(Locale.ROOT, "run %d (JIT %,d ms)", run + 1, jitMillis() - jitBefore), figures);
            }
            Map<String, double[]> medians = new LinkedHashMap<>();
            for (String id : allModes()) {
                double rate = report.median(id, BenchReport.Metric.RATE);
                if (!Double.isNaN(rate)) {
                    medians.put(id, new double[] {
                        rate, report.median(id, BenchReport.Metric.CPU), report.median(id, BenchReport.Metric.BYTES)
                    });
                }
            }
            printRun("median of " + runs, medians);
            System.out.println("(ratios of the medians; the report below gives the medians of the per-run ratios)");
            addRatios(report);
            report.write();
        } finally {
            deleteTopics(plain.name(), sequenced.name(), replies.name());
        }
    }

    /** Every mode id this harness can record, in the order it runs them. */
    private List<String> allModes() {
        List<String> ids = new ArrayList<>(List.of("a", "b", "c", "d", "e", "f", "g"));
        for (long w : pcWorkMs) {
            ids.add("s" + w);
            ids.add("p" + w);
        }
        return ids;
    }

    private String label(String id) {
        return switch (id) {
            case "a" -> "raw, records handed to virtual threads";
            case "b" -> "shove, no-op handler";
            case "c" -> "shove sequenced, " + workMs + " ms of work";
            case "d" -> "raw partition-serial, " + workMs + " ms of work";
            case "e" -> "raw poll loop, no decoding";
            case "f" -> "raw poll loop decoding JSON";
            case "g" ->
                "Spring Kafka container (record listener decoding JSON, AckMode BATCH, concurrency " + springConcurrency
                        + ")";
            default ->
                id.startsWith("s")
                        ? "shove sequenced, " + id.substring(1) + " ms of work"
                        : "Parallel Consumer KEY order, maxConcurrency " + pcMaxConcurrency + ", " + id.substring(1)
                                + " ms of work (own JVM, kafka-clients 3.7)";
        };
    }

    private void addRatios(BenchReport report) {
        var rate = BenchReport.Metric.RATE;
        var cpu = BenchReport.Metric.CPU;
        var atLeast = BenchReport.Goal.AT_LEAST;
        var none = BenchReport.Goal.NONE;
        report.ratio("shove no-op / raw poll loop decoding JSON", rate, "b", "f", atLeast, 0.8);
        report.ratio("shove no-op / Spring Kafka", rate, "b", "g", atLeast, 1.0);
        report.ratio(
                "shove no-op / raw poll loop decoding JSON, client CPU per record",
                cpu,
                "b",
                "f",
                BenchReport.Goal.AT_MOST,
                1.5);
        for (long w : pcWorkMs) {
            report.ratio(
                    "shove sequenced / Parallel Consumer KEY order, " + w + " ms of work",
                    rate,
                    "s" + w,
                    "p" + w,
                    atLeast,
                    1.5);
        }
        report.ratio("shove no-op / raw virtual threads", rate, "b", "a", none, Double.NaN);
        report.ratio("shove no-op / raw poll loop without decoding", rate, "b", "e", none, Double.NaN);
        report.ratio("shove sequenced / raw partition-serial", rate, "c", "d", none, Double.NaN);
        report.ratio("raw poll loop decoding JSON / without decoding", rate, "f", "e", none, Double.NaN);
        report.ratio("Spring Kafka / raw poll loop decoding JSON", rate, "g", "f", none, Double.NaN);
        report.ratio("shove no-op / Spring Kafka, client CPU per record", cpu, "b", "g", none, Double.NaN);
    }

    /**
     * Prints one line of rates, one of client CPU per record and one of bytes allocated per record, with the ratios of
     * issue 13's targets.
     */
    private static void printRun(String title, Map<String, double[]> figures) {
        StringBuilder rates = new StringBuilder(title + ":");
        StringBuilder cpu = new StringBuilder("       client CPU per record:");
        StringBuilder bytes = new StringBuilder("       allocated per record:");
        figures.forEach((id, f) -> {
            rates.append(String.format(Locale.ROOT, "  (%s) %,.0f/s", id, f[0]));
            cpu.append(String.format(Locale.ROOT, "  (%s) %.2f us", id, f[1]));
            if (f.length > 2 && !Double.isNaN(f[2])) {
                bytes.append(String.format(Locale.ROOT, "  (%s) %,.0f B", id, f[2]));
            }
        });
        String[][] pairs = {{"b", "a"}, {"b", "e"}, {"b", "f"}, {"b", "g"}, {"c", "d"}};
        for (String[] pair : pairs) {
            appendRatio(rates, figures, pair[0], pair[1]);
        }
        figures.keySet().stream()
                .filter(id -> id.startsWith("s"))
                .forEach(id -> appendRatio(rates, figures, id, "p" + id.substring(1)));
        appendRatio(cpu, figures, "b", "f", 1);
        appendRatio(bytes, figures, "b", "f", 2);
        System.out.println(rates);
        System.out.println(cpu);
        System.out.println(bytes);
    }

    private static void appendRatio(StringBuilder out, Map<String, double[]> figures, String num, String den) {
        appendRatio(out, figures, num, den, 0);
    }

    private static void appendRatio(
            StringBuilder out, Map<String, double[]> figures, String num, String den, int index) {
        double[] n = figures.get(num);
        double[] d = figures.get(den);
        if (n != null && d != null) {
            out.append(String.format(Locale.ROOT, "  %s/%s %.2f", num, den, n[index] / d[index]));
        }
    }

    /** A mode: reads the records and returns its rate. */
    @FunctionalInterface
    interface Mode {
        double run() throws Exception;
    }

    /**
     * Runs a mode if {@code modes} names it, recording its rate and the client's CPU time per record (microseconds).
     */
    private void measure(String mode, int count, Map<String, double[]> figures, Mode body) throws Exception {
        if (modes.contains(mode)) {
            figures.put(mode, timed(count, body));
        }
    }

    /** {@return a mode's rate, this process's CPU microseconds per record over it and its bytes allocated per record} */
    private static double[] timed(int count, Mode body) throws Exception {
        long allocatedBefore = THREADS.getTotalThreadAllocatedBytes();
        long before = PROCESS.getProcessCpuTime();
        double rate = body.run();
        long cpu = PROCESS.getProcessCpuTime() - before;
        long allocated = THREADS.getTotalThreadAllocatedBytes() - allocatedBefore;
        return new double[] {rate, cpu / 1000.0 / count, (double) allocated / count};
    }

    /**
     * The JIT compilers' time so far (milliseconds): what they spend during a run is CPU charged to its modes, so the
     * console shows it per run.
     */
    private static long jitMillis() {
        return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

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

    /**
     * (e) and (f): the best raw mode: no hand-off at all, records handled on the poll thread, commitAsync per poll;
     * with {@code decode}, each record's value decoded from JSON to {@link Msg} first (f, the floor of a consumer that
     * decodes, as shove does).
     */
    private double rawPollLoop(String topic, boolean decode) throws IOException {
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
                    if (decode) {
                        sink.addAndGet(JSON.readValue(r.value(), Msg.class).amount());
                    } else {
                        noop(r);
                    }
                }
                seen += batch.count();
                consumer.commitAsync();
            }
            consumer.commitSync();
            return rate(seen, first, System.nanoTime());
        }
    }

    /**
     * (g): Spring Kafka's {@link ConcurrentMessageListenerContainer} with a record listener ({@link MessageListener})
     * decoding each value from JSON to {@link Msg}, {@code AckMode.BATCH} (one commit per poll, its cheapest plain
     * configuration), built programmatically: no Spring Boot, no application context. Concurrency 1 by default
     * ({@code springConcurrency}), picked once on this project's 2-core machine (2026-12-02, load average ~30, three
     * runs of modes f and g, 100,000 records, per concurrency): 1 and 2 consumers of the 8 partitions were within the
     * noise of each other (warm runs 47k and 102k/s against 65k and 61k/s; per-run ratio to the decoding poll loop,
     * median 1.19 against 0.82), 4 clearly slower (30k/s, 10 us of client CPU per record against 6); 1 spends the
     * least CPU per record. A container thread decodes on its poll thread, so one of them already keeps a core busy;
     * more only share the same 2 cores.
     */
    private double springKafka(String topic) throws InterruptedException {
        Map<String, Object> props = new HashMap<>();
        consumerProps(500).forEach((k, v) -> props.put((String) k, v));
        AtomicInteger handled = new AtomicInteger();
        AtomicInteger undecodable = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setAckMode(ContainerProperties.AckMode.BATCH);
        properties.setMessageListener((MessageListener<byte[], byte[]>) r -> {
            first.compareAndSet(0, System.nanoTime());
            try {
                sink.addAndGet(JSON.readValue(r.value(), Msg.class).amount());
            } catch (IOException e) {
                undecodable.incrementAndGet();
                done.countDown();
                throw new UncheckedIOException(e);
            }
            if (handled.incrementAndGet() == records) {
                last.set(System.nanoTime());
                done.countDown();
            }
        });
        var container = new ConcurrentMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<byte[], byte[]>(props), properties);
        container.setConcurrency(springConcurrency);
        container.setBeanName("bench-spring-kafka");
        container.start();
        boolean finished = done.await(10, TimeUnit.MINUTES);
        container.stop();
        if (!finished || undecodable.get() > 0) {
            throw new IllegalStateException("Spring Kafka run on " + topic + " did not finish: handled " + handled.get()
                    + " of " + records + ", " + undecodable.get() + " value(s) not JSON of Msg");
        }
        return rate(records, first.get(), last.get());
    }

    /**
     * (p): Confluent Parallel Consumer in KEY order over the sequenced topic, in its own JVM on kafka-clients 3.7
     * ({@code dev.shove.benchmarks.pc.ParallelConsumerRun} of the {@code benchmarks-parallel-consumer} module): starts
     * it, waits for it, and returns the rate and client CPU per record it prints.
     */
    private double[] parallelConsumer(String topic, int count, long work) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = List.of(
                java,
                "-Xmx2g",
                "-cp",
                pcClasspath(),
                "dev.shove.benchmarks.pc.ParallelConsumerRun",
                "bootstrap=" + bootstrap,
                "topic=" + topic,
                "records=" + count,
                "workMs=" + work,
                "maxConcurrency=" + pcMaxConcurrency,
                "warmup=" + pcWarmup);
        Process child = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        double[] result = null;
        try (BufferedReader out = child.inputReader(StandardCharsets.UTF_8)) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("PC_RESULT ")) {
                    Map<String, String> fields = new HashMap<>();
                    for (String field : line.substring("PC_RESULT ".length()).split(" ")) {
                        int eq = field.indexOf('=');
                        fields.put(field.substring(0, eq), field.substring(eq + 1));
                    }
                    result = new double[] {
                        Double.parseDouble(fields.get("rate")), Double.parseDouble(fields.get("cpuMicros"))
                    };
                } else {
                    System.out.println("  [parallel consumer] " + line);
                }
            }
        }
        if (!child.waitFor(15, TimeUnit.MINUTES)) {
            child.destroyForcibly();
        }
        if (child.exitValue() != 0 || result == null) {
            throw new IllegalStateException("the Parallel Consumer run on " + topic + " at " + work
                    + " ms of work failed (exit " + child.exitValue() + "; its errors are above)");
        }
        return result;
    }

    /** {@return the Parallel Consumer module's classes and dependencies, as scripts/bench.sh kafka builds them} */
    private String pcClasspath() throws IOException {
        Path classes = Path.of(pcHome, "target", "classes");
        Path deps = Path.of(pcHome, "target", "classpath.txt");
        if (!Files.isDirectory(classes) || !Files.isRegularFile(deps)) {
            throw new IllegalStateException("the Parallel Consumer module is not built: " + classes + " or " + deps
                    + " is missing; run scripts/bench.sh kafka (it builds " + pcHome + "), or leave p out of modes=");
        }
        return classes.toAbsolutePath()
                + File.pathSeparator
                + Files.readString(deps).strip();
    }

    private static String join(long[] values) {
        return Arrays.stream(values).mapToObj(Long::toString).collect(Collectors.joining("/"));
    }

    private static String join(int[] values) {
        return Arrays.stream(values).mapToObj(Integer::toString).collect(Collectors.joining("/"));
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

    /** Decodes the raw and peer modes' values, as shove's JSON codec decodes them for its handlers. */
    private static final ObjectMapper JSON = new ObjectMapper();

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
