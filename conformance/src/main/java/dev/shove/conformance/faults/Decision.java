package dev.shove.conformance.faults;

/**
 * What the fault suite's handler does with a message, decided from the message id and the run's seed alone, so a
 * redelivered message (after a kill) is decided the same way as its first delivery, in whichever process handles it.
 *
 * <p>The mix: 65% {@link #ACK}, 10% {@link #SLOW} (acknowledged after a long handler call, to be killed in the
 * middle of), 15% {@link #RETRY} (retried once through the hold tier, then acknowledged) and 10% {@link #REJECT}
 * (dead-lettered).
 *
 * @since 0.1.0
 */
public enum Decision {
    /** Acknowledge at once. */
    ACK,
    /** Acknowledge after a long handler call ({@link FaultConsumer}'s slow time). */
    SLOW,
    /** {@code Outcome.retry()} on the first call (retry count 0), acknowledge the retry. */
    RETRY,
    /** {@code Outcome.reject(...)}: the message goes to the dead-letter queue. */
    REJECT;

    /**
     * {@return the decision for message {@code id} in the run with {@code seed}}
     *
     * @param seed the run's seed
     * @param id the message id
     */
    public static Decision of(long seed, long id) {
        int percent = (int) Long.remainderUnsigned(mix(seed, id), 100);
        if (percent < 65) {
            return ACK;
        }
        if (percent < 75) {
            return SLOW;
        }
        return percent < 90 ? RETRY : REJECT;
    }

    /**
     * {@return how many handler calls a message with this decision needs when nothing goes wrong: two for a retry
     * (the first and the retry), one otherwise}
     */
    public int expectedCalls() {
        return this == RETRY ? 2 : 1;
    }

    /**
     * {@return a well-spread 64-bit value of {@code seed} and {@code id} (SplitMix64's finaliser), also used for the
     * handler's pacing}
     *
     * @param seed the run's seed
     * @param id the message id
     */
    static long mix(long seed, long id) {
        long z = seed + 0x9E3779B97F4A7C15L * (id + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
