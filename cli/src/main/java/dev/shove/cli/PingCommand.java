package dev.shove.cli;

import dev.shove.Broker;
import dev.shove.ConnectionHealth;
import dev.shove.ShoveException;
import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code shove ping}: connect, make one round trip, and report the connection's health. */
@Command(
        name = "ping",
        mixinStandardHelpOptions = true,
        description = {
            "Connect to the broker, make one round trip, and print the connection's health"
                    + " (backend, up or down, since when, what the backend said). Connecting and the round trip each"
                    + " have --timeout.",
            "Exit status 0 when the broker answered and the connection is up, 1 otherwise."
        })
final class PingCommand implements Callable<Integer> {
    private final ShoveCli.Session session;

    @Mixin
    BrokerOption broker = new BrokerOption();

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = TopicOptions.DurationConverter.class,
            description = "How long connecting may take, and then the round trip (default: ${DEFAULT-VALUE}).",
            defaultValue = "5s")
    Duration timeout = Broker.DEFAULT_PING_TIMEOUT;

    PingCommand(ShoveCli.Session session) {
        this.session = session;
    }

    @Override
    public Integer call() {
        Broker<?> connected = connectWithin(timeout);
        try {
            long started = System.nanoTime();
            try {
                connected.ping(timeout);
            } catch (ShoveException e) {
                throw CliException.failure(
                        connected.backendName() + " broker did not answer within " + DurationText.of(timeout) + ": "
                                + e.getMessage() + "; check that it runs and the URI is right",
                        e);
            }
            long micros = (System.nanoTime() - started) / 1_000;
            ConnectionHealth health = connected.connection();
            session.out()
                    .printf(
                            "%s: %s since %s, round trip %.1f ms%s%n",
                            connected.backendName(),
                            health.connected() ? "connected" : "DISCONNECTED",
                            health.since(),
                            micros / 1000.0,
                            health.detail().isEmpty() ? "" : " (" + health.detail() + ")");
            return health.connected() ? ShoveCli.OK : ShoveCli.FAILURE;
        } finally {
            session.connector().release(connected);
        }
    }

    /**
     * Connects, giving up after {@code timeout}: a client may take much longer to give up on its own (Kafka's waits its
     * API timeout, 30 s by default). A connection made after that is released as soon as it is made.
     */
    private Broker<?> connectWithin(Duration timeout) {
        CompletableFuture<Broker<?>> attempt = new CompletableFuture<>();
        Thread.ofVirtual().name("shove-cli-connect").start(() -> {
            try {
                attempt.complete(broker.connect(session));
            } catch (Throwable t) {
                attempt.completeExceptionally(t);
            }
        });
        try {
            return attempt.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            attempt.thenAccept(late -> session.connector().release(late));
            throw CliException.failure(
                    "cannot connect to the broker: no connection within " + DurationText.of(timeout)
                            + " (--timeout); check that it runs and the URI is right (or give a longer --timeout)",
                    e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r; // the usage and failure errors BrokerOption made
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            attempt.thenAccept(late -> session.connector().release(late));
            throw CliException.failure("interrupted while connecting to the broker", e);
        }
    }
}
