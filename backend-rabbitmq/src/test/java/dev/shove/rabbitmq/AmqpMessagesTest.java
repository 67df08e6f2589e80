package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.shove.ShoveHeaders;
import dev.shove.spi.OutboundMessage;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AmqpMessagesTest {

    @Test
    @DisplayName("any AMQP header value reads back as a string")
    void readsEveryTypeAsString() {
        Map<String, Object> headers = new HashMap<>();
        headers.put("long-string", LongStringHelper.asLongString("hello"));
        headers.put("int", 42);
        headers.put("long", 7L);
        headers.put("bool", true);
        headers.put("bytes", "raw".getBytes(StandardCharsets.UTF_8));
        headers.put("date", new Date(1_700_000_000_000L));
        headers.put("decimal", new BigDecimal("1.50"));
        headers.put("list", List.of(1, LongStringHelper.asLongString("a")));
        headers.put("nothing", null);
        assertThat(AmqpMessages.toStrings(headers))
                .containsEntry("long-string", "hello")
                .containsEntry("int", "42")
                .containsEntry("long", "7")
                .containsEntry("bool", "true")
                .containsEntry("bytes", "raw")
                .containsEntry("date", "1700000000000")
                .containsEntry("decimal", "1.50")
                .containsEntry("list", "[1, a]")
                .doesNotContainKey("nothing");
    }

    @Test
    @DisplayName("the broker's dead-letter bookkeeping of a hold hop is not passed on")
    void dropsBrokerDeathHeaders() {
        Map<String, Object> headers = new HashMap<>();
        headers.put("x-death", List.of(Map.of("count", 1L)));
        headers.put("x-first-death-queue", "orders-hold-5s");
        headers.put("x-last-death-reason", "expired");
        headers.put("x-death-note", "a user header that merely looks alike");
        assertThat(AmqpMessages.toStrings(headers)).containsOnlyKeys("x-death-note");
    }

    @Test
    @DisplayName("a quorum queue's x-delivery-count (returns so far) is the delivery count minus one, and is not a"
            + " header the engine sees or copies")
    void deliveryCount() {
        assertThat(AmqpMessages.deliveryCount(null, true)).isEqualTo(1);
        assertThat(AmqpMessages.deliveryCount(Map.of("k", "v"), true)).isEqualTo(1);
        assertThat(AmqpMessages.deliveryCount(Map.of("x-delivery-count", 0L), true))
                .as("arrived from a hold tier, never returned")
                .isEqualTo(1);
        assertThat(AmqpMessages.deliveryCount(Map.of("x-delivery-count", 2L), true))
                .isEqualTo(3);
        assertThat(AmqpMessages.deliveryCount(Map.of("x-delivery-count", 2), true))
                .isEqualTo(3);
        assertThat(AmqpMessages.deliveryCount(Map.of("x-delivery-count", 2L), false))
                .as("a classic queue keeps no count")
                .isZero();
        assertThat(AmqpMessages.toStrings(Map.of("x-delivery-count", 2L, "k", "v")))
                .containsOnlyKeys("k");
    }

    @Test
    @DisplayName("a published message is persistent, typed by the codec, carries every header and the message id")
    void publishProperties() {
        OutboundMessage message = new OutboundMessage(
                new byte[] {1}, Map.of(ShoveHeaders.MESSAGE_ID, "m-1", "tenant", "acme"), null, -1, "application/json");
        AMQP.BasicProperties props = AmqpMessages.forPublish(message);
        assertThat(props.getDeliveryMode()).isEqualTo(2);
        assertThat(props.getContentType()).isEqualTo("application/json");
        assertThat(props.getMessageId()).isEqualTo("m-1");
        assertThat(props.getTimestamp()).isNotNull();
        assertThat(props.getHeaders()).containsEntry("tenant", "acme").containsEntry(ShoveHeaders.MESSAGE_ID, "m-1");
    }

    @Test
    @DisplayName("a copy keeps the original's properties but not its expiration or user id, with the copy's headers")
    void copyProperties() {
        AMQP.BasicProperties original = new AMQP.BasicProperties.Builder()
                .contentType("text/plain")
                .contentEncoding("gzip")
                .correlationId("c-1")
                .replyTo("replies")
                .messageId("m-1")
                .timestamp(new Date(1_000))
                .type("order")
                .appId("shop")
                .priority(3)
                .expiration("60000")
                .userId("someone-else")
                .deliveryMode(1)
                .headers(Map.of("old", "header"))
                .build();
        AMQP.BasicProperties copy = AmqpMessages.forCopy(original, Map.of(ShoveHeaders.RETRY_COUNT, "1"));
        assertThat(copy.getContentType()).isEqualTo("text/plain");
        assertThat(copy.getContentEncoding()).isEqualTo("gzip");
        assertThat(copy.getCorrelationId()).isEqualTo("c-1");
        assertThat(copy.getReplyTo()).isEqualTo("replies");
        assertThat(copy.getMessageId()).isEqualTo("m-1");
        assertThat(copy.getTimestamp()).isEqualTo(new Date(1_000));
        assertThat(copy.getType()).isEqualTo("order");
        assertThat(copy.getAppId()).isEqualTo("shop");
        assertThat(copy.getPriority()).isEqualTo(3);
        assertThat(copy.getExpiration()).isNull();
        assertThat(copy.getUserId()).isNull();
        assertThat(copy.getDeliveryMode()).isEqualTo(2);
        assertThat(copy.getHeaders()).containsOnlyKeys(ShoveHeaders.RETRY_COUNT);
    }
}
