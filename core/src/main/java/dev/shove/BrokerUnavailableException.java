package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * The broker cannot be reached or did not answer in time. Transient by nature: {@link #isRetriable()} is true, and
 * the same call may succeed once the broker is back.
 */
public class BrokerUnavailableException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    public BrokerUnavailableException(String message) {
        super(message);
    }

    public BrokerUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isRetriable() {
        return true;
    }
}
