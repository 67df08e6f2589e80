package dev.shove;

import dev.shove.internal.UnreadableDrops;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The default {@code handleDead}: say that a dead letter arrived and nobody looks at it. */
final class DeadLetters {
    private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);

    private DeadLetters() {}

    /**
     * The default {@code handleUnreadableDead}: said in a WARN; where the group removes its dead letters the flow
     * learns of it ({@link UnreadableDrops}), says that the bytes are gone and counts them.
     */
    static void logUnreadable(int size, DeadMessageMetadata metadata) {
        UnreadableDrops.dropped();
        log.warn(
                "dead letter {} of topic '{}' ({} bytes) cannot be decoded (reason: {}, original queue: {});"
                        + " implement handleUnreadableDead to act on such messages",
                metadata.message().messageId().orElse(metadata.message().deliveryId()),
                metadata.message().topic(),
                size,
                metadata.reason(),
                metadata.originalQueue());
    }

    static void logUnhandled(DeadMessageMetadata metadata) {
        log.warn(
                "dead letter {} of topic '{}': no handleDead is implemented (reason: {}, original queue: {}, death"
                        + " count: {})",
                metadata.message().messageId().orElse(metadata.message().deliveryId()),
                metadata.message().topic(),
                metadata.reason(),
                metadata.originalQueue(),
                metadata.deathCount());
    }
}
