package dev.shove.conformance;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import org.junit.jupiter.api.Assumptions;

/**
 * Decides what an integration test does when its broker is not there: with {@code SHOVE_IT_REQUIRED=true} (CI, and
 * {@code scripts/test.sh}) the test fails; otherwise it is skipped with a message saying how to start the broker.
 *
 * @since 0.1.0
 */
public final class BrokerAvailability {
    /** The environment variable that makes a missing broker a failure. */
    public static final String REQUIRED_ENV = "SHOVE_IT_REQUIRED";

    private BrokerAvailability() {}

    /** {@return whether a missing broker must fail the run} */
    public static boolean required() {
        return Boolean.parseBoolean(System.getenv(REQUIRED_ENV));
    }

    /**
     * Checks that something listens on {@code host:port}; fails or skips (see the class comment) when not.
     *
     * @param broker the broker's name for the message, e.g. {@code RabbitMQ}
     * @param brokerName the name {@code scripts/brokers.sh} knows it by, e.g. {@code rabbitmq}
     * @param host where the broker should listen
     * @param port the broker's port
     */
    public static void require(String broker, String brokerName, String host, int port) {
        if (reachable(host, port)) {
            return;
        }
        String message = "%s is not reachable on %s:%d; start it with `scripts/brokers.sh up %s` (or point the test"
                        .formatted(broker, host, port, brokerName)
                + " at another broker with its SHOVE_* environment variable)";
        if (required()) {
            throw new AssertionError(message + " [" + REQUIRED_ENV + "=true]");
        }
        Assumptions.abort(message);
    }

    /**
     * {@link #require(String, String, String, int)} for a URI such as {@code amqp://guest:guest@127.0.0.1:5672}.
     *
     * @param broker the broker's name for the message, e.g. {@code RabbitMQ}
     * @param brokerName the name {@code scripts/brokers.sh} knows it by, e.g. {@code rabbitmq}
     * @param uri the broker's address; its host and port are checked
     * @param defaultPort the port when the URI names none
     */
    public static void require(String broker, String brokerName, URI uri, int defaultPort) {
        String host = uri.getHost() == null ? "127.0.0.1" : uri.getHost();
        int port = uri.getPort() > 0 ? uri.getPort() : defaultPort;
        require(broker, brokerName, host, port);
    }

    /**
     * {@return an environment variable, or {@code fallback} when it is unset or blank}
     *
     * @param name the variable's name, e.g. {@code SHOVE_KAFKA_BOOTSTRAP}
     * @param fallback the value to use without it
     */
    public static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static boolean reachable(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
