package dev.shove;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes typed messages to topics. Obtained from {@link Broker#publisher()}; thread-safe, cheap to share, and
 * lives as long as its broker.
 *
 * <p>Each method encodes the message with the topic's codec, stamps a unique {@value ShoveHeaders#MESSAGE_ID}, adds
 * the ordering key of a sequenced topic, and returns (or completes) once the broker has durably accepted it. Headers
 * starting with {@value ShoveHeaders#PREFIX} are reserved: passing one fails with an {@link IllegalArgumentException}
 * and publishes nothing. One exception: a caller that must choose the message's id itself (the event id of a
 * CloudEvent, an outbox relay publishing a row again) passes it as {@value ShoveHeaders#MESSAGE_ID}, spelled exactly so;
 * it must be 1 to 200 characters on one line, not blank.
 *
 * <pre>{@code
 * broker.publisher().publish(ORDERS, new OrderPaid("o-1", 1299));
 * }</pre>
 *
 * @since 0.1.0
 */
public interface Publisher {

    /**
     * Publishes one message and waits until the broker accepted it.
     *
     * @param topic a topic
     * @param message the message
     * @param <M> the message type
     * @throws PublishException when the broker refused it or could not be reached ({@link
     *     PublishException#isRetriable()} says whether trying again may help)
     * @throws CodecException when the message cannot be encoded
     */
    <M> void publish(Topic<M> topic, M message);

    /**
     * Publishes one message with headers of your own, which survive every retry and dead-lettering, and waits until
     * the broker accepted it.
     *
     * @param topic a topic
     * @param message the message
     * @param headers headers of your own; none may start with {@value ShoveHeaders#PREFIX}
     * @param <M> the message type
     * @throws IllegalArgumentException when a header name starts with {@value ShoveHeaders#PREFIX}
     * @throws PublishException when the broker refused it or could not be reached
     * @throws CodecException when the message cannot be encoded
     */
    <M> void publishWithHeaders(Topic<M> topic, M message, Map<String, String> headers);

    /**
     * Publishes several messages, as one broker round trip where the broker allows, and waits for all of them.
     *
     * @param topic a topic
     * @param messages the messages, in publish order
     * @param <M> the message type
     * @throws BatchPublishException naming exactly which messages (by index) were not accepted; the others were
     */
    <M> void publishBatch(Topic<M> topic, List<? extends M> messages);

    /**
     * Publishes one message without waiting.
     *
     * @param topic a topic
     * @param message the message
     * @param headers headers of your own; none may start with {@value ShoveHeaders#PREFIX}
     * @param <M> the message type
     * @return completes when the broker accepted the message, or exceptionally with a {@link PublishException} or
     *     {@link CodecException}
     */
    <M> CompletableFuture<Void> publishAsync(Topic<M> topic, M message, Map<String, String> headers);
}
