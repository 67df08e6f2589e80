package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.shove.Broker;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.kafka.Kafka;
import dev.shove.kafka.KafkaConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The document tells the truth about Kafka: the topics its Kafka bindings name are exactly the topics {@code declare}
 * created, with the partitions the document gives (a sequenced topic: one per shard). {@code SHOVE_KAFKA_BOOTSTRAP}
 * points it at the broker (default {@code 127.0.0.1:9092}); a missing broker skips it, or fails it with {@code
 * SHOVE_IT_REQUIRED=true}.
 */
class KafkaLayoutIT {
    record Order(String id) {}

    private static final String BOOTSTRAP_ENV = "SHOVE_KAFKA_BOOTSTRAP";

    private final String bootstrap = BrokerAvailability.env(BOOTSTRAP_ENV, "127.0.0.1:9092");
    private final String prefix = "it-asyncapi-" + UUID.randomUUID().toString().substring(0, 8);
    private final Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));

    @BeforeAll
    static void requireBroker() {
        String first = BrokerAvailability.env(BOOTSTRAP_ENV, "127.0.0.1:9092").split(",")[0];
        int colon = first.lastIndexOf(':');
        BrokerAvailability.require(
                "Kafka", "kafka", first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
    }

    @AfterEach
    void cleanUp() throws Exception {
        try (admin) {
            Set<String> ours = ours();
            if (!ours.isEmpty()) {
                admin.deleteTopics(ours).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    @DisplayName("the topics the document names are the topics declare created, with its partitions")
    void documentMatchesBroker() throws Exception {
        Topic<Order> plain = Topic.builder(prefix + "-orders", Order.class)
                .holdQueue(Duration.ofMillis(500))
                .holdQueue(Duration.ofSeconds(5))
                .dlq()
                .build();
        Topic<Order> sequenced = Topic.builder(prefix + "-events", Order.class)
                .holdQueue(Duration.ofSeconds(2))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Order::id)
                .routingShards(3)
                .build();
        Topic<Order> broadcast =
                Topic.builder(prefix + "-news", Order.class).broadcast().build();
        try (Broker<Kafka> broker =
                Broker.connect(KafkaConfig.builder(bootstrap).partitions(2).build())) {
            broker.topology().declare(plain);
            broker.topology().declare(sequenced);
            broker.topology().declare(broadcast);
        }
        JsonNode doc = Documents.valid(AsyncApi.builder()
                .title("kafka")
                .version("1.0.0")
                .server("kafka", "kafka://" + bootstrap + "?partitions=2")
                .topics(plain, sequenced, broadcast));

        Map<String, Integer> documented = new HashMap<>();
        for (Map.Entry<String, JsonNode> channel : doc.path("channels").properties()) {
            JsonNode kafka = channel.getValue().at("/bindings/kafka");
            String topic = kafka.has("topic")
                    ? kafka.path("topic").asText()
                    : channel.getValue().path("address").asText();
            documented.put(topic, kafka.path("partitions").asInt());
        }
        Map<String, Integer> onBroker =
                admin.describeTopics(ours()).allTopicNames().get(30, TimeUnit.SECONDS).entrySet().stream()
                        .collect(Collectors.toMap(
                                Map.Entry::getKey,
                                e -> e.getValue().partitions().size()));
        assertThat(onBroker).isEqualTo(documented);
        assertThat(documented)
                .containsEntry(prefix + "-events", 3)
                .containsEntry(prefix + "-orders-hold-500ms", 2)
                .hasSize(List.of("orders", "hold 500ms", "hold 5s", "dlq", "events", "events dlq", "news")
                        .size());
    }

    private Set<String> ours() throws Exception {
        return admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                .filter(name -> name.startsWith(prefix))
                .collect(Collectors.toSet());
    }
}
