package dev.shove;

import dev.shove.internal.UnreadableDrops;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The default {@code handleDead}: say that a dead letter arrived and nobody looks at it. */
final class DeadLetters {
    private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);

    private DeadLetters() {}

    /** The default {@code handleUnreadableDead}: the bytes are dropped, said in a WARN and counted. */
    static void logUnreadable(int size, DeadMessageMetadata metadata) {
        UnreadableDrops.dropped();
        log.warn(
                "dead letter {} of topic '{}' ({} bytes) cannot be decoded and is dropped (reason: {}, original queue:"
                        + " {}); implement handleUnreadableDead to keep such messages",
                metadata.message().messageId().orElse(metadata.message().deliveryId()),
                metadata.message().topic(),
                size,
                metadata.reason(),
                metadata.originalQueue());
    }

    static void logUnhandled(DeadMessageMetadata metadata) {
        log.warn(
                "dead letter {} of topic '{}' received and acknowledged; no handleDead is implemented (reason: {},"
                        + " original queue: {}, death count: {})",
                metadata.message().messageId().orElse(metadata.message().deliveryId()),
                metadata.message().topic(),
                metadata.reason(),
                metadata.originalQueue(),
                metadata.deathCount());
    }
}
