package dev.shove.internal;

import dev.shove.spi.Capabilities;
import dev.shove.spi.Transport;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** What every consumer of one broker shares: the transport, meters, the deadline watchdog and a timer thread. */
public final class BrokerServices implements AutoCloseable {
    private final Transport transport;
    private final Capabilities capabilities;
    private final Metrics metrics;
    private final Watchdog watchdog;
    private final ScheduledExecutorService scheduler;
    private final String clientName;

    public BrokerServices(Transport transport, Metrics metrics, String clientName) {
        this.transport = transport;
        this.capabilities = transport.capabilities();
        this.metrics = metrics;
        this.clientName = clientName;
        this.watchdog = new Watchdog("shove-watchdog-" + transport.name());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .daemon()
                .name("shove-timer-" + transport.name())
                .factory());
    }

    public Transport transport() {
        return transport;
    }

    public Capabilities capabilities() {
        return capabilities;
    }

    public Metrics metrics() {
        return metrics;
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

    @Override
    public void close() {
        watchdog.close();
        scheduler.shutdownNow();
    }
}
