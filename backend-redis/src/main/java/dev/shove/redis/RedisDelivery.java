package dev.shove.redis;

import dev.shove.Position;
import dev.shove.spi.Delivery;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One stream entry handed to the engine: where it was read (stream key and queue name), its id, and what the broker
 * knows of its deliveries. Immutable.
 */
final class RedisDelivery implements Delivery {
    final Object owner;
    final String stream;
    final String id;
    private final String queue;
    private final byte[] payload;
    private final Map<String, String> headers;
    private final int deliveryCount;
    /** Whether a sequenced retry's wait is stored for this entry, to be forgotten once it is settled. */
    final boolean hasWait;

    private final String key;

    RedisDelivery(
            Object owner,
            String stream,
            String queue,
            String id,
            byte[] payload,
            Map<String, String> headers,
            int deliveryCount,
            boolean hasWait) {
        this.owner = owner;
        this.stream = stream;
        this.queue = queue;
        this.id = id;
        this.payload = payload;
        this.headers = headers;
        this.deliveryCount = deliveryCount;
        this.hasWait = hasWait;
        this.key = stream + " " + id;
    }

    /** The key of the entry in its subscription's bookkeeping: stream and id. */
    String key() {
        return key;
    }

    @Override
    public byte[] payload() {
        return payload;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String deliveryId() {
        return queue + "@" + id;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public boolean redelivered() {
        return deliveryCount > 1;
    }

    @Override
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public long offset() {
        return RedisEntries.offsetOf(id);
    }

    @Override
    public long timestampMs() {
        return RedisEntries.millisOf(id);
    }

    @Override
    public @Nullable Position position() {
        long offset = offset();
        return offset < 0 ? null : new Position.Captured(queue, -1, offset);
    }

    @Override
    public String toString() {
        return "RedisDelivery[" + deliveryId() + "]";
    }
}
