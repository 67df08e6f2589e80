package dev.shove.spi;

import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@link TransportContext#connection()} true for a transport whose client hides its connection state (it
 * reconnects on its own and tells nobody, as kafka-clients does): a thread of its own pings the broker every {@code
 * interval} and reports a failed ping as {@link TransportContext#connectionLost} and the next good one as {@link
 * TransportContext#connectionRestored}. A transport whose client announces losses reports them itself instead.
 *
 * <p>Start it when the transport has connected; close it first when the transport closes.
 *
 * @since 0.1.0
 */
public final class ConnectionWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConnectionWatch.class);

    /** One round trip to the broker; throws when it does not answer. */
    @FunctionalInterface
    public interface Ping {
        /**
         * One round trip to the broker.
         *
         * @throws Exception when the broker does not answer; the connection is then reported lost
         */
        void ping() throws Exception;
    }

    private final Thread thread;
    private volatile boolean closed;

    private ConnectionWatch(String name, TransportContext context, Duration interval, Ping ping) {
        this.thread = Thread.ofVirtual().name(name).unstarted(() -> run(context, interval, ping));
    }

    /**
     * Starts watching: the first ping runs one {@code interval} from now.
     *
     * @param name the thread's name, e.g. {@code shove-kafka-connection-watch}
     * @param context where the connection's state is reported
     * @param interval the time between two pings, positive
     * @param ping one round trip to the broker
     * @return the running watch; close it before the transport
     */
    public static ConnectionWatch start(String name, TransportContext context, Duration interval, Ping ping) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(ping, "ping");
        Bounds.positive("interval", interval);
        ConnectionWatch watch = new ConnectionWatch(name, context, interval, ping);
        watch.thread.start();
        return watch;
    }

    private void run(TransportContext context, Duration interval, Ping ping) {
        while (!closed) {
            try {
                Thread.sleep(interval);
            } catch (InterruptedException e) {
                return;
            }
            try {
                ping.ping();
                if (!context.connection().connected()) {
                    log.info("the broker answers again");
                }
                context.connectionRestored();
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (closed) {
                    return;
                }
                if (context.connection().connected()) {
                    log.warn("the broker does not answer: {}", e.getMessage());
                }
                context.connectionLost(String.valueOf(e.getMessage()));
            }
        }
    }

    /** Stops watching and waits for the thread. Idempotent. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
