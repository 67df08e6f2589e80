package dev.shove.spi;

import dev.shove.Position;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One message as received from the broker, implemented by each transport. Immutable from the engine's view; the
 * transport may keep its own bookkeeping (delivery tag, offset, receipt handle) in its implementation.
 *
 * @since 0.1.0
 */
public interface Delivery {

    /** {@return the payload bytes exactly as received} */
    byte[] payload();

    /**
     * {@return every header of the message as a string map; missing headers are simply absent} An immutable map of the
     * JDK's own ({@link HeaderMapBuilder}) or a {@link LazyHeaderMap} is kept as it is by the engine; any other is copied
     * once per delivery.
     */
    Map<String, String> headers();

    /**
     * {@return the broker's identifier of this delivery, unique enough for logs (delivery tag, partition-offset, entry
     * id)}
     */
    String deliveryId();

    /** {@return the queue, shard, stream or topic this delivery was read from} */
    String queue();

    /** {@return whether the broker flags this delivery as a redelivery of the same broker message} */
    default boolean redelivered() {
        return false;
    }

    /**
     * {@return the broker's own attempt counter for this broker message (first delivery = 1), or 0 when it keeps none}
     */
    default int deliveryCount() {
        return 0;
    }

    /** {@return the partition the message was read from, or -1} */
    default int partition() {
        return -1;
    }

    /** {@return the message's position in its log (Kafka offset, stream sequence), or -1} */
    default long offset() {
        return -1;
    }

    /** {@return when the broker accepted the message, in epoch milliseconds, or -1} */
    default long timestampMs() {
        return -1;
    }

    /** {@return where this message sits in a log-like subscription, or null (see {@link Capabilities#seek()})} */
    default @Nullable Position position() {
        return null;
    }

    /**
     * {@return the broker-native message key (the Kafka record key), or null} The engine orders a sequenced topic by
     * the {@code shove-sequence-key} header and falls back to this key for messages published without shove.
     */
    default @Nullable String nativeKey() {
        return null;
    }
}
