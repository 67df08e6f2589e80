package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Broker;
import dev.shove.BrokerConfig;
import dev.shove.BrokerUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.function.IntFunction;

/**
 * The contract every backend keeps when its broker is not there: connecting to a closed port on the loopback
 * interface fails within the configured connect timeout, with one {@link BrokerUnavailableException} of the same
 * shape on every backend ({@code cannot connect to <broker> at <address> (connection refused); is it running?
 * ...}). Needs no broker: each backend's unit tests call {@link #check}.
 *
 * @since 0.1.0
 */
public final class UnreachableBroker {
    /** The connect timeout the check configures; a backend that ignores it waits its longer default instead. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private UnreachableBroker() {}

    /**
     * Connects to a closed loopback port and checks the failure.
     *
     * @param broker the broker's name in messages, e.g. {@code Kafka}
     * @param uriForPort the broker URI for a port, with {@code connectTimeout} set to {@link #CONNECT_TIMEOUT}, e.g.
     *     {@code port -> "kafka://127.0.0.1:" + port + "?connectTimeout=2s"}
     * @param address the address the message names for a port, e.g. {@code port -> "127.0.0.1:" + port}
     */
    public static void check(String broker, IntFunction<String> uriForPort, IntFunction<String> address) {
        int port = closedPort();
        BrokerConfig<?> config = BrokerConfig.fromUri(uriForPort.apply(port));
        long started = System.nanoTime();
        assertThatThrownBy(() -> Broker.connect(config).close())
                .isInstanceOf(BrokerUnavailableException.class)
                .hasMessageStartingWith("cannot connect to " + broker + " at " + address.apply(port)
                        + " (connection refused); is it running?");
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        // far below every backend's longer waits (Kafka's API timeout is 30 s), and generous for a loaded machine
        assertThat(took)
                .as("connecting to a closed port fails within the connect timeout (%s)", CONNECT_TIMEOUT)
                .isLessThan(CONNECT_TIMEOUT.multipliedBy(4));
    }

    /** A loopback port nothing listens on: bound, then released. */
    static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free loopback port", e);
        }
    }
}
