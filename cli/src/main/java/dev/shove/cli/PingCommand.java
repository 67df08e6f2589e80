package dev.shove.cli;

import dev.shove.Broker;
import dev.shove.ConnectionHealth;
import dev.shove.ShoveException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code shove ping}: connect, make one round trip, and report the connection's health. */
@Command(
        name = "ping",
        mixinStandardHelpOptions = true,
        description = {
            "Connect to the broker, make one round trip, and print the connection's health"
                    + " (backend, up or down, since when, what the backend said).",
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
            description = "How long the round trip may take (default: ${DEFAULT-VALUE}).",
            defaultValue = "5s")
    Duration timeout = Broker.DEFAULT_PING_TIMEOUT;

    PingCommand(ShoveCli.Session session) {
        this.session = session;
    }

    @Override
    public Integer call() {
        Broker<?> connected = broker.connect(session);
        try {
            long started = System.nanoTime();
            try {
                connected.ping(timeout);
            } catch (ShoveException e) {
                throw CliException.failure(
                        connected.backendName() + " broker did not answer within " + timeout.toMillis() + " ms: "
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
}
