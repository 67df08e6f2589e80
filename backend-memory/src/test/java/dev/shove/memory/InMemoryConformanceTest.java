package dev.shove.memory;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;

/** The whole conformance kit on the in-memory broker; runs in the plain unit-test build. */
class InMemoryConformanceTest extends BrokerConformance<InMemory> {
    @Override
    protected BrokerConfig<InMemory> brokerConfig() {
        return InMemoryConfig.ofDefaults();
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
