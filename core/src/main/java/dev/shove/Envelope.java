package dev.shove;

import java.util.Objects;

/**
 * One message of a batch, with its delivery metadata.
 *
 * @param message the decoded message
 * @param metadata what is known about its delivery
 * @param <T> the message type
 */
public record Envelope<T>(T message, MessageMetadata metadata) {
    public Envelope {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(metadata, "metadata");
    }
}
