package dev.shove.cloudevents;

import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import io.cloudevents.CloudEventContext;

/**
 * Your business logic for a {@link CloudEventTopic}: receives the event's data, typed, with its attributes and
 * extensions, and returns an {@link Outcome} as any {@link MessageHandler} does. The same handler reads binary-mode
 * and structured-mode topics. Registered with {@link CloudEventTopic#register}; runs on virtual threads, is called
 * concurrently when prefetch is above 1, and must be idempotent, exactly as a {@code MessageHandler}.
 *
 * <pre>{@code
 * CloudEventHandler<OrderPaid, AppState> handler = (order, event, meta, app) -> {
 *     app.db().insert(event.getId(), event.getSubject(), order);
 *     return Outcome.ack();
 * };
 * }</pre>
 *
 * @param <T> the data type
 * @param <C> the context type
 * @since 0.1.0
 */
@FunctionalInterface
public interface CloudEventHandler<T, C> {

    /**
     * Handles one event.
     *
     * @param data the event's data, decoded by the topic's data codec
     * @param event the event's attributes ({@code getId()} is shove's message id for events shove published) and
     *     extensions
     * @param metadata what is known about this delivery
     * @param context the group's shared context
     * @return what to do with the message; never null
     * @throws Exception any failure; treated as {@link Outcome#retry()}
     */
    Outcome handle(T data, CloudEventContext event, MessageMetadata metadata, C context) throws Exception;

    /**
     * Called for each event read from the topic's dead-letter queue, then acknowledged, as {@link
     * MessageHandler#handleDead}. The default logs a WARN with the reason, original queue and death count. A
     * binary-mode dead letter whose headers are not a CloudEvent (it was dead-lettered for that) gets the default,
     * not this method.
     *
     * @param data the dead event's data
     * @param event its attributes and extensions
     * @param metadata why and where it died, and its headers
     * @param context the group's context
     * @throws Exception anything; it is logged and the dead letter is acknowledged all the same
     */
    default void handleDead(T data, CloudEventContext event, DeadMessageMetadata metadata, C context) throws Exception {
        Defaults.HANDLER.handleDead(data, metadata, context);
    }

    /**
     * Called for a dead letter that cannot be decoded, as {@link MessageHandler#handleUnreadableDead}. The default
     * logs a WARN and drops the bytes.
     *
     * @param payload the dead letter's bytes as received
     * @param metadata why and where it died, and its headers
     * @param context the group's context
     * @throws Exception anything; it is logged and the dead letter is acknowledged all the same
     */
    default void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
        Defaults.HANDLER.handleUnreadableDead(payload, metadata, context);
    }
}
