package dev.shove.kafka;

import dev.shove.conformance.BrokerAvailability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Where the test broker is, and plain-client helpers that look at Kafka without shove. */
final class KafkaTestSupport {
    private KafkaTestSupport() {}

    /** {@code SHOVE_KAFKA_BOOTSTRAP}, default {@code 127.0.0.1:9092}. */
    static String bootstrap() {
        return BrokerAvailability.env("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
    }

    /** Fails or skips (see {@link BrokerAvailability}) when the broker does not answer. */
    static void requireKafka() {
        String first = bootstrap().split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        String host = colon > 0 ? first.substring(0, colon) : first;
        int port = colon > 0 ? Integer.parseInt(first.substring(colon + 1)) : 9092;
        BrokerAvailability.require("Kafka", "kafka", host, port);
    }

    /** A config for tests: short commit interval, short session timeout. */
    static KafkaConfig config() {
        return KafkaConfig.builder(bootstrap())
                .partitions(4)
                .sessionTimeout(Duration.ofSeconds(6))
                .build();
    }

    /** A topic name no other test run uses. */
    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static Admin admin() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        return Admin.create(p);
    }

    /** Deletes topics whose names start with one of the prefixes (best effort). */
    static void deleteTopics(Collection<String> names) {
        if (names.isEmpty()) {
            return;
        }
        try (Admin admin = admin()) {
            List<String> existing = new ArrayList<>();
            for (String t : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
                for (String n : names) {
                    if (t.equals(n) || t.startsWith(n + "-")) {
                        existing.add(t);
                    }
                }
            }
            admin.deleteTopics(existing).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // best effort: a leftover topic only costs disk
        }
    }

    /** Every record of a topic, read with a throwaway group from the beginning, until {@code quiet} passes idle. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, Duration quiet) {
        Properties p = new Properties();
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
    static long endOffset(String topic) throws Exception {
        try (Admin admin = admin()) {
            int n = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < n; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            long sum = 0;
            for (var e :
                    admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values()) {
                sum += e.offset();
            }
            return sum;
        }
    }

    /** The lag of a group on a topic: end offsets minus committed offsets (uncommitted partitions count from 0). */
    static long lag(String topic, String group) throws Exception {
        try (Admin admin = admin()) {
            int n = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < n; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            var ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            long lag = 0;
            for (var e : ends.entrySet()) {
                OffsetAndMetadata c = committed.get(e.getKey());
                lag += e.getValue().offset() - (c == null ? 0 : c.offset());
            }
            return lag;
        }
    }
}
