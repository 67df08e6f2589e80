package dev.shove;

import java.util.Objects;
import java.util.Optional;

/**
 * What is known about a message found in a dead-letter queue.
 *
 * @param message the dead letter's own delivery metadata; {@code retryCount} is the count the message had when it was
 *     dead-lettered and the headers are the original's
 * @param reason why it was dead-lettered: {@code rejected} (or {@code rejected: <reason>}), {@code
 *     max-retries-exceeded}, {@code decode-failed: <detail>}, {@code oversize: <detail>} or {@code sequence-poisoned};
 *     {@code unknown} for a message that did not come through shove
 * @param originalQueue the queue the message was consumed from when it died
 * @param deathCount how many times this message has been dead-lettered (1 the first time)
 * @since 0.1.0
 */
public record DeadMessageMetadata(MessageMetadata message, String reason, String originalQueue, int deathCount) {
    /**
     * Checks the components; see the class description.
     *
     * @param message the dead letter's own delivery metadata; {@code retryCount} is the count the message had when it
     *     was dead-lettered and the headers are the original's
     * @param reason why it was dead-lettered: {@code rejected} (or {@code rejected: <reason>}), {@code
     *     max-retries-exceeded}, {@code decode-failed: <detail>}, {@code oversize: <detail>} or {@code
     *     sequence-poisoned}; {@code unknown} for a message that did not come through shove
     * @param originalQueue the queue the message was consumed from when it died
     * @param deathCount how many times this message has been dead-lettered (1 the first time)
     */
    public DeadMessageMetadata {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(originalQueue, "originalQueue");
    }

    /**
     * {@return the class of the exception the handler threw the last time it ran, when that is why the message died}
     */
    public Optional<String> exceptionClass() {
        return message.header(ShoveHeaders.EXCEPTION_CLASS);
    }

    /** {@return that exception's message (capped, on one line), when it had one} */
    public Optional<String> exceptionMessage() {
        return message.header(ShoveHeaders.EXCEPTION_MESSAGE);
    }

    /**
     * {@return that exception's stack trace with its causes, on one line} {@code " | "} separates frames; capped at
     * a few kilobytes with {@code ...} where it was cut.
     */
    public Optional<String> exceptionTrace() {
        return message.header(ShoveHeaders.EXCEPTION_TRACE);
    }
}
