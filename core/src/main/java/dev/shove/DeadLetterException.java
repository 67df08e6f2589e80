package dev.shove;

import java.io.Serial;

/**
 * A replay or purge stopped: the broker refused a copy or a removal, or the filter threw. {@link #report()} says what
 * had moved before it stopped; every dead letter that did not move is still in the queue.
 *
 * @since 0.1.0
 */
public final class DeadLetterException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final transient DeadLetterReport report;

    /**
     * An exception carrying what moved before the failure.
     *
     * @param message names the dead-letter queue and what failed
     * @param report what moved before the replay or purge stopped
     * @param cause what the broker or the filter threw
     */
    public DeadLetterException(String message, DeadLetterReport report, Throwable cause) {
        super(message, cause);
        this.report = report;
    }

    /** {@return what moved before the replay or purge stopped} */
    public DeadLetterReport report() {
        return report;
    }
}
