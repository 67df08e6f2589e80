package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * The broker cannot be reached or did not answer in time. Transient by nature: {@link #isRetriable()} is true, and
 * the same call may succeed once the broker is back.
 *
 * @since 0.1.0
 */
public class BrokerUnavailableException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message names the broker and what was tried
     */
    public BrokerUnavailableException(String message) {
        super(message);
    }

    /**
     * An exception wrapping the broker client's failure.
     *
     * @param message names the broker and what was tried
     * @param cause the underlying failure, or null
     */
    public BrokerUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isRetriable() {
        return true;
    }
}
