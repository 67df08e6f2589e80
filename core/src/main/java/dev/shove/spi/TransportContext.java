package dev.shove.spi;

import dev.shove.ConnectionHealth;
import dev.shove.ShoveMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the broker gives a transport when it opens it: where to count, what to call itself, and the one reader of
 * shove's headers. Immutable; thread-safe.
 *
 * @since 0.1.0
 */
public final class TransportContext {
    private final MeterRegistry meterRegistry;
    private final String clientName;
    private final WireHeaders wireHeaders;
    private final boolean observed;
    private final AtomicReference<ConnectionHealth> connection =
            new AtomicReference<>(new ConnectionHealth(true, Instant.now(), ""));

    /**
     * The context a transport is opened with.
     *
     * @param meterRegistry where shove's meters go; a registry that keeps nothing when the application gave none
     * @param clientName a name for connections and client ids, e.g. {@code shove-12345}
     * @param wireHeaders the reader of shove's headers, counting into {@code meterRegistry}
     */
    public TransportContext(MeterRegistry meterRegistry, String clientName, WireHeaders wireHeaders) {
        this(meterRegistry, clientName, wireHeaders, true);
    }

    /**
     * The context a transport is opened with, saying whether anyone reads the meters.
     *
     * @param meterRegistry where shove's meters go; a registry that keeps nothing when the application gave none
     * @param clientName a name for connections and client ids, e.g. {@code shove-12345}
     * @param wireHeaders the reader of shove's headers, counting into {@code meterRegistry}
     * @param observed whether the application gave {@code meterRegistry}; only then does a backend bind its client's
     *     own meters there (they cost something to keep)
     */
    public TransportContext(MeterRegistry meterRegistry, String clientName, WireHeaders wireHeaders, boolean observed) {
        this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
        this.clientName = Objects.requireNonNull(clientName, "clientName");
        this.wireHeaders = Objects.requireNonNull(wireHeaders, "wireHeaders");
        this.observed = observed;
    }

    /**
     * {@return whether the application gave the meter registry: a backend binds its broker client's own meters (Kafka's
     * client metrics, RabbitMQ's metrics collector, lettuce's command latencies) only then}
     */
    public boolean observed() {
        return observed;
    }

    /** {@return where shove's meters go} */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** {@return a name for connections and client ids, e.g. {@code shove-12345}} */
    public String clientName() {
        return clientName;
    }

    /** {@return the one reader of {@code shove-} headers from the wire} */
    public WireHeaders wireHeaders() {
        return wireHeaders;
    }

    /**
     * Reports that the connection to the broker was lost and the backend is reconnecting; {@code detail} says why
     * (it is shown in health reports: no secrets). Idempotent while down.
     *
     * @param detail why, e.g. the client's error message
     */
    public void connectionLost(String detail) {
        Objects.requireNonNull(detail, "detail");
        connection.updateAndGet(c -> c.connected() ? new ConnectionHealth(false, Instant.now(), detail) : c);
    }

    /** Reports that the connection to the broker is back. Idempotent while up. */
    public void connectionRestored() {
        connection.updateAndGet(c -> c.connected() ? c : new ConnectionHealth(true, Instant.now(), ""));
    }

    /**
     * {@return the connection's state as the backend last reported it: up since the transport opened unless it said
     * otherwise}
     */
    public ConnectionHealth connection() {
        return connection.get();
    }

    /**
     * Counts an error of the backend in {@link ShoveMeters#BACKEND_ERRORS}.
     *
     * @param backend the backend's short name, e.g. {@code kafka}
     * @param kind what failed, e.g. {@code connection}
     */
    public void backendError(String backend, String kind) {
        Counter.builder(ShoveMeters.BACKEND_ERRORS)
                .description("Errors reported by the broker backend")
                .tag("backend", backend)
                .tag("kind", kind)
                .register(meterRegistry)
                .increment();
    }
}
