package dev.shove.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.shove.Broker;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.rabbitmq.RabbitMq;
import dev.shove.rabbitmq.RabbitMqConfig;
import io.cloudevents.CloudEventContext;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Binary mode on a real RabbitMQ follows the AMQP binding: the attributes are {@code cloudEvents:}-prefixed headers
 * (application properties) and {@code datacontenttype} is the message's {@code content-type} property, as a plain
 * amqp-client reader sees them; and a message a plain amqp-client publisher wrote that way reaches a shove handler.
 * {@code SHOVE_RABBITMQ_URI} points it at the broker (default {@code amqp://guest:guest@127.0.0.1:5672}); a missing
 * broker skips it, or fails it with {@code SHOVE_IT_REQUIRED=true}.
 */
class CloudEventsRabbitMqIT {
    record OrderPaid(String orderId, long cents) {}

    private static final String URI_ENV = "SHOVE_RABBITMQ_URI";
    private static final URI SOURCE = URI.create("/orders");

    private final String uri = BrokerAvailability.env(URI_ENV, "amqp://guest:guest@127.0.0.1:5672");
    private final String name = "it-ce-" + UUID.randomUUID().toString().substring(0, 8);
    private final Topic<OrderPaid> topic = Topic.builder(name, OrderPaid.class)
            .holdQueue(Duration.ofMillis(200))
            .dlq()
            .build();
    private final CloudEventTopic<OrderPaid> orders = CloudEventTopic.binary(topic)
            .type("com.acme.order.paid")
            .source(SOURCE)
            .build();
    private Broker<RabbitMq> broker;

    @BeforeAll
    static void requireBroker() {
        BrokerAvailability.require(
                "RabbitMQ",
                "rabbitmq",
                URI.create(BrokerAvailability.env(URI_ENV, "amqp://guest:guest@127.0.0.1:5672")),
                5672);
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (broker != null) {
            broker.close();
        }
        try (Connection connection = factory().newConnection("shove-it-ce-cleanup");
                Channel channel = connection.createChannel()) {
            for (String queue : List.of(name, name + "-hold-200ms", name + "-dlq")) {
                channel.queueDelete(queue);
            }
        }
    }

    private ConnectionFactory factory() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        return factory;
    }

    private void connect() {
        broker = Broker.connect(
                RabbitMqConfig.builder(uri).connectionName("shove-it-ce").build());
    }

    @Test
    @DisplayName("an event shove publishes carries cloudEvents: headers and its content type in the AMQP property")
    void shoveWritesTheAmqpBinding() throws Exception {
        connect();
        broker.topology().declare(topic);

        String id = CloudEventPublisher.of(broker)
                .publish(
                        orders,
                        new OrderPaid("o-1", 1299),
                        CloudEventOptions.builder().subject("o-1").build());

        try (Connection connection = factory().newConnection("shove-it-ce-reader");
                Channel channel = connection.createChannel()) {
            AtomicReference<GetResponse> got = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                got.set(channel.basicGet(name, true));
                return got.get() != null;
            });
            AMQP.BasicProperties properties = got.get().getProps();
            Map<String, String> headers = properties.getHeaders().entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> String.valueOf(e.getValue())));
            assertThat(headers)
                    .containsEntry("cloudEvents:specversion", "1.0")
                    .containsEntry("cloudEvents:id", id)
                    .containsEntry("cloudEvents:type", "com.acme.order.paid")
                    .containsEntry("cloudEvents:source", "/orders")
                    .containsEntry("cloudEvents:subject", "o-1")
                    .containsKey("cloudEvents:time")
                    .containsEntry(ShoveHeaders.MESSAGE_ID, id)
                    .doesNotContainKeys("ce_id", "ce-id", "content-type");
            assertThat(properties.getContentType()).isEqualTo("application/json");
            assertThat(properties.getMessageId()).isEqualTo(id);
            assertThat(new String(got.get().getBody(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"orderId\":\"o-1\",\"cents\":1299}");
        }
    }

    @Test
    @DisplayName("an event a plain AMQP producer wrote with cloudEvents: headers reaches a shove handler, typed")
    void amqpProducerToShove() throws Exception {
        connect();
        List<OrderPaid> data = new CopyOnWriteArrayList<>();
        List<CloudEventContext> events = new CopyOnWriteArrayList<>();
        List<Optional<String>> messageIds = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        orders.register(group, () -> (order, event, meta, ctx) -> {
            data.add(order);
            events.add(event);
            messageIds.add(meta.messageId());
            return Outcome.ack();
        });
        group.start();

        try (Connection connection = factory().newConnection("shove-it-ce-writer");
                Channel channel = connection.createChannel()) {
            AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                    .contentType("application/json")
                    .headers(Map.of(
                            "cloudEvents:specversion", "1.0",
                            "cloudEvents:id", "amqp-1",
                            "cloudEvents:type", "com.other.order.paid",
                            "cloudEvents:source", "urn:other:orders",
                            "cloudEvents:partner", "other"))
                    .build();
            channel.basicPublish(
                    "", name, properties, "{\"orderId\":\"o-5\",\"cents\":500}".getBytes(StandardCharsets.UTF_8));
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 1);
        assertThat(data).containsExactly(new OrderPaid("o-5", 500));
        CloudEventContext event = events.getFirst();
        assertThat(event.getId()).isEqualTo("amqp-1");
        assertThat(event.getType()).isEqualTo("com.other.order.paid");
        assertThat(event.getSource()).isEqualTo(URI.create("urn:other:orders"));
        assertThat(event.getExtension("partner")).isEqualTo("other");
        assertThat(event.getDataContentType()).isEqualTo("application/json");
        assertThat(messageIds).containsExactly(Optional.empty());
    }
}
