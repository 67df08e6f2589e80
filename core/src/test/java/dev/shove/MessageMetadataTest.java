package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("MessageMetadata")
class MessageMetadataTest {

    private static MessageMetadata withRetryAndCount(int retryCount, OptionalInt deliveryCount) {
        return new MessageMetadata(
                "orders",
                retryCount,
                "tag-1",
                false,
                deliveryCount,
                Map.of(),
                OptionalInt.empty(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                Optional.empty());
    }

    @Test
    @DisplayName("of(...) describes a first delivery with nothing else known")
    void firstDelivery() {
        MessageMetadata m = MessageMetadata.of("orders", "tag-1", Map.of("trace-id", "t"));

        assertThat(m.topic()).isEqualTo("orders");
        assertThat(m.retryCount()).isZero();
        assertThat(m.deliveryId()).isEqualTo("tag-1");
        assertThat(m.redelivered()).isFalse();
        assertThat(m.deliveryCount()).isEmpty();
        assertThat(m.partition()).isEmpty();
        assertThat(m.offset()).isEmpty();
        assertThat(m.timestampMs()).isEmpty();
        assertThat(m.headers()).containsExactly(Map.entry("trace-id", "t"));
    }

    @Test
    @DisplayName("a negative retry count is refused")
    void negativeRetryCount() {
        assertThatThrownBy(() -> withRetryAndCount(-1, OptionalInt.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retryCount must not be negative, was -1");
    }

    @Test
    @DisplayName("a known delivery count is at least 1, never 0")
    void deliveryCountAtLeastOne() {
        assertThatThrownBy(() -> withRetryAndCount(0, OptionalInt.of(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deliveryCount is at least 1");
        assertThat(withRetryAndCount(0, OptionalInt.of(1)).deliveryCount()).hasValue(1);
    }

    @Test
    @DisplayName("headers are copied: later changes to the caller's map do not show, and they cannot be changed")
    void headersCopied() {
        Map<String, String> headers = new HashMap<>(Map.of("a", "1"));
        MessageMetadata m = MessageMetadata.of("orders", "tag-1", headers);

        headers.put("b", "2");

        assertThat(m.headers()).containsOnlyKeys("a");
        assertThatThrownBy(() -> m.headers().put("c", "3")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("header(name) and messageId() read the headers")
    void headerAccess() {
        MessageMetadata m =
                MessageMetadata.of("orders", "tag-1", Map.of(ShoveHeaders.MESSAGE_ID, "id-7", "trace-id", "t"));

        assertThat(m.header("trace-id")).contains("t");
        assertThat(m.header("missing")).isEmpty();
        assertThat(m.messageId()).contains("id-7");
        assertThat(MessageMetadata.of("orders", "tag-1", Map.of()).messageId()).isEmpty();
    }

    @Test
    @DisplayName("null fields are refused")
    void nulls() {
        assertThatThrownBy(() -> MessageMetadata.of(null, "tag", Map.of())).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> MessageMetadata.of("orders", null, Map.of())).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> MessageMetadata.of("orders", "tag", null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("DeadMessageMetadata keeps the message's metadata, reason, original queue and death count")
    void deadMetadata() {
        MessageMetadata m = MessageMetadata.of("orders-dlq", "tag-9", Map.of());
        DeadMessageMetadata dead = new DeadMessageMetadata(m, "rejected: bad", "orders", 2);

        assertThat(dead.message()).isSameAs(m);
        assertThat(dead.reason()).isEqualTo("rejected: bad");
        assertThat(dead.originalQueue()).isEqualTo("orders");
        assertThat(dead.deathCount()).isEqualTo(2);
        assertThatThrownBy(() -> new DeadMessageMetadata(m, null, "orders", 1))
                .isInstanceOf(NullPointerException.class);
    }
}
