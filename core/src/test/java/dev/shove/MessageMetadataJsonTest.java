package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.spi.Delivery;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The metadata's JSON (the audit log's format): the same fields, in the same order, as it always had. */
class MessageMetadataJsonTest {
    private static final MessageMetadata FULL = new MessageMetadata(
            "orders",
            2,
            "orders-3@7",
            true,
            OptionalInt.of(2),
            Map.of("shove-message-id", "m-1"),
            OptionalInt.of(3),
            OptionalLong.of(7),
            OptionalLong.of(1_700_000_000_000L),
            Optional.of(new Position.Captured("orders", 3, 7)));

    /** A Kafka-like delivery with the coordinates of {@link #FULL}. */
    private static final Delivery DELIVERY = new Delivery() {
        @Override
        public byte[] payload() {
            return new byte[0];
        }

        @Override
        public Map<String, String> headers() {
            return Map.of("shove-message-id", "m-1");
        }

        @Override
        public String deliveryId() {
            return "orders-3@7";
        }

        @Override
        public String queue() {
            return "orders";
        }

        @Override
        public boolean redelivered() {
            return true;
        }

        @Override
        public long offset() {
            return 7;
        }

        @Override
        public Position position() {
            return new Position.Captured("orders", 3, 7);
        }
    };

    @Test
    void readsBackEqual() throws Exception {
        String json = JsonCodec.DEFAULT_MAPPER.writeValueAsString(FULL);

        assertThat(JsonCodec.DEFAULT_MAPPER.readValue(json, MessageMetadata.class))
                .isEqualTo(FULL);
    }

    @Test
    void theMetadataOfADeliveryWritesWhatTheSameComponentsGivenWrite() throws Exception {
        MessageMetadata ofDelivery = MessageMetadata.ofDelivery(
                "orders", 2, DELIVERY, OptionalInt.of(2), OptionalInt.of(3), OptionalLong.of(1_700_000_000_000L));

        assertThat(JsonCodec.DEFAULT_MAPPER.writeValueAsString(ofDelivery))
                .isEqualTo(JsonCodec.DEFAULT_MAPPER.writeValueAsString(FULL));
    }

    @Test
    void writesEveryComponentInOrder() throws Exception {
        String json = JsonCodec.DEFAULT_MAPPER.writeValueAsString(FULL);

        assertThat(json)
                .isEqualTo("{\"topic\":\"orders\",\"retryCount\":2,\"deliveryId\":\"orders-3@7\",\"redelivered\":true,"
                        + "\"deliveryCount\":2,\"headers\":{\"shove-message-id\":\"m-1\"},\"partition\":3,\"offset\":7,"
                        + "\"timestampMs\":1700000000000,\"position\":{\"kind\":\"captured\",\"queue\":\"orders\","
                        + "\"partition\":3,\"offset\":7}}");
    }
}
