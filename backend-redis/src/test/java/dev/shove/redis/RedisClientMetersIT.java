package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Broker;
import dev.shove.conformance.BrokerAvailability;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RedisClientMetersIT {

    @Test
    @DisplayName("with a meter registry, lettuce's command latencies are recorded there")
    void commandLatencies() {
        String uri = RedisTestSupport.uri();
        BrokerAvailability.require("Redis", "redis", URI.create(uri), RedisConfig.DEFAULT_PORT);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Broker<?> broker =
                Broker.builder(RedisConfig.of(uri)).meterRegistry(registry).connect()) {
            broker.ping(Duration.ofSeconds(5));
            Timer completion = registry.find("lettuce.command.completion").timer();
            assertThat(completion).as("lettuce.command.completion").isNotNull();
            assertThat(completion.count()).isPositive();
        }
    }
}
