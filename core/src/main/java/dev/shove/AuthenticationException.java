package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * The broker refused this client: its credentials (user and password, token, key, certificate) or its permission to
 * connect, or the TLS handshake failed because the broker's certificate is not trusted or does not name the host
 * connected to. Never retriable ({@link #isRetriable()} is false): the same settings fail the same way until the
 * configuration or the broker's users change, whereas a broker that does not answer is a retriable {@link
 * BrokerUnavailableException}.
 *
 * <p>The message names the broker's address and what to check, never a password, token or key. Thrown by {@link
 * Broker#connect}. A refusal that comes later (credentials revoked while connected) shows in {@link
 * Broker#connection()}, and where the backend tells it apart, fails publishes with a {@link PublishException} that is
 * not retriable either (each backend's page says which).
 *
 * <pre>{@code
 * try {
 *     broker = Broker.connect(uri);
 * } catch (AuthenticationException e) {
 *     throw e;              // a configuration error: retrying cannot help
 * } catch (BrokerUnavailableException e) {
 *     ...                   // the broker is down or unreachable: try again later
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public class AuthenticationException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message names the broker's address, who was refused or what failed in the handshake, and what to check
     */
    public AuthenticationException(String message) {
        super(message);
    }

    /**
     * An exception wrapping the broker client's failure.
     *
     * @param message names the broker's address, who was refused or what failed in the handshake, and what to check
     * @param cause the underlying failure, or null
     */
    public AuthenticationException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** {@return false: the same credentials and trust settings are refused again until someone changes them} */
    @Override
    public final boolean isRetriable() {
        return false;
    }
}
