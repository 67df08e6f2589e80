package dev.shove.spi;

import dev.shove.BrokerUnavailableException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * The one shape of a backend's "cannot connect" error, so that every broker says it alike: {@code cannot connect to
 * Redis at redis://127.0.0.1:6390 (connection refused); is it running? Locally: scripts/brokers.sh up redis}. The
 * reason in parentheses comes from the client's exception, in plain words (connection refused, no connection within
 * the connect timeout, unknown host), never the client's own wording. Stateless and thread-safe.
 *
 * @since 0.1.0
 */
public final class ConnectErrors {
    private ConnectErrors() {}

    /**
     * {@return the error for a connection attempt that failed}
     *
     * @param broker the broker's name, e.g. {@code Redis}
     * @param address where it was looked for, without secrets, e.g. {@code redis://127.0.0.1:6390}
     * @param connectTimeout the connect timeout the attempt had, for the message when it ran out
     * @param cause the client's failure
     * @param brokersName the name {@code scripts/brokers.sh} knows the broker by, e.g. {@code redis}
     */
    public static BrokerUnavailableException cannotConnect(
            String broker, String address, Duration connectTimeout, Throwable cause, String brokersName) {
        return new BrokerUnavailableException(
                "cannot connect to " + broker + " at " + address + " (" + reason(cause, connectTimeout)
                        + "); is it running? Locally: scripts/brokers.sh up " + brokersName,
                cause);
    }

    /**
     * {@return why a connection failed, in plain words: {@code connection refused}, {@code no connection within 2 s},
     * {@code unknown host 'kafak'}, {@code no route to host}, else the innermost message}
     *
     * @param cause the client's failure
     * @param connectTimeout the connect timeout the attempt had
     */
    public static String reason(Throwable cause, Duration connectTimeout) {
        Throwable innermost = cause;
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String type = t.getClass().getName().toLowerCase(Locale.ROOT);
            String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (t instanceof SocketTimeoutException
                    || t instanceof TimeoutException
                    || type.contains("timeout")
                    || message.contains("timed out")) {
                return "no connection within " + DurationText.of(connectTimeout);
            }
            if (t instanceof UnknownHostException) {
                return "unknown host '" + t.getMessage() + "'";
            }
            if (t instanceof NoRouteToHostException) {
                return "no route to host";
            }
            if (t instanceof ConnectException || message.contains("connection refused")) {
                return "connection refused";
            }
            innermost = t;
        }
        return innermost.getMessage() == null ? innermost.getClass().getSimpleName() : innermost.getMessage();
    }
}
