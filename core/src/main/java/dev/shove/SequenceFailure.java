package dev.shove;

/**
 * What a sequenced topic does with the rest of a key when one of its messages is dead-lettered (rejected, or out of
 * retries).
 *
 * <p>For messages 1..5 of one key where message 3 is dead-lettered: {@link #SKIP} handles 1, 2, 4, 5 and dead-letters
 * 3; {@link #FAIL_ALL} handles 1, 2 and dead-letters 3, 4 and 5. Other keys are never affected.
 *
 * @since 0.1.0
 */
public enum SequenceFailure {
    /** Dead-letter the failed message and carry on with the next message of its key. */
    SKIP,
    /**
     * Dead-letter the failed message and every later message of its key that this process receives, without calling
     * the handler for them. The key stays poisoned while its registration runs in this process; a restart, or another
     * process, starts clean.
     */
    FAIL_ALL
}
