package dev.shove;

import java.time.Duration;

/**
 * Your business logic for one topic: receives a decoded message, does the work, and returns an {@link Outcome} that
 * tells shove what to do with the message next.
 *
 * <p>Handlers run on virtual threads, so blocking calls (JDBC, HTTP) are fine. A handler that throws is treated as
 * {@link Outcome#retry()} (logged with the topic and message id); a handler past its deadline is interrupted and its
 * timeout outcome applies. Handlers must be idempotent: delivery is at-least-once on every broker.
 *
 * <p>A consumer group calls its handler factory once per consumer, and a consumer runs up to {@code prefetch}
 * messages at once, so a handler instance is called concurrently unless prefetch is 1. Keep per-message state in
 * local variables and shared state in the context.
 *
 * <pre>{@code
 * MessageHandler<OrderPaid, AppState> handler = (order, meta, app) -> {
 *     app.db().insert(order);
 *     return Outcome.ack();
 * };
 * }</pre>
 *
 * @param <T> the message type
 * @param <C> the context type: shared state given once to {@link ConsumerGroup#withContext(Object)}
 * @since 0.1.0
 */
@FunctionalInterface
public interface MessageHandler<T, C> {

    /**
     * Handles one message.
     *
     * @param message the decoded message
     * @param metadata what is known about this delivery
     * @param context the group's shared context
     * @return what to do with the message; never null
     * @throws Exception any failure; treated as {@link Outcome#retry()}
     */
    Outcome handle(T message, MessageMetadata metadata, C context) throws Exception;

    /**
     * Called once for each message of this group that dies (rejected, out of retries), after the dead letter is
     * stored in the topic's dead-letter queue, where it stays ({@link DeadLetterHandling#KEEP}, the default); or, with
     * {@link DeadLetterHandling#REMOVE}, for each dead letter read from the queue, which is then removed. Whether it
     * returns normally or throws, a dead letter is never retried. The default logs a WARN with the reason, original
     * queue and death count.
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

    /**
     * This handler with every delivery recorded to {@code sink}: the message, its metadata, the outcome and how long
     * the handler took. A sink that throws turns the outcome into {@link Outcome#retry()} (strict auditing). Dead
     * letters are passed to {@link #handleDead} without auditing, and the audit log topic itself is never audited.
     *
     * @param sink receives one record per delivery
     * @return a handler that audits and then returns this handler's outcome
     */
    default MessageHandler<T, C> audited(AuditSink<? super T> sink) {
        return AuditedHandler.wrap(this, sink, null);
    }

    /**
     * Like {@link #audited(AuditSink)}, but a sink that takes longer than {@code auditTimeout} is abandoned and the
     * handler's own outcome is kept (logged as an ERROR).
     *
     * @param sink receives one record per delivery
     * @param auditTimeout how long the sink may take per record
     * @return a handler that audits and then returns this handler's outcome
     */
    default MessageHandler<T, C> audited(AuditSink<? super T> sink, Duration auditTimeout) {
        return AuditedHandler.wrap(this, sink, auditTimeout);
    }
}
