package dev.shove;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A dead letter as the dead-letter tools read it ({@link DeadLetterQueue#browse}, and the filters of {@link
 * DeadLetterQueue#replay} and {@link DeadLetterQueue#purge}): the decoded message when it can be decoded, its bytes,
 * why it died and how often it was replayed already.
 *
 * @param <T> the message type
 * @since 0.1.0
 */
public final class DeadLetter<T> {
    private final @Nullable T message;
    private final byte[] payload;
    private final DeadMessageMetadata metadata;
    private final int replayCount;
    private final @Nullable String unreadable;

    /**
     * A dead letter as read from the broker.
     *
     * @param message the decoded message, or null when it cannot be decoded
     * @param payload its bytes as they are in the dead-letter queue (not copied: do not change them)
     * @param metadata why and where it died, its headers and ids
     * @param replayCount how many times it was replayed from the dead-letter queue before
     * @param unreadable why it cannot be decoded, or null when it can
     */
    public DeadLetter(
            @Nullable T message,
            byte[] payload,
            DeadMessageMetadata metadata,
            int replayCount,
            @Nullable String unreadable) {
        if ((message == null) == (unreadable == null)) {
            throw new IllegalArgumentException("a dead letter has either a message or a reason it is unreadable");
        }
        this.message = message;
        this.payload = Objects.requireNonNull(payload, "payload");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.replayCount = replayCount;
        this.unreadable = unreadable;
    }

    /** {@return the decoded message; empty when it cannot be decoded (see {@link #unreadable()})} */
    public Optional<T> message() {
        return Optional.ofNullable(message);
    }

    /** {@return the message's bytes as they are in the dead-letter queue} Do not change the array. */
    public byte[] payload() {
        return payload;
    }

    /**
     * {@return why and where it died ({@link DeadMessageMetadata#reason()}, exception, death count), its headers and
     * ids}
     */
    public DeadMessageMetadata metadata() {
        return metadata;
    }

    /** {@return the message id, or the broker's delivery id when the message has none} */
    public String id() {
        return metadata.message().messageId().orElse(metadata.message().deliveryId());
    }

    /**
     * {@return how many times this message was replayed from the dead-letter queue before ({@link
     * ShoveHeaders#REPLAY_COUNT})}
     */
    public int replayCount() {
        return replayCount;
    }

    /** {@return why the message cannot be decoded with the topic's codec; empty when it can} */
    public Optional<String> unreadable() {
        return Optional.ofNullable(unreadable);
    }

    @Override
    public String toString() {
        return "DeadLetter[" + id() + ", reason=" + metadata.reason() + ", deaths=" + metadata.deathCount()
                + ", replays=" + replayCount + ", " + payload.length + " bytes"
                + (unreadable != null ? ", unreadable: " + unreadable : "") + "]";
    }
}
