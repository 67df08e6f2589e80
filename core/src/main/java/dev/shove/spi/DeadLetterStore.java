package dev.shove.spi;

import java.util.List;

/**
 * A topic's dead-letter queue as the dead-letter tools see it ({@link dev.shove.Broker#deadLetters}): counted, read
 * in passes and emptied one message at a time. The engine decides what to read, replay and remove; the store only
 * translates those steps to the broker. Made by {@link Transport#deadLetters}.
 *
 * <p>Dead letters are the ones the topic's consumer group has not yet consumed from its dead-letter queue (on a log,
 * those past the group's committed position; on a queue, those in it).
 *
 * @since 0.1.0
 */
public interface DeadLetterStore {

    /** {@return the broker-side name of the dead-letter queue} */
    String queue();

    /** {@return how many dead letters wait, or -1 when the broker cannot say} */
    long count();

    /**
     * {@return whether reading leaves the dead letters where they are for everyone else} When false, a {@link Scan}
     * takes what it reads until it removes it or closes (an unacknowledged get, a visibility timeout), so a consumer
     * of the dead-letter queue does not see them meanwhile.
     */
    boolean readsInPlace();

    /** {@return a new pass over the dead letters present now, oldest first; close it when done} */
    Scan scan();

    /** One pass over a dead-letter queue. Used by one thread at a time. */
    interface Scan extends AutoCloseable {

        /**
         * Up to {@code max} more dead letters of this pass, in the queue's order; empty once the pass has read every
         * dead letter that was there when it began (those that arrive later may or may not be included).
         *
         * @param max the most dead letters to return
         * @return the next dead letters, as deliveries
         */
        List<Delivery> next(int max);

        /**
         * Removes dead letters this scan returned (their replayed copies are accepted, or they are purged); when
         * this returns they are gone from the queue for good. A removal the broker refuses throws.
         *
         * @param letters dead letters this scan returned
         */
        void remove(List<Delivery> letters);

        /** Ends the pass: every dead letter read and not removed stays in the queue, where and as it was. */
        @Override
        void close();
    }
}
