package dev.shove.nats;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;
import java.util.HashSet;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole conformance kit against the real NATS server ({@code SHOVE_NATS_URL}, default {@code
 * nats://127.0.0.1:4222}). The streams the kit created are deleted afterwards. The seek contracts run on streams that
 * keep {@value #SEEK_RETENTION} messages, so that the contract on trimmed positions has a trimmed log to seek in.
 */
class NatsConformanceIT extends BrokerConformance<Nats> {
    private static final Set<String> before = new HashSet<>();
    private static final ThreadLocal<Class<?>> currentTestClass = new ThreadLocal<>();
    private static final int SEEK_RETENTION = 100;

    @BeforeAll
    static void nats() throws Exception {
        NatsTestSupport.requireNats();
        before.addAll(NatsTestSupport.streams());
    }

    @AfterAll
    static void deleteKitStreams() throws Exception {
        NatsTestSupport.deleteStreamsCreatedSince(before);
    }

    @RegisterExtension
    static final BeforeEachCallback REMEMBER_TEST_CLASS =
            context -> currentTestClass.set(context.getRequiredTestClass());

    @Override
    protected BrokerConfig<Nats> brokerConfig() {
        NatsConfig.Builder config = NatsTestSupport.config();
        if (seeking()) {
            // the contract on trimmed positions publishes twice this many, so that the oldest are gone
            config.streamMaxMessages(SEEK_RETENTION);
        }
        return config.build();
    }

    @Override
    protected OptionalInt logRetention() {
        return seeking() ? OptionalInt.of(SEEK_RETENTION) : OptionalInt.empty();
    }

    private static boolean seeking() {
        Class<?> test = currentTestClass.get();
        return test != null && test.getSimpleName().equals("Seeking");
    }

    @Override
    protected Duration patience() {
        return Duration.ofSeconds(20);
    }
}
