package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.conformance.BrokerAvailability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What every Kafka integration test needs, as a JUnit 5 extension registered once per test class:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaFixture kafka = new KafkaFixture();
 * }</pre>
 *
 * <p>Before the class's tests it requires the broker ({@code SHOVE_KAFKA_BOOTSTRAP}, default {@code 127.0.0.1:9092};
 * a missing broker fails or skips the tests, see {@link BrokerAvailability}). It hands out topic names no other run
 * uses, brokers connected with the test configuration, and one shared {@link Admin} client, plus plain-client helpers
 * that look at Kafka without shove. After the class's tests (nested classes included) it deletes the topics it named,
 * with their hold and dead-letter topics, and closes the admin client. Thread-safe: awaited conditions call it from
 * other threads.
 */
final class KafkaFixture implements BeforeAllCallback, AfterAllCallback {
    /** How a conformance harness names what it declares: {@code prefix-<8 hex>-<n>}, then what derives from it. */
    private static final Pattern HARNESS_NAME = Pattern.compile("-[0-9a-f]{8}-[0-9]+($|[^0-9a-f])");

    private final boolean deleteNewTopics;
    private final List<String> named = new CopyOnWriteArrayList<>();
    private final Set<String> before = new HashSet<>();
    private int depth;
    private boolean kafkaAnswered;
    private @Nullable Admin admin;

    /** A fixture that deletes the topics it named. */
    KafkaFixture() {
        this(false);
    }

    private KafkaFixture(boolean deleteNewTopics) {
        this.deleteNewTopics = deleteNewTopics;
    }

    /**
     * A fixture that deletes the topics that appeared while the tests ran and carry a conformance harness's name
     * ({@code prefix-<8 hex>-<n>}, and the hold and dead-letter topics derived from it): for the kit, whose names the
     * fixture does not know one by one. Topics of other tests on the same broker (named {@code prefix-<8 hex>}) stay.
     */
    static KafkaFixture deletingNewTopics() {
        return new KafkaFixture(true);
    }

