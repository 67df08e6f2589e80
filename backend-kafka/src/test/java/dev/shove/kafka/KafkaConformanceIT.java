package dev.shove.kafka;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole conformance kit against the real Kafka broker ({@code SHOVE_KAFKA_BOOTSTRAP}, default {@code
 * 127.0.0.1:9092}). Topics get 2 partitions (so competing consumers have something to share) and the topics the kit
 * created are deleted afterwards.
 *
 * <p>The seek contracts assert one total order over a topic's messages ("replays 0, 1, 2, then 3"); a Kafka topic
 * orders per partition only, so for them the topics get a single partition, where Kafka's order is total. Reported
 * to the kit's owner: the contracts, not the backend, assume a single log.
 */
class KafkaConformanceIT extends BrokerConformance<Kafka> {
    private static final ThreadLocal<Class<?>> currentTestClass = new ThreadLocal<>();

    /** The kit names its own topics: every topic that appears while it runs is deleted afterwards. */
    @RegisterExtension
    static final KafkaFixture kafka = KafkaFixture.deletingNewTopics();

    @RegisterExtension
    static final BeforeEachCallback REMEMBER_TEST_CLASS =
            context -> currentTestClass.set(context.getRequiredTestClass());

    @Override
    protected BrokerConfig<Kafka> brokerConfig() {
        Class<?> test = currentTestClass.get();
        boolean totalOrder = test != null && test.getSimpleName().equals("Seeking");
        return kafka.config(totalOrder ? 1 : 2, transactional());
    }

    /** Whether the kit runs with {@link KafkaConfig.Builder#transactional()}. */
    protected boolean transactional() {
        return false;
    }

    @Override
    protected Duration patience() {
        return Duration.ofSeconds(30);
    }
}
