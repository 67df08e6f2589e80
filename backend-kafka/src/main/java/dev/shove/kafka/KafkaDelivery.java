package dev.shove.kafka;

import dev.shove.spi.Delivery;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/** One Kafka record handed to the engine, with the partition state of the assignment it was read in. Immutable. */
final class KafkaDelivery implements Delivery {
    private static final byte[] EMPTY = new byte[0];

    final KafkaSubscription owner;
    final PartitionState state;
    private final ConsumerRecord<byte[], byte[]> record;
    private final Map<String, String> headers;

    KafkaDelivery(
            KafkaSubscription owner,
            PartitionState state,
            ConsumerRecord<byte[], byte[]> record,
            Map<String, String> headers) {
        this.owner = owner;
        this.state = state;
        this.record = record;
        this.headers = headers;
    }

    ConsumerRecord<byte[], byte[]> record() {
        return record;
    }

    @Override
    public byte[] payload() {
        byte[] value = record.value();
        return value == null ? EMPTY : value;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String deliveryId() {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }

    @Override
    public String queue() {
        return record.topic();
    }

    @Override
    public int partition() {
        return record.partition();
    }

    @Override
    public long offset() {
        return record.offset();
    }

    @Override
    public long timestampMs() {
        return record.timestamp() >= 0 ? record.timestamp() : -1;
    }

    @Override
    public @Nullable String nativeKey() {
        byte[] key = record.key();
        return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "KafkaDelivery[" + deliveryId() + "]";
    }
}
