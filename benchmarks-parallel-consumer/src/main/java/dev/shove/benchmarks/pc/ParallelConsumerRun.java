package dev.shove.benchmarks.pc;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.confluent.parallelconsumer.ParallelConsumerOptions;
import io.confluent.parallelconsumer.ParallelConsumerOptions.CommitMode;
import io.confluent.parallelconsumer.ParallelConsumerOptions.ProcessingOrder;
import io.confluent.parallelconsumer.ParallelStreamProcessor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Confluent Parallel Consumer 0.5.3.2 reading a topic KafkaBenchmark published, in KEY order: the peer of shove's
 * sequenced topics. Runs in a JVM of its own on kafka-clients 3.7 (Parallel Consumer does not work on 4.x);
 * KafkaBenchmark starts it as a child process and reads the one line it prints on standard output:
 *
 * <pre>
 * PC_RESULT rate=&lt;records/s&gt; cpuMicros=&lt;client CPU us per record&gt; records=&lt;n&gt; workMs=&lt;w&gt;
 * </pre>
 *
 * <p>Each record's value is decoded from JSON to the same record type shove's handlers get (Jackson), then the
 * handler sleeps {@code workMs} (none at 0). The rate is measured from the first record handled to the {@code
 * records}-th, in a fresh consumer group reading from the beginning; the CPU time is this process's over the
 * measured pass, the consumer's start included (the broker is another process). Options: KEY ordering, {@code
 * maxConcurrency} (100), the default commit mode (periodic asynchronous consumer commits).
 *
 * <p>Arguments ({@code key=value}): {@code bootstrap}, {@code topic}, {@code records}, {@code workMs} (0), {@code
 * maxConcurrency} (100), {@code timeoutS} (600), {@code warmup} (0: records of an uncounted first pass in a group of
 * its own, so that the measured pass runs warm, as shove's modes do after its first). Exits 1 with a message naming
 * the topic if the records are not all handled in time or a value does not decode.
 */
public final class ParallelConsumerRun {
    /** The message type of the benchmark, as in KafkaBenchmark. */
    record Msg(String id, String key, long amount, String note) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private ParallelConsumerRun() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (String a : argv) {
            int eq = a.indexOf('=');
            if (eq > 0) {
                args.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        String bootstrap = args.getOrDefault("bootstrap", "127.0.0.1:9092");
        String topic = args.get("topic");
        if (topic == null) {
            System.err.println("ParallelConsumerRun: topic=<name> is required (a topic KafkaBenchmark published)");
            System.exit(2);
        }
        int records = Integer.parseInt(args.getOrDefault("records", "30000"));
        long workMs = Long.parseLong(args.getOrDefault("workMs", "0"));
        int maxConcurrency = Integer.parseInt(args.getOrDefault("maxConcurrency", "100"));
        long timeoutS = Long.parseLong(args.getOrDefault("timeoutS", "600"));

        int warmup = Integer.parseInt(args.getOrDefault("warmup", "0"));
        if (warmup > 0) {
            // a cold JVM against shove's warm one would measure the JIT: one uncounted pass first, in its own group
            pass(bootstrap, topic, Math.min(warmup, records), workMs, maxConcurrency, timeoutS);
        }
        double[] measured = pass(bootstrap, topic, records, workMs, maxConcurrency, timeoutS);
        System.out.printf(
                Locale.ROOT,
                "PC_RESULT rate=%.1f cpuMicros=%.3f records=%d workMs=%d%n",
                measured[0],
                measured[1],
                records,
                workMs);
        System.exit(0);
    }

    /** One pass over {@code records} records in a fresh group; {@return the rate and CPU microseconds per record} */
    private static double[] pass(
            String bootstrap, String topic, int records, long workMs, int maxConcurrency, long timeoutS)
            throws InterruptedException {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", "bench-pc-" + UUID.randomUUID());
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());

        var process = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        AtomicInteger handled = new AtomicInteger();
        AtomicInteger undecodable = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        AtomicLong sink = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        long cpuBefore = process.getProcessCpuTime();
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
        ParallelConsumerOptions<byte[], byte[]> options = ParallelConsumerOptions.<byte[], byte[]>builder()
                .consumer(consumer)
                .ordering(ProcessingOrder.KEY)
                .maxConcurrency(maxConcurrency)
                .commitMode(CommitMode.PERIODIC_CONSUMER_ASYNCHRONOUS)
                .build();
        ParallelStreamProcessor<byte[], byte[]> processor = ParallelStreamProcessor.createEosStreamProcessor(options);
        processor.subscribe(List.of(topic));
        processor.poll(context -> {
            ConsumerRecord<byte[], byte[]> r = context.getSingleConsumerRecord();
            first.compareAndSet(0, System.nanoTime());
            Msg m;
            try {
                m = JSON.readValue(r.value(), Msg.class);
            } catch (IOException e) {
                undecodable.incrementAndGet();
                done.countDown();
                throw new UncheckedIOException(e);
            }
            if (workMs > 0) {
                try {
                    Thread.sleep(workMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            sink.addAndGet(m.amount());
            if (handled.incrementAndGet() == records) {
                last.set(System.nanoTime());
                done.countDown();
            }
        });
        boolean finished = done.await(timeoutS, TimeUnit.SECONDS);
        long cpu = process.getProcessCpuTime() - cpuBefore;
        int count = handled.get();
        processor.close();
        if (undecodable.get() > 0) {
            System.err.printf(
                    "ParallelConsumerRun: a value of topic '%s' did not decode as JSON of Msg; is it a topic"
                            + " KafkaBenchmark published?%n",
                    topic);
            System.exit(1);
        }
        if (!finished) {
            System.err.printf(
                    "ParallelConsumerRun: handled %d of %d records of topic '%s' in %d s; does the topic hold that"
                            + " many (KafkaBenchmark publishes them), or raise timeoutS%n",
                    count, records, topic, timeoutS);
            System.exit(1);
        }
        double seconds = Math.max(1e-9, (last.get() - first.get()) / 1e9);
        return new double[] {records / seconds, cpu / 1000.0 / records};
    }
}
