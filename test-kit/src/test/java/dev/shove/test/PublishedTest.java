package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.CodecException;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadLetterOptions;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@ShoveTest
class PublishedTest {
    record Receipt(String orderId) {}

    private static final Topic<Order> ORDERS = Topic.builder("orders", Order.class)
            .holdQueue(Duration.ofMillis(20))
            .dlq()
            .build();
    private static final Topic<Receipt> RECEIPTS = Topic.builder("receipts", Receipt.class)
            .holdQueue(Duration.ofMillis(20))
            .build();

    @Test
    @DisplayName(
            "what the application published is recorded in order, decoded with the topic's codec, with its headers")
    void publishedMessagesWithHeaders(ShoveKit kit) {
        kit.broker().topology().declare(ORDERS);
        kit.publisher().publish(ORDERS, new Order("o-1", 1));
        kit.publisher().publishWithHeaders(ORDERS, new Order("o-2", 2), Map.of("tenant", "acme"));

        assertThat(kit.publishedMessages(ORDERS)).containsExactly(new Order("o-1", 1), new Order("o-2", 2));
        Published<Order> second = kit.published(ORDERS).get(1);
        assertThat(second.header("tenant")).contains("acme");
        assertThat(second.messageId()).isPresent();
        assertThat(second.headers()).containsKey(ShoveHeaders.MESSAGE_ID);
        assertThat(kit.published(RECEIPTS)).isEmpty();
    }

    @Test
    @DisplayName("a handler's replies are recorded as published to the reply topic")
    void repliesAreRecorded(ShoveKit kit) {
        kit.broker().topology().declare(RECEIPTS);
        kit.consumerGroup()
                .register(ORDERS, () -> (order, meta, ctx) -> Outcome.reply(RECEIPTS, new Receipt(order.id())))
                .start();
        kit.publisher().publish(ORDERS, new Order("o-3", 3));
        kit.awaitIdle(ORDERS);

        assertThat(kit.publishedMessages(RECEIPTS)).containsExactly(new Receipt("o-3"));
        ShoveAssertions.assertThat(kit.journey(ORDERS, order -> order.id().equals("o-3")))
                .wasAcknowledged();
    }

    @Test
    @DisplayName("raw bytes injected with chosen headers reach the topic and are recorded; they decode as they can")
    void injectedBytes(ShoveKit kit) {
        kit.inject(ORDERS, "{\"id\":\"o-4\",\"cents\":4}".getBytes(StandardCharsets.UTF_8), Map.of("origin", "legacy"));
        kit.inject(ORDERS, "not json".getBytes(StandardCharsets.UTF_8), Map.of());

        assertThat(kit.published(ORDERS)).hasSize(2);
        Published<Order> readable = kit.published(ORDERS).getFirst();
        assertThat(readable.message()).isEqualTo(new Order("o-4", 4));
        assertThat(readable.header("origin")).contains("legacy");
        assertThat(readable.messageId()).isEmpty();
        assertThatThrownBy(() -> kit.published(ORDERS).get(1).message())
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("a message published to topic 'orders' cannot be decoded");
    }

    @Test
    @DisplayName(
            "a dead letter replayed with the dead-letter tools is recorded as published again, with its message id")
    void replayIsRecorded(ShoveKit kit) {
        kit.consumerGroup()
                .register(
                        ORDERS,
                        ConsumerGroupConfig.builder().noDeadLetterConsumer().build(),
                        () -> (order, meta, ctx) -> Outcome.reject("later"))
                .start();
        kit.publisher().publish(ORDERS, new Order("o-5", 5));
        kit.awaitIdle(ORDERS);
        String id = kit.published(ORDERS).getFirst().messageId().orElseThrow();

        kit.broker().deadLetters(ORDERS).replay(DeadLetterOptions.ofDefaults());
        kit.awaitIdle(ORDERS);

        assertThat(kit.published(ORDERS))
                .extracting(p -> p.messageId().orElseThrow())
                .containsExactly(id, id);
        assertThat(kit.published(ORDERS).get(1).header(ShoveHeaders.REPLAY_COUNT))
                .contains("1");
    }

    @Test
    @DisplayName("clear() forgets what was published and every journey")
    void clearForgets(ShoveKit kit) {
        kit.broker().topology().declare(ORDERS);
        kit.publisher().publish(ORDERS, new Order("o-6", 6));

        kit.clear();

        assertThat(kit.published(ORDERS)).isEmpty();
        assertThat(kit.journeys(ORDERS)).isEmpty();
    }
}
