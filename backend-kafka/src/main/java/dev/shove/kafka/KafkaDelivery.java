package dev.shove.kafka;

import dev.shove.Position;
import dev.shove.ShoveHeaders;
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
    private final boolean hideInternal;
    private final WaitingOffsets.@Nullable Wait wait;
    // Decoded on first use, on the handler's thread rather than the poll thread.
    private volatile @Nullable Map<String, String> headers;
    private volatile @Nullable String deliveryId;

    KafkaDelivery(
            KafkaSubscription owner,
            PartitionState state,
            ConsumerRecord<byte[], byte[]> record,
            boolean hideInternal) {
        this.owner = owner;
        this.state = state;
        this.record = record;
        this.hideInternal = hideInternal;
        this.wait = state.waitAt(record.offset());
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
        Map<String, String> h = headers;
        if (h == null) {
            WaitingOffsets.Wait w = wait;
            h = w == null
                    ? KafkaHeaders.lazyFromKafka(record.headers(), hideInternal)
                    // it waited out a sequenced retry when last delivered: it goes on from there
                    : KafkaHeaders.immutableFromKafka(
                            record.headers(),
                            hideInternal,
                            ShoveHeaders.RETRY_COUNT,
                            Integer.toString(w.retryCount()),
                            ShoveHeaders.NOT_BEFORE,
                            Long.toString(w.notBeforeEpochMs()));
            headers = h;
        }
        return h;
    }

    @Override
    public String deliveryId() {
        String id = deliveryId;
        if (id == null) {
            id = state.deliveryIdPrefix + record.offset();
            deliveryId = id;
        }
        return id;
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
    public Position position() {
        return new Position.Captured(record.topic(), record.partition(), record.offset());
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
