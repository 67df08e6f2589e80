package dev.shove;

import java.util.Objects;

/**
 * One message of a batch, with its delivery metadata.
 *
 * @param message the decoded message
 * @param metadata what is known about its delivery
 * @param <T> the message type
 * @since 0.1.0
 */
public record Envelope<T>(T message, MessageMetadata metadata) {
    /**
     * Checks the components; see the class description.
     *
     * @param message the decoded message
     * @param metadata what is known about its delivery
     */
    public Envelope {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(metadata, "metadata");
    }
}
