package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.shove.Broker;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.rabbitmq.RabbitMq;
import dev.shove.rabbitmq.RabbitMqConfig;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The document tells the truth about RabbitMQ: every queue and exchange its AMQP bindings name is what {@code
 * declare} created, with the arguments the document gives (hold tiers' TTL and return route, single active consumer
 * on shards), read back from the management API. {@code SHOVE_RABBITMQ_URI} and {@code SHOVE_RABBITMQ_MANAGEMENT}
 * point it at the broker (defaults {@code amqp://guest:guest@127.0.0.1:5672} and {@code http://127.0.0.1:15672}); a
 * missing broker skips it, or fails it with {@code SHOVE_IT_REQUIRED=true}.
 */
class RabbitMqLayoutIT {
    record Order(String id) {}

    private static final String URI_ENV = "SHOVE_RABBITMQ_URI";
    private static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672";

    private final String uri = BrokerAvailability.env(URI_ENV, DEFAULT_URI);
    private final String management = BrokerAvailability.env("SHOVE_RABBITMQ_MANAGEMENT", "http://127.0.0.1:15672");
    private final String prefix = "it-asyncapi-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void requireBroker() {
        BrokerAvailability.require(
                "RabbitMQ", "rabbitmq", URI.create(BrokerAvailability.env(URI_ENV, DEFAULT_URI)), 5672);
    }

    @AfterEach
    void cleanUp() throws Exception {
        // everything of this test's prefix, also what a failed assertion left unchecked
        try (Connection connection = factory().newConnection("shove-it-asyncapi-cleanup");
                Channel channel = connection.createChannel()) {
            for (JsonNode queue : get("/api/queues/%2F")) {
                if (queue.path("name").asText().startsWith(prefix)) {
                    channel.queueDelete(queue.path("name").asText());
                }
            }
            for (JsonNode exchange : get("/api/exchanges/%2F")) {
                if (exchange.path("name").asText().startsWith(prefix)) {
                    channel.exchangeDelete(exchange.path("name").asText());
                }
            }
        }
    }

    @Test
    @DisplayName("every queue and exchange the document names exists after declare, with the arguments it gives")
    void documentMatchesBroker() throws Exception {
        Topic<Order> plain = Topic.builder(prefix + "-orders", Order.class)
                .holdQueue(Duration.ofMillis(500))
                .holdQueue(Duration.ofSeconds(5))
                .dlq()
                .build();
        Topic<Order> sequenced = Topic.builder(prefix + "-events", Order.class)
                .holdQueue(Duration.ofSeconds(2))
                .dlq()
                .sequenced(SequenceFailure.FAIL_ALL, Order::id)
                .routingShards(3)
                .build();
        Topic<Order> broadcast =
                Topic.builder(prefix + "-news", Order.class).broadcast().build();
        try (Broker<RabbitMq> broker =
                Broker.connect(RabbitMqConfig.builder(uri).noManagementApi().build())) {
            broker.topology().declare(plain);
            broker.topology().declare(sequenced);
            broker.topology().declare(broadcast);
        }
        JsonNode doc = Documents.valid(AsyncApi.builder()
                .title("rabbit")
                .version("1.0.0")
                .server("rabbit", uri)
                .topics(plain, sequenced, broadcast));

        int checked = 0;
        for (Map.Entry<String, JsonNode> channel : doc.path("channels").properties()) {
            JsonNode amqp = channel.getValue().at("/bindings/amqp");
            assertThat(amqp.isMissingNode())
                    .as("amqp binding of %s", channel.getKey())
                    .isFalse();
            if (amqp.path("is").asText().equals("routingKey")) {
                String exchange = amqp.at("/exchange/name").asText();
                JsonNode found = get("/api/exchanges/%2F/" + encode(exchange));
                assertThat(found.path("type").asText())
                        .isEqualTo(amqp.at("/exchange/type").asText());
                assertThat(found.path("durable").asBoolean())
                        .isEqualTo(amqp.at("/exchange/durable").asBoolean());
                checked++;
                continue;
            }
            int shards = channel.getValue().at("/parameters/shard/enum").size();
            for (int shard = 0; shard < Math.max(1, shards); shard++) {
                String queue = amqp.at("/queue/name").asText().replace("{shard}", Integer.toString(shard));
                JsonNode found = get("/api/queues/%2F/" + encode(queue));
                assertThat(found.path("durable").asBoolean()).as(queue).isTrue();
                JsonNode expected = amqp.path("x-shove-queue-arguments");
                for (Map.Entry<String, JsonNode> argument : expected.properties()) {
                    String value = argument.getValue().asText().replace("{shard}", Integer.toString(shard));
                    assertThat(found.at("/arguments/" + argument.getKey()).asText())
                            .as("%s of %s", argument.getKey(), queue)
                            .isEqualTo(value);
                }
                assertThat(found.path("arguments").size())
                        .as("arguments of %s", queue)
                        .isEqualTo(expected.size());
                checked++;
            }
        }
        // 4 plain queues; 3 shards, 3 shard holds and a dead-letter queue; one fanout exchange
        assertThat(checked).isEqualTo(12);
    }

    private ConnectionFactory factory() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        return factory;
    }

    private JsonNode get(String path) throws Exception {
        URI amqp = URI.create(uri);
        String credentials = amqp.getUserInfo() == null ? "guest:guest" : amqp.getUserInfo();
        // HttpURLConnection rather than java.net.http, which this module does not read
        HttpURLConnection http =
                (HttpURLConnection) URI.create(management + path).toURL().openConnection();
        http.setRequestProperty(
                "Authorization",
                "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        http.setConnectTimeout(10_000);
        http.setReadTimeout(10_000);
        try {
            assertThat(http.getResponseCode()).as("GET %s", path).isEqualTo(200);
            try (var in = http.getInputStream()) {
                return new ObjectMapper().readTree(in);
            }
        } finally {
            http.disconnect();
        }
    }

    private static String encode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
