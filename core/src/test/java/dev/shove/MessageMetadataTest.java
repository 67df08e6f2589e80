package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.spi.Delivery;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
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

    /** A delivery in a log that counts how often its coordinates are read. */
    private static final class CountingDelivery implements Delivery {
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public byte[] payload() {
            return new byte[0];
        }

        @Override
        public Map<String, String> headers() {
            return Map.of("a", "1");
        }

        @Override
        public String deliveryId() {
            reads.incrementAndGet();
            return "orders#4";
        }

        @Override
        public String queue() {
            return "orders";
        }

        @Override
        public long offset() {
            reads.incrementAndGet();
            return 4;
        }

        @Override
        public Position position() {
            reads.incrementAndGet();
            return new Position.Captured("orders", -1, 4);
        }
    }

    @Test
    @DisplayName("the metadata of a delivery reads the delivery's id, offset and position only when asked, the id once")
    void ofDeliveryReadsCoordinatesWhenAsked() {
        CountingDelivery delivery = new CountingDelivery();
        MessageMetadata m = MessageMetadata.ofDelivery(
                "orders", 1, delivery, OptionalInt.of(1), OptionalInt.empty(), OptionalLong.of(5));

        assertThat(delivery.reads).hasValue(0);
        assertThat(m.deliveryId()).isEqualTo("orders#4");
        assertThat(m.deliveryId()).isEqualTo("orders#4");
        assertThat(delivery.reads).hasValue(1);
        assertThat(m.offset()).hasValue(4);
        assertThat(m.position()).contains(new Position.Captured("orders", -1, 4));
        assertThat(m.headers()).containsExactly(Map.entry("a", "1"));
        assertThat(m.retryCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("the metadata of a delivery equals the metadata with the same components given, and shows the same")
    void ofDeliveryEqualsTheGivenComponents() {
        MessageMetadata lazy = MessageMetadata.ofDelivery(
                "orders", 1, new CountingDelivery(), OptionalInt.of(1), OptionalInt.empty(), OptionalLong.of(5));
        MessageMetadata given = new MessageMetadata(
                "orders",
                1,
                "orders#4",
                false,
                OptionalInt.of(1),
                Map.of("a", "1"),
                OptionalInt.empty(),
                OptionalLong.of(4),
                OptionalLong.of(5),
                Optional.of(new Position.Captured("orders", -1, 4)));

        assertThat(lazy).isEqualTo(given).hasSameHashCodeAs(given);
        assertThat(given).isEqualTo(lazy);
        assertThat(lazy).hasToString(given.toString());
        assertThat(given.toString())
                .isEqualTo("MessageMetadata[topic=orders, retryCount=1, deliveryId=orders#4, redelivered=false,"
                        + " deliveryCount=OptionalInt[1], headers={a=1}, partition=OptionalInt.empty,"
                        + " offset=OptionalLong[4], timestampMs=OptionalLong[5],"
                        + " position=Optional[Captured[queue=orders, partition=-1, offset=4]]]");
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
