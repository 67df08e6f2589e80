package dev.shove.spi;

import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to do with one delivery, decided by the engine: publish zero or more {@link Copy copies}, each durably, and
 * then acknowledge the delivery or return it to the broker.
 *
 * <p>The four shapes a transport meets:
 *
 * <ul>
 *   <li><b>ack</b>: no copies, {@link Action#ACK};
 *   <li><b>hold-and-ack</b>: one {@link Copy.ToHold}, then ack (a retry or a defer);
 *   <li><b>dead-letter-and-ack</b>: one {@link Copy.ToDeadLetter}, then ack;
 *   <li><b>return</b>: no copies, {@link Action#RETURN} (a drain at shutdown, a handler abandoned at the deadline);
 *   <li><b>reply-and-ack</b>: {@link Copy.ToTopic} copies, then ack: only on transports with {@link
 *       Capabilities#transactions() transactions}, which must commit the copies and the ack atomically.
 * </ul>
 *
 * @param copies what to publish before the final action; every copy must be accepted by the broker first
 * @param action what to do with the delivery once the copies are in
 * @since 0.1.0
 */
public record Settlement(List<Copy> copies, Action action) {

    /** The final step of a settlement. */
    public enum Action {
        /** Acknowledge: the delivery leaves its queue for good. */
        ACK,
        /** Give the delivery back to the broker for redelivery (nack with requeue, offset left uncommitted). */
        RETURN
    }

    /** Acknowledge, nothing to publish. */
    public static final Settlement ACK = new Settlement(List.of(), Action.ACK);

    /** Return to the broker, nothing to publish. */
    public static final Settlement RETURN = new Settlement(List.of(), Action.RETURN);

    /**
     * Copies {@code copies}.
     *
     * @param copies what to publish before the final action
     * @param action what to do with the delivery once the copies are in
     * @throws IllegalArgumentException when a {@link Action#RETURN} carries copies
     */
    public Settlement {
        copies = List.copyOf(copies);
        Objects.requireNonNull(action, "action");
        if (action == Action.RETURN && !copies.isEmpty()) {
            throw new IllegalArgumentException("a returned delivery publishes no copies");
        }
    }

    /**
     * {@return a settlement that publishes one copy, then acknowledges}
     *
     * @param copy the copy to publish first
     */
    public static Settlement forward(Copy copy) {
        return new Settlement(List.of(copy), Action.ACK);
    }

    /** A message the transport must publish before acknowledging the delivery. */
    public sealed interface Copy {
        /** {@return the encoded message to publish} */
        byte[] payload();

        /** {@return the headers to publish with it, shove's own included} */
        Map<String, String> headers();

        /**
         * A retry or defer copy: to wait {@code delay}, then be delivered again on the queue the original came from
         * (for a sequenced topic: the same shard). Backends with {@link Capabilities#exactDelays() exact delays}
         * wait exactly {@code delay}; the others put it in hold tier {@code tier}, the shortest tier at least as
         * long as {@code delay}, or the longest tier when none is: then the copy comes back early and the engine
         * holds it again until the {@code shove-not-before} header's due time (epoch ms) has passed.
         *
         * @param tier index into the topic's {@link dev.shove.Topic#holdTiers() hold tiers}
         * @param delay how long the copy must wait before it is delivered again
         * @param payload the encoded message
         * @param headers the copy's headers, {@code shove-retry-count} and {@code shove-not-before} included
         */
        record ToHold(int tier, Duration delay, byte[] payload, Map<String, String> headers) implements Copy {
            /**
             * Copies {@code headers}.
             *
             * @param tier index into the topic's hold tiers
             * @param delay how long the copy must wait before it is delivered again
             * @param payload the encoded message
             * @param headers the copy's headers
             */
            public ToHold {
                Objects.requireNonNull(delay, "delay");
                Objects.requireNonNull(payload, "payload");
                headers = Map.copyOf(headers);
            }
        }

        /**
         * A dead letter, to the topic's dead-letter queue, carrying the {@code shove-death-*} headers.
         *
         * @param queue the dead-letter queue's name
         * @param payload the encoded message, as it was received
         * @param headers the original headers plus the {@code shove-death-*} headers
         */
        record ToDeadLetter(String queue, byte[] payload, Map<String, String> headers) implements Copy {
            /**
             * Copies {@code headers}.
             *
             * @param queue the dead-letter queue's name
             * @param payload the encoded message
             * @param headers the dead letter's headers
             */
            public ToDeadLetter {
                Objects.requireNonNull(queue, "queue");
                Objects.requireNonNull(payload, "payload");
                headers = Map.copyOf(headers);
            }
        }

        /**
         * A reply, published to a topic exactly as {@link Transport#publish} would publish it. Only sent to
         * transports with {@link Capabilities#transactions() transactions}; the others get replies through {@link
         * Transport#publish} before the settlement.
         *
         * @param topic the reply's topic
         * @param message the prepared reply
         */
        record ToTopic(Topic<?> topic, OutboundMessage message) implements Copy {
            /**
             * Checks that both are present.
             *
             * @param topic the reply's topic
             * @param message the prepared reply
             */
            public ToTopic {
                Objects.requireNonNull(topic, "topic");
                Objects.requireNonNull(message, "message");
            }

            @Override
            public byte[] payload() {
                return message.payload();
            }

            @Override
            public Map<String, String> headers() {
                return message.headers();
            }
        }
    }
}
