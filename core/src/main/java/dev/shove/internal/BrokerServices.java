package dev.shove.internal;

import dev.shove.ConnectionHealth;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import dev.shove.spi.WireHeaders;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** What every consumer of one broker shares: the transport, meters, the deadline watchdog and a timer thread. */
final class BrokerServices implements AutoCloseable {
    private final Transport transport;
    private final Capabilities capabilities;
    private final Metrics metrics;
    private final Watchdog watchdog;
    private final ScheduledExecutorService scheduler;
    private final String clientName;
    private final TransportContext context;
    private final NameGuard names;

    BrokerServices(Transport transport, Metrics metrics, TransportContext context) {
        this.context = context;
        this.clientName = context.clientName();
        this.transport = transport;
        this.names = new NameGuard(transport);
        this.capabilities = transport.capabilities();
        this.metrics = metrics;
        this.watchdog = new Watchdog("shove-watchdog-" + transport.name());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .daemon()
                .name("shove-timer-" + transport.name())
                .factory());
    }

    public Transport transport() {
        return transport;
    }

    /** Declares a topic, refusing one whose broker objects another topic of this connection owns. */
    public void declare(Topic<?> topic) {
        names.declare(topic);
    }

    public Capabilities capabilities() {
        return capabilities;
    }

    public Metrics metrics() {
        return metrics;
    }

    /** {@return what the transport was opened with, e.g. whether anyone reads the meters} */
    public TransportContext context() {
        return context;
    }

    public Watchdog watchdog() {
        return watchdog;
    }

    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    public String clientName() {
        return clientName;
    }

    /** The one reader of shove's headers from the wire. */
    public WireHeaders wireHeaders() {
        return context.wireHeaders();
    }

    /** The broker connection's state, as the transport reports it. */
    public ConnectionHealth connection() {
        return context.connection();
    }

    @Override
    public void close() {
        watchdog.close();
        scheduler.shutdownNow();
    }
}
