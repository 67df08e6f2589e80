package dev.shove;

/**
 * What happens to a message that cannot be read: its payload does not decode, or a header the registration requires
 * ({@link ConsumerOptions.Builder#requiredHeaders}, {@link ConsumerOptions.Builder#headerContract}) is missing or
 * unparsable. The handler never sees such a message.
 *
 * @since 0.1.0
 */
public enum DecodeFailurePolicy {
    /** Dead-letter it at once with reason {@code decode-failed: ...} (discarded and counted without a DLQ). Default. */
    REJECT,
    /** Treat it as {@link Outcome#retry()}: it spends retries, then goes to the DLQ like any exhausted message. */
    RETRY,
    /** Acknowledge and drop it, counted in {@code shove.messages.discarded{reason=decode}}. */
    SKIP
}
