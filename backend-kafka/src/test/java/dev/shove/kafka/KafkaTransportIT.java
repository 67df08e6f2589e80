package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.TopologyException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Kafka mapping itself: objects, headers, coordinates, lag. */
class KafkaTransportIT {
    record Msg(int n) {}

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("declare creates the main, hold and dead-letter topics with the configured partitions")
    void declareCreatesTopics() throws Exception {
        String name = kafka.topicName("decl");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(500))
                .holdQueue(Duration.ofSeconds(5))
                .dlq()
                .build();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);
            broker.topology().declare(topic); // idempotent
            var topics = kafka.admin()
                    .describeTopics(List.of(name, name + "-hold-500ms", name + "-hold-5s", name + "-dlq"))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS);
            assertThat(topics).hasSize(4);
            topics.values().forEach(d -> assertThat(d.partitions()).hasSize(4));
        }
    }

    @Test
    @DisplayName("hold topics get a retention derived from their tier: twice its delay and a day, at least 7 days")
    void holdTopicsGetTheirTiersRetention() throws Exception {
        String name = kafka.topicName("retention");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(500))
                .holdQueue(Duration.ofDays(5))
                .dlq()
                .build();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);
        }
        String shortHold = topic.holdTiers().get(0).queue();
        String longHold = topic.holdTiers().get(1).queue();
        Map<String, ConfigEntry> retention = new HashMap<>();
        var resources = List.of(
                new ConfigResource(ConfigResource.Type.TOPIC, shortHold),
                new ConfigResource(ConfigResource.Type.TOPIC, longHold));
        kafka.admin()
                .describeConfigs(resources)
                .all()
                .get(30, TimeUnit.SECONDS)
                .forEach((r, c) -> retention.put(r.name(), c.get("retention.ms")));
        assertThat(retention.get(shortHold).value())
                .isEqualTo(Long.toString(Duration.ofDays(7).toMillis()));
        assertThat(retention.get(shortHold).source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(retention.get(longHold).value())
                .isEqualTo(Long.toString(Duration.ofDays(11).toMillis()));
        assertThat(retention.get(longHold).source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
    }

    @Test
    @DisplayName("an existing topic with fewer partitions than a sequenced topic's shards is expanded")
    void declareExpandsPartitions() throws Exception {
        String name = kafka.topicName("grow");
        kafka.admin()
                .createTopics(List.of(new NewTopic(name, 2, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(dev.shove.SequenceFailure.SKIP, m -> Integer.toString(m.n()))
                .routingShards(6)
                .build();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);
            int partitions = kafka.admin()
                    .describeTopics(List.of(name))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(name)
                    .partitions()
                    .size();
            assertThat(partitions).isEqualTo(6);
        }
    }

    @Test
    @DisplayName("publishing to a topic that was never declared fails naming the topic")
    void publishToMissingTopicFails() {
        String name = kafka.topicName("missing");
        Topic<Msg> topic = Topic.builder(name, Msg.class).dlq().build();
        try (Broker<Kafka> broker = kafka.connect()) {
            assertThatThrownBy(() -> broker.publisher().publish(topic, new Msg(1)))
                    .isInstanceOf(TopologyException.class)
                    .hasMessageContaining(name);
        }
    }

    @Test
    @DisplayName("a handler sees partition, offset and timestamp, and no delivery count")
    void metadataCarriesCoordinates() {
        String name = kafka.topicName("meta");
        Topic<Msg> topic = Topic.builder(name, Msg.class).dlq().build();
        List<MessageMetadata> seen = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect()) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                seen.add(meta);
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, new Msg(1));
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 1);
            kafka.assertStopsCleanly(group);
        }
        MessageMetadata meta = seen.getFirst();
        assertThat(meta.partition()).isPresent();
        assertThat(meta.offset()).hasValue(0L);
        assertThat(meta.timestampMs()).isPresent();
        assertThat(meta.deliveryCount()).isEmpty();
        assertThat(meta.headers()).containsKey(ShoveHeaders.MESSAGE_ID);
        assertThat(meta.headers().keySet()).noneMatch(k -> k.startsWith(KafkaHeaders.PREFIX));
    }

    @Test
    @DisplayName("a retry travels through the tier's hold topic carrying the retry count and due time")
    void retryGoesThroughHoldTopic() {
        String name = kafka.topicName("hold");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect()) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                attempts.add(meta.retryCount());
                return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, new Msg(7));
            await().atMost(Duration.ofSeconds(30)).until(() -> attempts.size() == 2);
            kafka.assertStopsCleanly(group);
        }
        assertThat(attempts).containsExactly(0, 1);
        List<ConsumerRecord<byte[], byte[]>> held = kafka.readAll(name + "-hold-300ms", Duration.ofSeconds(1));
        assertThat(held).hasSize(1);
        ConsumerRecord<byte[], byte[]> copy = held.getFirst();
        assertThat(KafkaHeaders.get(copy.headers(), ShoveHeaders.RETRY_COUNT)).isEqualTo("1");
        assertThat(KafkaHeaders.get(copy.headers(), ShoveHeaders.NOT_BEFORE)).isNotNull();
        assertThat(KafkaHeaders.get(copy.headers(), KafkaHeaders.GROUP)).isEqualTo(name);
    }

    @Test
    @DisplayName("a rejected message reaches the dead-letter topic with its reason, partition and offset")
    void rejectGoesToDeadLetterTopic() {
        String name = kafka.topicName("dlq");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        List<DeadMessageMetadata> dead = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect()) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> new MessageHandler<Msg, NoContext>() {
                @Override
                public Outcome handle(Msg m, MessageMetadata meta, NoContext c) {
                    return Outcome.reject("bad order");
                }

                @Override
                public void handleDead(Msg m, DeadMessageMetadata meta, NoContext c) {
                    dead.add(meta);
                }
            });
            group.start();
            broker.publisher().publish(topic, new Msg(3));
            await().atMost(Duration.ofSeconds(30)).until(() -> dead.size() == 1);
            kafka.assertStopsCleanly(group);
        }
        assertThat(dead.getFirst().reason()).isEqualTo("rejected: bad order");
        assertThat(dead.getFirst().originalQueue()).isEqualTo(name);
        List<ConsumerRecord<byte[], byte[]>> letters = kafka.readAll(name + "-dlq", Duration.ofSeconds(1));
        assertThat(letters).hasSize(1);
        assertThat(KafkaHeaders.get(letters.getFirst().headers(), KafkaHeaders.ORIGINAL_OFFSET))
                .isEqualTo("0");
        assertThat(KafkaHeaders.get(letters.getFirst().headers(), KafkaHeaders.ORIGINAL_PARTITION))
                .isNotNull();
        assertThat(new String(letters.getFirst().value(), StandardCharsets.UTF_8))
                .contains("3");
    }

    @Test
    @DisplayName("stats report the group's lag: end offsets minus committed offsets")
    void statsReportLag() throws Exception {
        String name = kafka.topicName("lag");
        Topic<Msg> topic = Topic.builder(name, Msg.class).dlq().build();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);
            List<Msg> batch = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                batch.add(new Msg(i));
            }
            broker.publisher().publishBatch(topic, batch);
            KafkaTransport transport = broker.unwrap(KafkaTransport.class).orElseThrow();
            assertThat(transport.stats(topic).ready()).isEqualTo(25);
            List<Integer> seen = new CopyOnWriteArrayList<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.builder().noAutoscaler().build(), () -> (m, meta, c) -> {
                seen.add(m.n());
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 25);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> transport.stats(topic).ready() == 0);
            kafka.assertStopsCleanly(group);
            assertThat(kafka.lag(name, name)).isZero();
        }
    }

    @Test
    @DisplayName("KafkaGroupSettings reach the group's consumers, over the config's client properties")
    void groupSettingsReachConsumers() {
        Topic<Msg> topic = Topic.builder(kafka.topicName("settings"), Msg.class).build();
        String interceptor = RecordingInterceptor.class.getName();
        KafkaConfig config = KafkaConfig.builder(KafkaFixture.bootstrap())
                .partitions(4)
                .sessionTimeout(Duration.ofSeconds(6))
                .clientProperty("max.poll.records", "7")
                .build();
        List<Integer> seen = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = Broker.connect(config)) {
            broker.topology().declare(topic);
            broker.publisher().publish(topic, new Msg(1));
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .noAutoscaler()
                            .backendSettings(KafkaGroupSettings.builder()
                                    .consumerProperty("max.poll.records", "2")
                                    .consumerProperty("interceptor.classes", interceptor)
                                    .build())
                            .build(),
                    () -> (m, meta, c) -> {
                        seen.add(m.n());
                        return Outcome.ack();
                    });
            group.start();
            await().atMost(30, TimeUnit.SECONDS).until(() -> seen.size() == 1);
            kafka.assertStopsCleanly(group);
        }
        assertThat(RecordingInterceptor.CONFIGS)
                .filteredOn(c -> topic.name().equals(String.valueOf(c.get("group.id"))))
                .isNotEmpty()
                .allSatisfy(c ->
                        assertThat(String.valueOf(c.get("max.poll.records"))).isEqualTo("2"));
    }

    /** Records the configuration of every consumer it is installed in (kafka-clients passes it to configure). */
    public static final class RecordingInterceptor implements ConsumerInterceptor<byte[], byte[]> {
        static final List<Map<String, ?>> CONFIGS = new CopyOnWriteArrayList<>();

        public RecordingInterceptor() {}

        @Override
        public void configure(Map<String, ?> configs) {
            CONFIGS.add(Map.copyOf(configs));
        }

        @Override
        public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

        @Override
        public void close() {}
    }
}
