package dev.shove.nats;

import dev.shove.Position;
import dev.shove.spi.Delivery;
import io.nats.client.Message;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** One message as a pull consumer delivered it, with what its subscription needs to settle it. */
final class NatsDelivery implements Delivery {
    final NatsSubscription owner;
    final NatsSubscription.Source source;
    final Message message;
    final long streamSequence;
    private final Map<String, String> headers;
    private final int deliveryCount;
    private final long timestampMs;
    /** When the server was last told this delivery is still being worked on (System.nanoTime). */
    volatile long touchedNanos = System.nanoTime();
    /** Whether a sequenced wait is stored for it in the waits bucket. */
    volatile boolean waitStored;

    NatsDelivery(
            NatsSubscription owner,
            NatsSubscription.Source source,
            Message message,
            long streamSequence,
            Map<String, String> headers,
            int deliveryCount,
            long timestampMs) {
        this.owner = owner;
        this.source = source;
        this.message = message;
        this.streamSequence = streamSequence;
        this.headers = headers;
        this.deliveryCount = deliveryCount;
        this.timestampMs = timestampMs;
    }

    @Override
    public byte[] payload() {
        byte[] data = message.getData();
        return data == null ? new byte[0] : data;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String deliveryId() {
        return source.stream + ":" + streamSequence + "#" + deliveryCount;
    }

    @Override
    public String queue() {
        return source.queue;
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
        return streamSequence;
    }

    @Override
    public long timestampMs() {
        return timestampMs;
    }

    @Override
    public @Nullable Position position() {
        return new Position.Captured(source.queue, -1, streamSequence);
    }

    @Override
    public String toString() {
        return "NatsDelivery[" + deliveryId() + "]";
    }
}
