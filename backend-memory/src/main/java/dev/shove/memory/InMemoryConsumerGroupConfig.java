package dev.shove.memory;

import dev.shove.ConsumerOptions;
import dev.shove.GroupConfig;

/**
 * Consumer-group settings on the in-memory broker: min..max consumers and the common {@link ConsumerOptions}.
 * Immutable.
 *
 * <pre>{@code
 * ConsumerGroupConfig.of(InMemoryConsumerGroupConfig.of(1, 4).withPrefetch(20))
 * }</pre>
 */
public final class InMemoryConsumerGroupConfig extends GroupConfig<InMemory, InMemoryConsumerGroupConfig> {

    private InMemoryConsumerGroupConfig(int min, int max, ConsumerOptions options) {
        super(min, max, options);
    }

    /** Between {@code min} and {@code max} consumers, default options. */
    public static InMemoryConsumerGroupConfig of(int min, int max) {
        return new InMemoryConsumerGroupConfig(min, max, ConsumerOptions.defaults());
    }

    /** Exactly one consumer, default options. */
    public static InMemoryConsumerGroupConfig ofDefaults() {
        return of(1, 1);
    }

    @Override
    protected InMemoryConsumerGroupConfig copy(int min, int max, ConsumerOptions options) {
        return new InMemoryConsumerGroupConfig(min, max, options);
    }
}
