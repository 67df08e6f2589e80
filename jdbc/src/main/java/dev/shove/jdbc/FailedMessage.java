package dev.shove.jdbc;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An outbox row the relay could not publish and set aside: the broker refused it for good (too large, the topic does
 * not exist), so it no longer holds back the later messages of its key. {@link Outbox#retry(java.sql.Connection,
 * long)} puts it back. Immutable.
 *
 * @param id the row's id in the outbox table
 * @param topic the topic it was written for
 * @param key the ordering key of a sequenced topic; null for other topics
 * @param messageId its {@value dev.shove.ShoveHeaders#MESSAGE_ID}, which a retry publishes again
 * @param headers every header it will be published with
 * @param attempts how many times the relay tried it
 * @param reason why the last attempt failed
 * @param createdAt when it was written (the writer's clock)
 * @param failedAt when it was set aside (the relay's clock)
 * @since 0.1.0
 */
public record FailedMessage(
        long id,
        String topic,
        @Nullable String key,
        String messageId,
        Map<String, String> headers,
        int attempts,
        String reason,
        Instant createdAt,
        Instant failedAt) {
    /**
     * Checks the components and copies the headers.
     *
     * @param id the row's id in the outbox table
     * @param topic the topic it was written for
     * @param key the ordering key of a sequenced topic; null for other topics
     * @param messageId its message id
     * @param headers every header it will be published with
     * @param attempts how many times the relay tried it
     * @param reason why the last attempt failed
     * @param createdAt when it was written
     * @param failedAt when it was set aside
     */
    public FailedMessage {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(messageId, "messageId");
        headers = Map.copyOf(headers);
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(failedAt, "failedAt");
    }
}
