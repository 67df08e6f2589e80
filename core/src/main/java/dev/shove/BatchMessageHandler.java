package dev.shove;

import java.util.List;

/**
 * Business logic that takes messages in batches (one database round trip, one bulk API call). Registered with
 * {@link ConsumerGroup#registerBatch}; the registration's {@link BatchOptions} bound each batch's size and how long
 * the first message waits for company.
 *
 * <p>Messages that fail to decode are settled by the decode-failure policy before the handler runs and never reach
 * it; if none decode, the handler does not run. The handler runs under one deadline for the whole batch; on timeout
 * every message gets the timeout outcome. A handler that throws retries every message. {@link HandlerInterceptor
 * Interceptors} do not wrap batch handlers. Batch handlers cannot consume sequenced topics.
 *
 * <pre>{@code
 * BatchMessageHandler<OrderPaid, Db> handler = (batch, db) -> {
 *     db.insertAll(batch.stream().map(Envelope::message).toList());
 *     return BatchOutcome.ackAll();
 * };
 * }</pre>
 *
 * @param <T> the message type
 * @param <C> the context type
 * @since 0.1.0
 */
@FunctionalInterface
public interface BatchMessageHandler<T, C> {

    /**
     * Handles one batch: at least one message, at most {@link BatchOptions#maxBatchSize()}, in delivery order.
     *
     * @param batch the messages with their metadata
     * @param context the group's shared context
     * @return one outcome for the whole batch, or one per message
     * @throws Exception any failure; every message of the batch is then retried
     */
    BatchOutcome handle(List<Envelope<T>> batch, C context) throws Exception;

    /**
     * Called for each dead letter of this group, one at a time; see {@link MessageHandler#handleDead}.
     *
     * @param message the dead letter, decoded
     * @param metadata why and where it died, and its headers
     * @param context the group's context
     * @throws Exception anything; it is logged, and the dead letter is kept or removed all the same
     */
    default void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception {
        DeadLetters.logUnhandled(metadata);
    }

    /**
     * Called, like {@code handleDead}, for a dead letter that cannot be decoded (it was dead-lettered because it
     * could not be read, or the codec changed since). With {@link DeadLetterHandling#KEEP} (the default) its bytes stay
     * in the dead-letter queue whatever this does; with {@link DeadLetterHandling#REMOVE} the default logs a WARN and
     * the bytes are gone (counted in {@code shove.messages.discarded{reason=decode}} on the DLQ): override it to keep
     * them somewhere.
     *
     * @param payload the dead letter's bytes as received
     * @param metadata why and where it died, and its headers
     * @param context the group's context
     * @throws Exception anything; it is logged, and the dead letter is kept or removed all the same
     */
    default void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
        DeadLetters.logUnreadable(payload.length, metadata);
    }
}
