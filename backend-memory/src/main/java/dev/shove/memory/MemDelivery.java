package dev.shove.memory;

import dev.shove.Position;
import dev.shove.spi.Delivery;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** One delivery of a {@link MemMessage} from a queue to a subscription. */
final class MemDelivery implements Delivery {
    final MemMessage message;
    /** Its reader, whose queue it came from (not kept in a field of its own: 8 bytes less per delivery). */
    final MemQueue.Reader reader;

    private final Map<String, String> headers;
    private final long sequence;
    private final int deliveryCount;
    /** Its slot among its subscription's outstanding deliveries, or -1 before it is handed over. */
    int slot = -1;

    /** {@code headers}: the message's, or those of a sequenced retry that waited in place before. */
    MemDelivery(
            MemMessage message, MemQueue.Reader reader, Map<String, String> headers, long sequence, int deliveryCount) {
        this.message = message;
        this.reader = reader;
        this.headers = headers;
        this.sequence = sequence;
        this.deliveryCount = deliveryCount;
    }

    /** The queue it came from. */
    MemQueue source() {
        return reader.queue();
    }

    @Override
    public byte[] payload() {
        return message.payload;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String deliveryId() {
        return reader.queue().name + "#" + sequence;
    }

    @Override
    public String queue() {
        return reader.queue().name;
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
    public long timestampMs() {
        return message.timestampMs;
    }

    @Override
    public long offset() {
        return reader.queue().isLog() ? message.position : -1;
    }

    @Override
    public @Nullable Position position() {
        MemQueue queue = reader.queue();
        return queue.isLog() ? new Position.Captured(queue.name, -1, message.position) : null;
    }
}
