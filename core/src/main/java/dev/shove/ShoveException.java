package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * The root of every exception shove throws. Messages name the topic or queue involved and what to do about it.
 *
 * <p>Subtypes say what went wrong: {@link TopologyException} (broker objects missing or in conflict), {@link
 * PublishException} (the broker did not accept a message), {@link BrokerUnavailableException} (the broker cannot be
 * reached right now; worth retrying), {@link AuthenticationException} (the broker refused the credentials or the TLS
 * handshake failed; fix the configuration) and {@link CodecException} (a payload could not be encoded or decoded).
 * Misuse of the API (a bad argument, a method called in the wrong state) throws the JDK's {@link
 * IllegalArgumentException} or {@link IllegalStateException} instead.
 *
 * @since 0.1.0
 */
public class ShoveException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message what went wrong, naming the topic or queue and what to do
     */
    public ShoveException(String message) {
        super(message);
    }

    /**
     * An exception wrapping the failure that caused it.
     *
     * @param message what went wrong, naming the topic or queue and what to do
     * @param cause the underlying failure, or null
     */
    public ShoveException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /**
     * {@return whether the same call may succeed if tried again later (the broker was unreachable, a timeout passed)}
     */
    public boolean isRetriable() {
        return false;
    }
}
