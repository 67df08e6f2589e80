package dev.shove.internal;

import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Transport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The engine tests' transport: accepts every declaration and publish, reports empty queues, is always reachable.
 * Subclasses say what a subscription does, which is what each test is about.
 */
abstract class TestTransport implements Transport {
    private final Capabilities capabilities;

    TestTransport(Capabilities capabilities) {
        this.capabilities = capabilities;
    }

    @Override
    public String name() {
        return getClass().getSimpleName();
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public void declare(Topic<?> topic) {}

    @Override
    public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public QueueStats stats(Topic<?> topic) {
        return new QueueStats(0, 0);
    }

    @Override
    public void ping(Duration timeout) {}

    @Override
    public void close() {}
}
