package dev.shove;

import java.util.Objects;

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
 */
public record DeadMessageMetadata(MessageMetadata message, String reason, String originalQueue, int deathCount) {
    public DeadMessageMetadata {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(originalQueue, "originalQueue");
    }
}
