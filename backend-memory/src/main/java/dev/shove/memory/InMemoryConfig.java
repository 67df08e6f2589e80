package dev.shove.memory;

import dev.shove.BrokerConfig;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;

/**
 * Settings of the in-memory broker. Immutable.
 *
 * <p>Each queue holds up to {@code capacity} messages ({@value #DEFAULT_CAPACITY} by default); a publisher waits
 * while its queue is full, and a waiting publish fails with a {@link dev.shove.PublishException} when the broker
 * closes. Retry and dead-letter copies are never refused for capacity (a consumer must not block on its own queue).
 *
 * <pre>{@code
 * Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults());
 * }</pre>
 */
public final class InMemoryConfig implements BrokerConfig<InMemory> {
    public static final int DEFAULT_CAPACITY = 10_000;

    private final int capacity;

    private InMemoryConfig(int capacity) {
        this.capacity = capacity;
    }

    public static InMemoryConfig ofDefaults() {
        return new InMemoryConfig(DEFAULT_CAPACITY);
    }

    /** The same config with queues that hold at most {@code capacity} messages. */
    public InMemoryConfig withCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("in-memory queue capacity must be at least 1, was " + capacity);
        }
        return new InMemoryConfig(capacity);
    }

    public int capacity() {
        return capacity;
    }

    @Override
    public Transport open(TransportContext context) {
        return new InMemoryTransport(this, context);
    }

    @Override
    public String toString() {
        return "InMemoryConfig[capacity=" + capacity + "]";
    }
}
