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
    private final int retention;

    private InMemoryConfig(int capacity, int retention) {
        this.capacity = capacity;
        this.retention = retention;
    }

    public static InMemoryConfig ofDefaults() {
        return new InMemoryConfig(DEFAULT_CAPACITY, 0);
    }

    /** The same config with queues that hold at most {@code capacity} messages. */
    public InMemoryConfig withCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("in-memory queue capacity must be at least 1, was " + capacity);
        }
        return new InMemoryConfig(capacity, retention);
    }

    /**
     * The same config with queues that are logs: each keeps the last {@code messages} messages, consumed or not, and
     * a consumer group reads them through one shared position that can move ({@code Outcome.andSeek}, {@code
     * ConsumerOptions.withStartAt}), like a Redis Stream. Capacity still bounds what waits unread. A log is read in
     * runs, handed to the engine together, so batch registrations take what was read without waiting out {@code
     * maxWait} (capability {@code nativeBatches}), as on Kafka.
     */
    public InMemoryConfig withRetention(int messages) {
        if (messages < 1) {
            throw new IllegalArgumentException("in-memory retention must be at least 1 message, was " + messages);
        }
        return new InMemoryConfig(capacity, messages);
    }

    public int capacity() {
        return capacity;
    }

    /** Messages each queue keeps as a log; 0 when queues are plain queues. */
    public int retention() {
        return retention;
    }

    @Override
    public Transport open(TransportContext context) {
        return new InMemoryTransport(this, context);
    }

    @Override
    public String toString() {
        return "InMemoryConfig[capacity=" + capacity + (retention > 0 ? ", retention=" + retention : "") + "]";
    }
}
