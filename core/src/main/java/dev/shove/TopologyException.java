package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * Broker objects are missing, or exist with settings that conflict with the topic's declaration (for example a hold
 * queue declared with a different delay). The message names the object and what differs.
 *
 * @since 0.1.0
 */
public class TopologyException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message names the broker object and what is missing or differs
     */
    public TopologyException(String message) {
        super(message);
    }

    /**
     * An exception wrapping the broker client's failure.
     *
     * @param message names the broker object and what is missing or differs
     * @param cause the underlying failure, or null
     */
    public TopologyException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
