package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kit on a real RabbitMQ, chosen the way an application's CI would choose it: through the broker URI system
 * property ({@code SHOVE_RABBITMQ_URI}, default {@code amqp://guest:guest@127.0.0.1:5672}). Publishes and replies go
 * through the transport's publish (RabbitMQ settles without transactions by default), retries through its TTL hold
 * queue, and the dead letter is read back with the dead-letter tools. A missing broker skips it, or fails it with
 * {@code SHOVE_IT_REQUIRED=true}.
 */
@ShoveTest
class ShoveKitRabbitMqIT {
    record Order(String id) {}

    record Receipt(String orderId) {}

    private static final String URI_ENV = "SHOVE_RABBITMQ_URI";
    private static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672";
    private static final Duration HOLD = Duration.ofMillis(200);
    private static final String NAME = "it-kit-" + UUID.randomUUID().toString().substring(0, 8);
    private static final Topic<Order> ORDERS =
            Topic.builder(NAME, Order.class).holdQueue(HOLD).dlq().build();
    private static final Topic<Receipt> RECEIPTS =
            Topic.builder(NAME + "-receipts", Receipt.class).holdQueue(HOLD).build();

    @BeforeAll
    static void pointTheKitAtRabbitMq() {
        String uri = BrokerAvailability.env(URI_ENV, DEFAULT_URI);
        BrokerAvailability.require("RabbitMQ", "rabbitmq", URI.create(uri), 5672);
        System.setProperty(ShoveTest.BROKER_URI_PROPERTY, uri);
    }

    @AfterAll
    static void cleanUp() throws Exception {
        System.clearProperty(ShoveTest.BROKER_URI_PROPERTY);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(BrokerAvailability.env(URI_ENV, DEFAULT_URI));
        try (Connection connection = factory.newConnection("shove-it-kit-cleanup");
                Channel channel = connection.createChannel()) {
            for (String queue : List.of(
                    NAME, NAME + "-hold-200ms", NAME + "-dlq", NAME + "-receipts", NAME + "-receipts-hold-200ms")) {
                channel.queueDelete(queue);
            }
        }
    }

    @Test
    @DisplayName("on RabbitMQ, a message failing twice is retried once through the hold queue, then dead-lettered")
    void retriedThenDeadLettered(ShoveKit kit) {
        assertThat(kit.source()).isEqualTo(ShoveKit.Source.URI);
        assertThat(kit.broker().backendName()).isEqualTo("rabbitmq");
        assertThat(kit.description()).doesNotContain("guest:guest");

        kit.consumerGroup()
                .register(
                        ORDERS,
                        ConsumerGroupConfig.builder()
                                .maxRetries(1)
                                .noDeadLetterConsumer()
                                .build(),
                        () -> (order, meta, ctx) -> Outcome.retry())
                .start();
        kit.publisher().publish(ORDERS, new Order("o-1"));
        kit.awaitIdle(ORDERS);

        Journey<Order> journey = kit.journey(ORDERS, order -> order.id().equals("o-1"));
        ShoveAssertions.assertThat(journey).wasHandled(2).wasRetried(1).wasDeadLettered("max-retries-exceeded");
        // found with the dead-letter tools where the backend has them; until then the journey says it cannot look
        journey.deadLetter()
                .ifPresentOrElse(
                        letter -> assertThat(letter.message()).contains(new Order("o-1")),
                        () -> assertThat(journey.steps())
                                .last()
                                .asString()
                                .startsWith("the dead-letter tools cannot read '" + NAME + "-dlq'"));
    }

    @Test
    @DisplayName("on RabbitMQ, a handler's reply is recorded as published, and the request is acknowledged")
    void replyRecorded(ShoveKit kit) {
        kit.broker().topology().declare(RECEIPTS);
        AtomicInteger calls = new AtomicInteger();
        kit.consumerGroup()
                .register(
                        ORDERS,
                        ConsumerGroupConfig.builder().noDeadLetterConsumer().build(),
                        () -> (order, meta, ctx) -> calls.incrementAndGet() == 1
                                ? Outcome.retry()
                                : Outcome.reply(RECEIPTS, new Receipt(order.id())))
                .start();
        kit.publisher().publish(ORDERS, new Order("o-2"));
        kit.awaitIdle(ORDERS);

        assertThat(kit.publishedMessages(RECEIPTS)).containsExactly(new Receipt("o-2"));
        ShoveAssertions.assertThat(kit.journey(ORDERS, order -> order.id().equals("o-2")))
                .wasRetried(1)
                .wasAcknowledged();
    }
}
