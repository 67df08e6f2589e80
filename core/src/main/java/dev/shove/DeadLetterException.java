package dev.shove;

import java.io.Serial;

/**
 * A replay or purge stopped: the broker refused a copy or a removal, or the filter threw. {@link #report()} says what
 * had moved before it stopped; every dead letter that did not move is still in the queue.
 */
public final class DeadLetterException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final transient DeadLetterReport report;

    public DeadLetterException(String message, DeadLetterReport report, Throwable cause) {
        super(message, cause);
        this.report = report;
    }

    /** What moved before the replay or purge stopped. */
    public DeadLetterReport report() {
        return report;
    }
}
