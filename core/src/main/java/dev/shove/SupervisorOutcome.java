package dev.shove;

/**
 * How a consumer group or supervisor ended, mapped to a process exit code by {@link #exitCode()}.
 *
 * @param errors consumers that ended on an error they could not recover from (the broker refused a subscription, the
 *     backend gave up reconnecting). Handler failures and rejected messages are normal business and never count
 * @param crashes internal failures of shove's own machinery (a bug: please report it)
 * @param timedOut whether the drain deadline passed with handlers still running; their messages were returned to
 *     the broker for redelivery, never acknowledged
 * @since 0.1.0
 */
public record SupervisorOutcome(int errors, int crashes, boolean timedOut) {

    /** A clean run. */
    public static final SupervisorOutcome CLEAN = new SupervisorOutcome(0, 0, false);

    /** {@return 3 when the drain timed out, else 2 after an internal crash, else 1 after a consumer error, else 0} */
    public int exitCode() {
        if (timedOut) {
            return 3;
        }
        if (crashes > 0) {
            return 2;
        }
        if (errors > 0) {
            return 1;
        }
        return 0;
    }

    /** {@return whether {@link #exitCode()} is 0} */
    public boolean isClean() {
        return exitCode() == 0;
    }

    /**
     * {@return both outcomes together: counts added, timed out if either timed out}
     *
     * @param other the outcome to add
     */
    public SupervisorOutcome plus(SupervisorOutcome other) {
        return new SupervisorOutcome(errors + other.errors, crashes + other.crashes, timedOut || other.timedOut);
    }
}
