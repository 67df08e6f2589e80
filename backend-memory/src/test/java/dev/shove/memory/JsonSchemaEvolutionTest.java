package dev.shove.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Broker;
import dev.shove.Codec;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SchemaVersions;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("JSON schema evolution, end to end on the in-memory broker")
class JsonSchemaEvolutionTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    record OrderV1(String id, long cents) {}

    record OrderV2(String id, long cents, String currency) {}

    record Order(String id, long amountCents, String currency) {}

    // region versions
    static final SchemaVersions<JsonNode> VERSIONS = SchemaVersions.<JsonNode>builder(3)
            .upcaster(1, v1 -> ((ObjectNode) v1).put("currency", "EUR"))
            .upcaster(2, v2 -> {
                ObjectNode o = (ObjectNode) v2;
                o.set("amountCents", o.remove("cents"));
                return o;
            })
            .build();
    // endregion versions

    private static <M> Topic<M> topic(String name, Codec<M> codec) {
        return Topic.builder(name, codec)
                .holdQueue(Duration.ofMillis(100))
                .dlq()
                .build();
    }

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

    @Test
    @DisplayName("a consumer on version 3 reads messages written at 1 (no header) and 2 through the upcasters")
    void upcasts() {
        Topic<Order> v3 = topic("json-upcast", Codec.json(Order.class, VERSIONS));
        Topic<OrderV1> v1 = topic(v3.name(), Codec.json(OrderV1.class));
        Topic<OrderV2> v2 = topic(
                v3.name(),
                Codec.json(OrderV2.class, SchemaVersions.<JsonNode>builder(2).build()));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            List<Order> handled = consume(broker, v3);
            broker.publisher().publish(v1, new OrderV1("o-1", 500));
            broker.publisher().publish(v2, new OrderV2("o-2", 700, "GBP"));
            broker.publisher().publish(v3, new Order("o-3", 900, "USD"));
            await().atMost(WAIT).until(() -> handled.size() == 3);
            assertThat(handled)
                    .containsExactlyInAnyOrder(
                            new Order("o-1", 500, "EUR"), new Order("o-2", 700, "GBP"), new Order("o-3", 900, "USD"));
        }
    }

    @Test
    @DisplayName("a message of a newer version is dead-lettered with the version named, the handler not called")
    void newerVersionRefused() {
        Topic<Order> v3 = topic("json-too-new", Codec.json(Order.class, VERSIONS));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            List<Order> handled = consume(broker, v3);
            probe.inject(
                    v3,
                    "{\"id\":\"o-5\",\"amountCents\":1,\"currency\":\"EUR\"}".getBytes(StandardCharsets.UTF_8),
                    Map.of(ShoveHeaders.SCHEMA_VERSION, "5"));
            await().atMost(WAIT).until(() -> probe.rawDeadLetters(v3).size() == 1);
            assertThat(probe.rawDeadLetters(v3).getFirst().headers().get(ShoveHeaders.DEATH_REASON))
                    .isEqualTo("decode-failed: json(" + Order.class.getName() + ", v3): schema version 5 is newer"
                            + " than this consumer reads (up to 3): deploy a consumer that knows version 5, then"
                            + " replay the message from the dead-letter queue");
            assertThat(handled).isEmpty();
        }
    }

    @Test
    @DisplayName("a retried message keeps its schema version, so it is upcast again on every attempt")
    void retryKeepsTheVersion() {
        Topic<Order> v3 = topic("json-retry", Codec.json(Order.class, VERSIONS));
        Topic<OrderV1> v1 = topic(
                v3.name(),
                Codec.json(OrderV1.class, SchemaVersions.<JsonNode>builder(1).build()));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            List<String> seen = new CopyOnWriteArrayList<>();
            var group = broker.consumerGroup();
            group.register(v3, () -> (m, meta, c) -> {
                seen.add(m.currency() + "@" + meta.retryCount() + " v"
                        + meta.header(ShoveHeaders.SCHEMA_VERSION).orElse("?"));
                return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
            });
            group.start();
            broker.publisher().publish(v1, new OrderV1("o-1", 500));
            await().atMost(WAIT).until(() -> seen.size() == 2);
            assertThat(seen).containsExactly("EUR@0 v1", "EUR@1 v1");
        }
    }
}
