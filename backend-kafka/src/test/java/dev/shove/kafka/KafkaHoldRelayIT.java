package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The hold relay: retries come back when due, none held up by another, whatever happens to the relay. */
class KafkaHoldRelayIT {
    record Msg(String id) {}

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("a retry longer than the longest tier does not hold up a short retry behind it in its hold partition")
    void longRetryDoesNotBlockShortRetry() throws Exception {
        String name = kafka.topicName("relay-long");
        String hold = name + "-hold-1s";
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Map<String, Long> firstSeen = new ConcurrentHashMap<>();
        Map<String, Long> backAt = new ConcurrentHashMap<>();
        // one partition per topic: both hold copies land in the same hold partition, the long one first
        try (Broker<Kafka> broker = kafka.connect(1)) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                if (meta.retryCount() == 0) {
                    firstSeen.put(m.id(), System.currentTimeMillis());
                    return m.id().equals("long") ? Outcome.retry(Duration.ofHours(1)) : Outcome.retry();
                }
                backAt.putIfAbsent(m.id(), System.currentTimeMillis());
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, new Msg("long"));
            await().atMost(Duration.ofSeconds(30)).until(() -> kafka.endOffset(hold) == 1);
            broker.publisher().publish(topic, new Msg("short"));

            await().atMost(Duration.ofSeconds(20)).until(() -> backAt.containsKey("short"));
            // its 1 s tier, plus the hops through the hold topic and back: far below the long retry's hour
            assertThat(backAt.get("short") - firstSeen.get("short")).isLessThan(15_000);
            assertThat(backAt).doesNotContainKey("long");
            kafka.assertStopsCleanly(group);
        }
        // the long retry still waits in the hold topic, due when the core said (an hour from its first attempt)
        List<ConsumerRecord<byte[], byte[]>> held = kafka.readAll(hold, Duration.ofSeconds(1));
        List<Long> dueTimes = held.stream()
                .filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains("long"))
                .map(r -> Long.parseLong(KafkaHeaders.get(r.headers(), ShoveHeaders.NOT_BEFORE)))
                .distinct()
                .toList();
        assertThat(dueTimes).hasSize(1);
        assertThat(dueTimes.getFirst() - firstSeen.get("long")).isBetween(3_590_000L, 3_610_000L);
    }

    @Test
    @DisplayName("a hold relay that fails restarts by itself after a back-off, and health and meters show it meanwhile")
    void failedRelayRestarts() {
        String name = kafka.topicName("relay-fail");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        KafkaConfig config = KafkaConfig.builder(KafkaFixture.bootstrap())
                .partitions(1)
                .sessionTimeout(Duration.ofSeconds(6))
                .clientProperty("interceptor.classes", RelayBreaker.class.getName())
                .build();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        RelayBreaker.arm(HoldRelay.groupId(topic), 2); // the relay fails on its first two reads of the hold copy
        try (Broker<Kafka> broker = Broker.builder(config).meterRegistry(meters).connect()) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                attempts.add(meta.retryCount());
                return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, new Msg("m"));

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !broker.connection().connected()
                            && broker.connection().detail().contains("hold relay of topic '" + name + "'"));
            assertThat(group.health().isReady()).isFalse();

            await().atMost(Duration.ofSeconds(30)).until(() -> attempts.size() == 2);
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> broker.connection().connected());
            assertThat(RelayBreaker.left.get()).isLessThanOrEqualTo(0);
            assertThat(meters.get("shove.kafka.relay.up")
                            .tag("topic", name)
                            .gauge()
                            .value())
                    .isEqualTo(1.0);
            assertThat(meters.get("shove.kafka.relay.restarts")
                            .tag("topic", name)
                            .counter()
                            .count())
                    .isEqualTo(2.0);
            assertThat(meters.get("shove.backend.errors")
                            .tag("backend", "kafka")
                            .tag("kind", "relay")
                            .counter()
                            .count())
                    .isEqualTo(2.0);
            kafka.assertStopsCleanly(group);
        } finally {
            RelayBreaker.arm("", 0);
        }
        assertThat(attempts).containsExactly(0, 1);
    }

    @Test
    @DisplayName("a group skips the retries of another group that come back to the main topic, and counts them")
    void otherGroupsRetriesAreCounted() {
        String name = kafka.topicName("relay-groups");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        List<Integer> retrying = new CopyOnWriteArrayList<>();
        List<Integer> acking = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker =
                Broker.builder(kafka.config(1)).meterRegistry(meters).connect()) {
            var groupA = broker.consumerGroup();
            groupA.register(topic, ConsumerGroupConfig.builder().groupName("a").build(), () -> (m, meta, c) -> {
                retrying.add(meta.retryCount());
                return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
            });
            var groupB = broker.consumerGroup();
            groupB.register(topic, ConsumerGroupConfig.builder().groupName("b").build(), () -> (m, meta, c) -> {
                acking.add(meta.retryCount());
                return Outcome.ack();
            });
            groupA.start();
            groupB.start();
            broker.publisher().publish(topic, new Msg("m"));
            await().atMost(Duration.ofSeconds(30)).until(() -> retrying.size() == 2);
            await().atMost(Duration.ofSeconds(15)).until(() -> skipped(meters, name, "b") == 1.0);
            kafka.assertStopsCleanly(groupA);
            kafka.assertStopsCleanly(groupB);
        }
        assertThat(retrying).containsExactly(0, 1);
        assertThat(acking).containsExactly(0); // b never ran a's retry
        assertThat(skipped(meters, name, "a")).isZero();
    }

    private static double skipped(SimpleMeterRegistry meters, String topic, String group) {
        var counter = meters.find("shove.kafka.retries.skipped")
                .tag("topic", topic)
                .tag("consumer_group", group)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    /**
     * Makes the hold relay of one topic fail: installed in every client through {@code interceptor.classes} (so it is a
     * producer interceptor too, passing everything), it
     * throws from the poll of that relay's consumer (its group id) while it has records and failures are left. An
     * {@link Error}, because kafka-clients catches and logs the exceptions of interceptors.
     */
    public static final class RelayBreaker
            implements ConsumerInterceptor<byte[], byte[]>, ProducerInterceptor<byte[], byte[]> {
        static volatile String group = "";
        static final AtomicInteger left = new AtomicInteger();

        private String myGroup = "";

        public RelayBreaker() {}

        static void arm(String relayGroup, int failures) {
            group = relayGroup;
            left.set(failures);
        }

        @Override
        public void configure(Map<String, ?> configs) {
            myGroup = String.valueOf(configs.get("group.id"));
        }

        @Override
        public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
            if (!records.isEmpty() && myGroup.equals(group) && left.getAndDecrement() > 0) {
                throw new RelayBroken("the relay of group " + myGroup + " breaks (test)");
            }
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

        @Override
        public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {}

        @Override
        public void close() {}
    }

    /** The failure {@link RelayBreaker} throws. */
    static final class RelayBroken extends Error {
        private static final long serialVersionUID = 1L;

        RelayBroken(String message) {
            super(message);
        }
    }
}
