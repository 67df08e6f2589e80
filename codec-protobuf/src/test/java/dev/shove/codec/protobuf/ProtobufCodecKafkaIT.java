package dev.shove.codec.protobuf;

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
import dev.shove.codec.protobuf.test.Order;
import dev.shove.codec.protobuf.test.OrderV1;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.kafka.Kafka;
import dev.shove.kafka.KafkaConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ProtobufCodec on Kafka")
class ProtobufCodecKafkaIT {
    private static final String BOOTSTRAP = BrokerAvailability.env("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
    private static final String NAME =
            "codec-pb-" + UUID.randomUUID().toString().substring(0, 8);

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
    @DisplayName(
            "a version 3 consumer reads versions 1 and 3 upcast, and dead-letters version 4 with the version named")
    void versionsOverKafka() {
        Topic<Order> v3 = Topic.builder(NAME, Order.class)
                .codec(ProtobufCodec.of(Order.class, ProtobufCodecTest.VERSIONS))
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<OrderV1> v1 = Topic.builder(NAME, OrderV1.class)
                .codec(ProtobufCodec.of(OrderV1.class))
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<Order> v4 = Topic.builder(NAME, Order.class)
                .codec(ProtobufCodec.of(
                        Order.class, SchemaVersions.<Order>builder(4).build()))
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Collector collector = new Collector(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
        try (Broker<Kafka> broker = Broker.connect(KafkaConfig.of(BOOTSTRAP))) {
            broker.topology().declare(v3);
            broker.publisher()
                    .publish(v1, OrderV1.newBuilder().setId("o-1").setCents(500).build());
            Order atThree = Order.newBuilder()
                    .setId("o-3")
                    .setCurrency("USD")
                    .setAmount("7.00")
                    .build();
            broker.publisher().publish(v3, atThree);
            broker.publisher().publish(v4, Order.newBuilder().setId("o-4").build());
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
                        Order.newBuilder()
                                .setId("o-1")
                                .setCurrency("EUR")
                                .setAmount("5.00")
                                .build(),
                        Order.newBuilder()
                                .setId("o-3")
                                .setCurrency("USD")
                                .setAmount("7.00")
                                .build());
        assertThat(collector.unreadableDead())
                .singleElement()
                .asString()
                .startsWith("decode-failed: protobuf(shove.test.Order, v3): schema version 4 is newer than this"
                        + " consumer reads (up to 3)");
    }
}
