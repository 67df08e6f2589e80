package dev.shove.memory;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * The whole conformance kit on the in-memory broker in log mode ({@link InMemoryConfig.Builder#retention}): queues keep
 * their messages after consumption, so the seeking contracts run here too.
 */
class InMemoryLogConformanceTest extends BrokerConformance<InMemory> {
    /** Messages each queue keeps: more than any contract publishes to one queue, so nothing unread is trimmed. */
    static final int RETENTION = 1_000;

    @Override
    protected BrokerConfig<InMemory> brokerConfig() {
        return InMemoryConfig.builder().retention(RETENTION).build();
    }

    @Override
    protected OptionalInt logRetention() {
        return OptionalInt.of(RETENTION);
    }

    @Override
    protected Duration quietPeriod() {
        return Duration.ofMillis(250);
    }

    @Override
    protected Duration shortestTier() {
        return Duration.ofMillis(100);
    }
}
