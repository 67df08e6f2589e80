package dev.shove;

import java.util.List;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * The dead-letter queue of a topic, for a person or a tool: count it, look at a page of dead letters, send them back
 * to the topic once the bug is fixed, or throw them away. From {@link Broker#deadLetters(Topic)}:
 *
 * <pre>{@code
 * DeadLetterQueue<Order> dlq = broker.deadLetters(ORDERS);
 * dlq.browse(20).forEach(d -> System.out.println(d.id() + " " + d.metadata().reason()));
 * DeadLetterReport report = dlq.replay(
 *         d -> d.metadata().exceptionClass().orElse("").endsWith("TimeoutException"),
 *         DeadLetterOptions.builder().maxMessages(1_000).ratePerSecond(100).build());
 * }</pre>
 *
 * <p><b>Replay</b> publishes a copy of each chosen dead letter to the topic and removes the dead letter only after the
 * broker accepted the copy: at least once, never lost (a crash in between replays it twice). The copy keeps the
 * message id, the payload and every header of the original publisher; its retry count starts again at 0, the death
 * headers are dropped, and {@link ShoveHeaders#REPLAY_COUNT} goes up by one. A dead letter already replayed {@link
 * DeadLetterOptions#maxReplays()} times is refused and stays, so a message that keeps failing cannot loop for ever.
 *
 * <p>Each call makes one pass over the dead letters there when it starts, oldest first; letters that are not chosen
 * stay where they are. Where the broker cannot read a queue without taking its messages ({@link #readsInPlace()}
 * false: RabbitMQ, SQS), a pass holds the letters it read until it ends, so a dead-letter consumer running at the
 * same time does not see them meanwhile. Run replays while the topic's dead-letter consumer is stopped (or registered
 * with {@code noDeadLetterConsumer()}), or that consumer may handle letters first.
 *
 * <p>Thread-safe; calls on one queue do not run at the same time.
 *
 * @param <T> the message type
 * @since 0.1.0
 */
public interface DeadLetterQueue<T> {

    /** {@return the topic whose dead letters these are} */
    Topic<T> topic();

    /** {@return the broker-side name of the dead-letter queue} */
    String name();

    /** {@return how many dead letters wait; empty when the broker cannot say} */
    OptionalLong count();

    /** {@return whether reading dead letters leaves them in place for everyone else (see above)} */
    boolean readsInPlace();

    /**
     * {@return up to {@code max} dead letters from the oldest, left in the queue}
     *
     * @param max the most dead letters to return
     */
    List<DeadLetter<T>> browse(int max);

    /**
     * Replays every dead letter, as {@link #replay(Predicate, DeadLetterOptions)}.
     *
     * @param options limits, rate and dry run
     * @return how many dead letters were scanned, chosen, moved and refused, with their ids
     * @throws DeadLetterException when the broker refuses a copy or a removal; the report in it says what moved
     */
    default DeadLetterReport replay(DeadLetterOptions options) {
        return replay(letter -> true, options);
    }

    /**
     * Publishes the dead letters {@code filter} chooses back to the topic (see above), up to {@link
     * DeadLetterOptions#maxMessages()}, at most {@link DeadLetterOptions#ratePerSecond()} a second; a dry run only
     * reports what would move.
     *
     * @param filter chooses the dead letters to replay
     * @param options limits, rate and dry run
     * @return how many dead letters were scanned, chosen, moved and refused, with their ids
     * @throws DeadLetterException when the broker refuses a copy or a removal, or the filter throws; the report in it
     *     says what moved before. Nothing that did not move is lost.
     */
    DeadLetterReport replay(Predicate<? super DeadLetter<T>> filter, DeadLetterOptions options);

    /**
     * Removes the dead letters {@code filter} chooses for good, with the same options as replay (a dry run only
     * reports what would go).
     *
     * @param filter chooses the dead letters to remove
     * @param options limits, rate and dry run
     * @return how many dead letters were scanned, chosen and removed, with their ids
     * @throws DeadLetterException when the broker refuses a removal or the filter throws
     */
    DeadLetterReport purge(Predicate<? super DeadLetter<T>> filter, DeadLetterOptions options);
}
