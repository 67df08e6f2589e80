package dev.shove.codec.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SchemaVersions;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.codec.protobuf.test.Order;
import dev.shove.codec.protobuf.test.OrderV1;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ProtobufCodec on the in-memory broker")
class ProtobufCodecTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    // region versions
    /**
     * Version 1 had id and cents; version 2 added currency (EUR before); version 3 added amount, a decimal string, and
     * deprecated cents.
     */
    @SuppressWarnings("deprecation") // the upcaster reads the field that version 3 deprecated
    static final SchemaVersions<Order> VERSIONS = SchemaVersions.<Order>builder(3)
            .upcaster(1, v1 -> v1.toBuilder().setCurrency("EUR").build())
            .upcaster(
                    2,
                    v2 -> v2.toBuilder()
                            .setAmount(BigDecimal.valueOf(v2.getCents(), 2).toPlainString())
                            .clearCents()
                            .build())
            .build();
    // endregion versions

    // region topic
    private static Topic<Order> orders(String name, ProtobufCodec<Order> codec) {
        return Topic.builder(name, Order.class)
                .codec(codec)
                .holdQueue(Duration.ofMillis(100))
                .dlq()
                .build();
    }
    // endregion topic

    /** Runs a consumer of {@code topic} that collects what it handles; dead letters stay in the DLQ. */
    private static List<Order> consume(Broker<InMemory> broker, Topic<Order> topic) {
        List<Order> handled = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(
                topic, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                    handled.add(m);
                    return Outcome.ack();
                });
        group.start();
        return handled;
    }

    private static String deathReason(InMemoryProbe probe, Topic<?> topic) {
        await().atMost(WAIT).until(() -> probe.rawDeadLetters(topic).size() == 1);
        return probe.rawDeadLetters(topic).getFirst().headers().get(ShoveHeaders.DEATH_REASON);
    }

    @Test
    @DisplayName("a message published on a Protobuf topic reaches the handler equal to itself")
    void roundTrip() {
        Topic<Order> topic = orders("pb-round-trip", ProtobufCodec.of(Order.class));
        Order order = Order.newBuilder()
                .setId("o-1")
                .setCurrency("USD")
                .setAmount("12.99")
                .build();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            List<Order> handled = consume(broker, topic);
            broker.publisher().publish(topic, order);
            await().atMost(WAIT).until(() -> handled.size() == 1);
            assertThat(handled).containsExactly(order);
        }
    }

    @Test
    @DisplayName("the codec names its message, its content type and its Java type")
    void describesItself() {
        ProtobufCodec<Order> codec = ProtobufCodec.of(Order.class, VERSIONS);
        assertThat(codec.name()).isEqualTo("protobuf(shove.test.Order, v3)");
        assertThat(ProtobufCodec.of(Order.class).name()).isEqualTo("protobuf(shove.test.Order)");
        assertThat(codec.contentType()).isEqualTo("application/x-protobuf");
        assertThat(codec.messageType()).hasValue(Order.class);
        assertThat(codec.descriptor().getFullName()).isEqualTo("shove.test.Order");
    }

    @Test
    @DisplayName("bytes that are not a Protobuf message are dead-lettered as a decode failure, the handler not called")
    void malformed() {
        Topic<Order> topic = orders("pb-malformed", ProtobufCodec.of(Order.class));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            List<Order> handled = consume(broker, topic);
            // field 1, length-delimited, says 100 bytes follow; 2 do
            probe.inject(topic, new byte[] {0x0a, 100, 'o', '-'}, Map.of());
            assertThat(deathReason(probe, topic))
                    .startsWith("decode-failed: protobuf(shove.test.Order): While parsing a protocol message, the input"
                            + " ended unexpectedly");
            assertThat(handled).isEmpty();
        }
    }

    @Test
    @DisplayName("a consumer on version 3 reads messages written at 1 and 2 through the upcasters, and its own")
    void upcasts() {
        Topic<Order> v3 = orders("pb-upcast", ProtobufCodec.of(Order.class, VERSIONS));
        // the old producers: version 1 wrote its own message class and no version header; version 2 wrote Order
        Topic<OrderV1> v1 = Topic.builder(v3.name(), OrderV1.class)
                .codec(ProtobufCodec.of(OrderV1.class))
                .holdQueue(Duration.ofMillis(100))
                .dlq()
                .build();
        Topic<Order> v2 = orders(
                v3.name(),
                ProtobufCodec.of(Order.class, SchemaVersions.<Order>builder(2).build()));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            List<Order> handled = consume(broker, v3);
            broker.publisher()
                    .publish(v1, OrderV1.newBuilder().setId("o-1").setCents(500).build());
            @SuppressWarnings("deprecation")
            Order atTwo = Order.newBuilder()
                    .setId("o-2")
                    .setCents(1299)
                    .setCurrency("GBP")
                    .build();
            broker.publisher().publish(v2, atTwo);
            Order atThree = Order.newBuilder()
                    .setId("o-3")
                    .setCurrency("USD")
                    .setAmount("7.00")
                    .build();
            broker.publisher().publish(v3, atThree);
            await().atMost(WAIT).until(() -> handled.size() == 3);
            assertThat(handled)
                    .containsExactlyInAnyOrder(
                            Order.newBuilder()
                                    .setId("o-1")
                                    .setCurrency("EUR")
                                    .setAmount("5.00")
                                    .build(),
                            Order.newBuilder()
                                    .setId("o-2")
                                    .setCurrency("GBP")
                                    .setAmount("12.99")
                                    .build(),
                            atThree);
        }
    }

    @Test
    @DisplayName("a message of a version newer than the consumer's is dead-lettered with that version named")
    void newerVersionRefused() {
        Topic<Order> v3 = orders("pb-too-new", ProtobufCodec.of(Order.class, VERSIONS));
        Topic<Order> v4 = orders(
                v3.name(),
                ProtobufCodec.of(Order.class, SchemaVersions.<Order>builder(4).build()));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            List<Order> handled = consume(broker, v3);
            broker.publisher().publish(v4, Order.newBuilder().setId("o-4").build());
            assertThat(deathReason(probe, v3))
                    .isEqualTo("decode-failed: protobuf(shove.test.Order, v3): schema version 4 is newer than this"
                            + " consumer reads (up to 3): deploy a consumer that knows version 4, then replay the"
                            + " message from the dead-letter queue");
            assertThat(probe.rawDeadLetters(v3).getFirst().headers()).containsEntry(ShoveHeaders.SCHEMA_VERSION, "4");
            assertThat(handled).isEmpty();
        }
    }

    @Test
    @DisplayName("a versioned codec writes its version on every message")
    void writesTheVersion() {
        Topic<Order> topic = orders("pb-header", ProtobufCodec.of(Order.class, VERSIONS));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
            var group = broker.consumerGroup();
            group.register(topic, () -> (m, meta, c) -> {
                headers.add(meta.headers());
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, Order.newBuilder().setId("o").build());
            await().atMost(WAIT).until(() -> headers.size() == 1);
            assertThat(headers.getFirst()).containsEntry(ShoveHeaders.SCHEMA_VERSION, "3");
        }
    }

    @Test
    @DisplayName("a class that protoc did not generate is refused with its name")
    void notGenerated() {
        assertThatThrownBy(() -> ProtobufCodec.of(com.google.protobuf.Message.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "com.google.protobuf.Message is not a Protobuf message class generated by" + " protoc");
    }

    @Test
    @DisplayName("its payload schema is the .proto of the message's file, rendered from the descriptor")
    void payloadSchema() {
        var schema = ProtobufCodec.of(Order.class).payloadSchema().orElseThrow();
        assertThat(schema.format()).isEqualTo("application/vnd.google.protobuf;version=3");
        assertThat(schema.document()).isEqualTo("""
                        syntax = "proto3";

                        package shove.test;

                        message Order {
                          string id = 1;
                          int64 cents = 2 [deprecated = true];
                          string currency = 3;
                          string amount = 4;
                        }

                        message OrderV1 {
                          string id = 1;
                          int64 cents = 2;
                        }
                        """);
    }
}
