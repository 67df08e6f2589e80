package dev.shove.memory;

import dev.shove.BrokerConfig;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;

/**
 * Settings of the in-memory broker. Immutable and thread-safe; take {@link #ofDefaults()} or build one with {@link
 * #builder()}.
 *
 * <p>Each queue holds up to {@code capacity} messages ({@value #DEFAULT_CAPACITY} by default); a publisher waits
 * while its queue is full, and a waiting publish fails with a {@link dev.shove.PublishException} when the broker
 * closes. Retry and dead-letter copies are never refused for capacity (a consumer must not block on its own queue).
 * By default queues are plain queues; {@link Builder#retention(int)} makes them logs.
 *
 * <pre>{@code
 * Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults());
 * Broker<InMemory> log = Broker.connect(InMemoryConfig.builder().retention(10_000).build());
 * }</pre>
 *
 * @since 0.1.0
 */
public final class InMemoryConfig implements BrokerConfig<InMemory> {
    /** The default {@code capacity}: messages waiting unread per queue before a publish blocks. */
    public static final int DEFAULT_CAPACITY = 10_000;

    private static final InMemoryConfig DEFAULTS = builder().build();

    private final int capacity;
    private final int retention;

    private InMemoryConfig(Builder b) {
        this.capacity = b.capacity;
        this.retention = b.retention;
    }

    /** {@return the defaults: plain queues of {@value #DEFAULT_CAPACITY} messages, no retention} */
    public static InMemoryConfig ofDefaults() {
        return DEFAULTS;
    }

    /** {@return a builder starting from the defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder starting from this config} */
    public Builder toBuilder() {
        return new Builder().capacity(capacity).retention(retention);
    }

    /** {@return how many messages each queue holds waiting to be read; a publish to a full queue blocks} */
    public int capacity() {
        return capacity;
    }

    /** {@return how many messages each queue keeps as a log; 0 when queues are plain queues} */
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

    /** Builds an {@link InMemoryConfig}. Not thread-safe. */
    public static final class Builder {
        private int capacity = DEFAULT_CAPACITY;
        private int retention;

        private Builder() {}

        /**
         * Queues that hold at most {@code capacity} messages waiting to be read.
         *
         * @param capacity at least 1; default {@value #DEFAULT_CAPACITY}
         * @return this builder
         * @throws IllegalArgumentException when {@code capacity} is less than 1
         */
        public Builder capacity(int capacity) {
            if (capacity < 1) {
                throw new IllegalArgumentException("in-memory queue capacity must be at least 1, was " + capacity);
            }
            this.capacity = capacity;
            return this;
        }

        /**
         * Queues that are logs: each keeps the last {@code messages} messages, consumed or not, and a consumer group
         * reads them through one shared position that can move ({@code Outcome.andSeek}, {@code startAt}), like a
         * Redis Stream. Capacity still bounds what waits unread. A log is read in runs, handed to the engine
         * together, so batch registrations take what was read without waiting out {@code maxWait} (capability {@code
         * nativeBatches}), as on Kafka. 0 (the default) keeps plain queues.
         *
         * @param messages how many messages each log keeps, 0 or more
         * @return this builder
         * @throws IllegalArgumentException when {@code messages} is negative
         */
        public Builder retention(int messages) {
            if (messages < 0) {
                throw new IllegalArgumentException("in-memory retention must be 0 (plain queues) or more, was "
                        + messages + "; pass the number of messages each log keeps");
            }
            this.retention = messages;
            return this;
        }

        /** {@return the config as set} */
        public InMemoryConfig build() {
            return new InMemoryConfig(this);
        }
    }
}
