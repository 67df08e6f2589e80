package dev.shove.codec.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SchemaVersions;
import dev.shove.Topic;
import dev.shove.codec.avro.test.Order;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.kafka.Kafka;
import dev.shove.kafka.KafkaConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("AvroCodec on Kafka")
class AvroCodecKafkaIT {
    private static final String BOOTSTRAP = BrokerAvailability.env("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
    private static final String NAME =
            "codec-avro-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void requireKafka() {
        String first = BOOTSTRAP.split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        BrokerAvailability.require(
                "Kafka", "kafka", first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
    }

    @AfterAll
    static void deleteTopics() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
            List<String> ours = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith(NAME))
                    .toList();
            admin.deleteTopics(ours).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Collects what it handles, and the reasons of the dead letters it cannot read. */
    record Collector(List<Order> handled, List<String> unreadableDead) implements MessageHandler<Order, NoContext> {
        @Override
        public Outcome handle(Order message, MessageMetadata metadata, NoContext context) {
            handled.add(message);
            return Outcome.ack();
        }

        @Override
        public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, NoContext context) {
            unreadableDead.add(metadata.reason());
        }
    }

    @Test
    @DisplayName("a version 3 consumer reads versions 1 and 3, resolved and upcast, and dead-letters version 4 by name")
    void versionsOverKafka() {
        Topic<Order> v3 = Topic.builder(NAME, Order.class)
                .codec(AvroCodecTest.v3Codec())
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<GenericRecord> v1 = Topic.builder(NAME, GenericRecord.class)
                .codec(AvroCodec.generic(AvroCodecTest.V1))
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<Order> v4 = Topic.builder(NAME, Order.class)
                .codec(AvroCodec.specific(
                        Order.class,
                        SchemaVersions.<Order>builder(4).build(),
                        Map.of(1, AvroCodecTest.V1, 2, AvroCodecTest.V2, 3, AvroCodecTest.V2)))
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Collector collector = new Collector(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
        try (Broker<Kafka> broker = Broker.connect(KafkaConfig.of(BOOTSTRAP))) {
            broker.topology().declare(v3);
            GenericData.Record old = new GenericData.Record(AvroCodecTest.V1);
            old.put("id", "o-1");
            old.put("cents", 500L);
            broker.publisher().publish(v1, old);
            broker.publisher().publish(v3, new Order("o-3", 900L, "USD", "web"));
            broker.publisher().publish(v4, new Order("o-4", 1L, "EUR", ""));
            var group = broker.consumerGroup();
            group.register(v3, () -> collector);
            group.start();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> collector.handled().size() == 2
                            && collector.unreadableDead().size() == 1);
            group.stop(Duration.ofSeconds(10));
        }
        assertThat(collector.handled())
                .containsExactlyInAnyOrder(
                        new Order("o-1", 500L, "EUR", "legacy-v1"), new Order("o-3", 900L, "USD", "web"));
        assertThat(collector.unreadableDead())
                .singleElement()
                .asString()
                .startsWith("decode-failed: avro(dev.shove.codec.avro.test.Order, v3): schema version 4 is newer"
                        + " than this consumer reads (up to 3)");
    }
}
