package dev.shove.nats;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance kit against the real NATS server ({@code SHOVE_NATS_URL}, default {@code
 * nats://127.0.0.1:4222}). The streams the kit created are deleted afterwards.
 */
class NatsConformanceIT extends BrokerConformance<Nats> {
    private static final Set<String> before = new HashSet<>();

    @BeforeAll
    static void nats() throws Exception {
        NatsTestSupport.requireNats();
        before.addAll(NatsTestSupport.streams());
    }

    @AfterAll
    static void deleteKitStreams() throws Exception {
        NatsTestSupport.deleteStreamsCreatedSince(before);
    }

    @Override
    protected BrokerConfig<Nats> brokerConfig() {
        return NatsTestSupport.config().build();
    }

    @Override
    protected Duration patience() {
        return Duration.ofSeconds(20);
    }
}
