package dev.shove;

import java.time.Instant;
import java.util.Objects;

/**
 * A place in a log-like subscription (Kafka partitions, Redis Streams, NATS streams, the in-memory broker with
 * retention) to start from or to move to. See {@link Outcome#andSeek(Position)} and {@link
 * ConsumerOptions.Builder#startAt(Position)}.
 *
 * <ul>
 *   <li>{@link #start()}: the oldest message still retained;
 *   <li>{@link #end()}: after the newest message (only what is published from now on);
 *   <li>{@link #sequence(long)}: a backend-defined sequence number (in-memory: the log index; NATS: the stream
 *       sequence; Kafka: the offset in every assigned partition);
 *   <li>{@link #timestamp(Instant)}: the first message the broker accepted at or after that time;
 *   <li>{@link MessageMetadata#position()}: captured from a delivery: that message again, then the rest in order.
 * </ul>
 *
 * A position that no longer exists (trimmed from the log) is refused and the subscription does not move.
 *
 * @since 0.1.0
 */
public sealed interface Position {

    /** {@return the oldest message still retained} */
    static Position start() {
        return Start.INSTANCE;
    }

    /** {@return the place after the newest message: only what is published from now on} */
    static Position end() {
        return End.INSTANCE;
    }

    /**
     * {@return a backend-defined sequence number (in-memory: the log index; NATS: the stream sequence; Kafka: the
     * offset in every assigned partition)}
     *
     * @param sequence zero or more
     * @throws IllegalArgumentException when {@code sequence} is negative
     */
    static Position sequence(long sequence) {
        return new Sequence(sequence);
    }

    /**
     * {@return the first message the broker accepted at or after {@code time}}
     *
     * @param time the earliest broker timestamp to deliver
     */
    static Position timestamp(Instant time) {
        return new Timestamp(Objects.requireNonNull(time, "time"));
    }

    /** The oldest retained message. */
    enum Start implements Position {
        /** The only instance. */
        INSTANCE
    }

    /** After the newest message. */
    enum End implements Position {
        /** The only instance. */
        INSTANCE
    }

    /**
     * A backend-defined sequence number.
     *
     * @param sequence zero or more
     */
    record Sequence(long sequence) implements Position {
        /**
         * Checks the sequence.
         *
         * @param sequence zero or more
         * @throws IllegalArgumentException when {@code sequence} is negative
         */
        public Sequence {
            if (sequence < 0) {
                throw new IllegalArgumentException("sequence must not be negative, was " + sequence);
            }
        }
    }

    /**
     * The first message at or after a time.
     *
     * @param time the earliest broker timestamp to deliver
     */
    record Timestamp(Instant time) implements Position {
        /**
         * Checks that the time is present.
         *
         * @param time the earliest broker timestamp to deliver
         */
        public Timestamp {
            Objects.requireNonNull(time, "time");
        }
    }

    /**
     * The position of one delivered message, as its backend describes it.
     *
     * @param queue the queue, shard or topic it was read from
     * @param partition its partition, or -1
     * @param offset its offset or sequence in that queue or partition
     */
    record Captured(String queue, int partition, long offset) implements Position {
        /**
         * Checks the position.
         *
         * @param queue the queue, shard or topic it was read from
         * @param partition its partition, or -1
         * @param offset zero or more
         * @throws IllegalArgumentException when {@code offset} is negative
         */
        public Captured {
            Objects.requireNonNull(queue, "queue");
            if (offset < 0) {
                throw new IllegalArgumentException("offset must not be negative, was " + offset);
            }
        }
    }
}