    /** {@code SHOVE_KAFKA_BOOTSTRAP}, default {@code 127.0.0.1:9092}. */
    static String bootstrap() {
        return BrokerAvailability.env("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) throws Exception {
        if (depth++ > 0) {
            return; // a nested class of a class that has already set up
        }
        requireKafka();
        kafkaAnswered = true;
        if (deleteNewTopics) {
            before.addAll(admin().listTopics().names().get(30, TimeUnit.SECONDS));
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (--depth > 0) {
            return;
        }
        try {
            if (kafkaAnswered) {
                deleteTopics();
            }
        } finally {
            kafkaAnswered = false;
            if (admin != null) {
                admin.close();
                admin = null;
            }
            named.clear();
            before.clear();
        }
    }

    /** Fails or skips (see {@link BrokerAvailability}) when the broker does not answer. */
    private static void requireKafka() {
        String first = bootstrap().split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        String host = colon > 0 ? first.substring(0, colon) : first;
        int port = colon > 0 ? Integer.parseInt(first.substring(colon + 1)) : 9092;
        BrokerAvailability.require("Kafka", "kafka", host, port);
    }

    /** A topic name no other test run uses; the topic, and those derived from it, are deleted after the tests. */
    String topicName(String prefix) {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        named.add(name);
        return name;
    }

    /** A config for tests: 4 partitions, short session timeout. */
    KafkaConfig config() {
        return config(4);
    }

    /** A config for tests with {@code partitions} partitions per topic and a short session timeout. */
    KafkaConfig config(int partitions) {
        return config(partitions, false);
    }

    /** {@link #config(int)}, with transactional settlement if {@code transactional}. */
    KafkaConfig config(int partitions, boolean transactional) {
        KafkaConfig.Builder b =
                KafkaConfig.builder(bootstrap()).partitions(partitions).sessionTimeout(Duration.ofSeconds(6));
        if (transactional) {
            b.transactional();
        }
        return b.build();
    }

    /** A broker connected with {@link #config()}; the caller closes it. */
    Broker<Kafka> connect() {
        return Broker.connect(config());
    }

    /** A broker connected with {@link #config(int)}; the caller closes it. */
    Broker<Kafka> connect(int partitions) {
        return Broker.connect(config(partitions));
    }

    /** The admin client of these tests, closed after them; callers do not close it. */
    synchronized Admin admin() {
        if (admin == null) {
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap());
            admin = Admin.create(p);
        }
        return admin;
    }

    /** Stops {@code group}, draining up to 10 s, and asserts that it stopped cleanly. */
    void assertStopsCleanly(ConsumerGroup<?, ?> group) {
        assertStopsCleanly(group, Duration.ofSeconds(10));
    }

    /** Stops {@code group}, draining up to {@code drain}, and asserts that it stopped cleanly. */
    void assertStopsCleanly(ConsumerGroup<?, ?> group, Duration drain) {
        assertThat(group.stop(drain).isClean()).isTrue();
    }

    /** Deletes the topics named here, or every new one (best effort: a leftover topic only costs disk). */
    private void deleteTopics() {
        if (named.isEmpty() && !deleteNewTopics) {
            return;
        }
        try {
            Set<String> existing = admin().listTopics().names().get(30, TimeUnit.SECONDS);
            List<String> doomed = new ArrayList<>();
            for (String t : existing) {
                if (deleteNewTopics
                        ? !before.contains(t) && HARNESS_NAME.matcher(t).find()
                        : isNamedOrDerived(t)) {
                    doomed.add(t);
                }
            }
            admin().deleteTopics(doomed).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // best effort: a leftover topic only costs disk
        }
    }

    private boolean isNamedOrDerived(String topic) {
        for (String n : named) {
            if (topic.equals(n) || topic.startsWith(n + "-")) {
                return true;
            }
        }
        return false;
    }

    /** Every record of a topic, read with a throwaway group from the beginning, until {@code quiet} passes idle. */
    List<ConsumerRecord<byte[], byte[]>> readAll(String topic, Duration quiet) {
        return readAll(topic, quiet, "read_uncommitted");
    }

    /** {@link #readAll(String, Duration)} with the consumer's {@code isolation.level}. */
    List<ConsumerRecord<byte[], byte[]>> readAll(String topic, Duration quiet, String isolationLevel) {
        Properties p = new Properties();
        p.put("isolation.level", isolationLevel);
        p.put("bootstrap.servers", bootstrap());
        p.put("group.id", "test-reader-" + UUID.randomUUID());
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long idleSince = System.nanoTime();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() - idleSince < quiet.toNanos() && System.nanoTime() < deadline) {
                var records = c.poll(Duration.ofMillis(200));
                if (!records.isEmpty()) {
                    idleSince = System.nanoTime();
                    records.forEach(out::add);
                }
            }
        }
        return out;
    }

    /** The sum of a topic's end offsets: how many records were ever written to it (no compaction here). */
    long endOffset(String topic) throws Exception {
        long sum = 0;
        for (var e : admin().listOffsets(latest(topic))
                .all()
                .get(30, TimeUnit.SECONDS)
                .values()) {
            sum += e.offset();
        }
        return sum;
    }

    /** The lag of a group on a topic: end offsets minus committed offsets (uncommitted partitions count from 0). */
    long lag(String topic, String group) throws Exception {
        var ends = admin().listOffsets(latest(topic)).all().get(30, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed = admin().listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        long lag = 0;
        for (var e : ends.entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            lag += e.getValue().offset() - (c == null ? 0 : c.offset());
        }
        return lag;
    }

    /** The latest offset of every partition of {@code topic}. */
    private Map<TopicPartition, OffsetSpec> latest(String topic) throws Exception {
        int n = admin().describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic)
                .partitions()
                .size();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int i = 0; i < n; i++) {
            latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        return latest;
    }
}
