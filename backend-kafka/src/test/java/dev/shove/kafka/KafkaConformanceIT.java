package dev.shove.kafka;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
    private static final Set<String> before = new HashSet<>();
    private static final ThreadLocal<Class<?>> currentTestClass = new ThreadLocal<>();

    @RegisterExtension
    static final BeforeEachCallback REMEMBER_TEST_CLASS =
            context -> currentTestClass.set(context.getRequiredTestClass());

    @BeforeAll
    static void kafka() throws Exception {
        KafkaTestSupport.requireKafka();
        try (Admin admin = KafkaTestSupport.admin()) {
            before.addAll(admin.listTopics().names().get(30, TimeUnit.SECONDS));
        }
    }

    @AfterAll
    static void deleteKitTopics() throws Exception {
        try (Admin admin = KafkaTestSupport.admin()) {
            Set<String> created = new HashSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
            created.removeAll(before);
            KafkaTestSupport.deleteTopics(created);
        }
    }

    @Override
    protected BrokerConfig<Kafka> brokerConfig() {
        Class<?> test = currentTestClass.get();
        boolean totalOrder = test != null && test.getSimpleName().equals("Seeking");
        return KafkaConfig.builder(KafkaTestSupport.bootstrap())
                .partitions(totalOrder ? 1 : 2)
                .sessionTimeout(Duration.ofSeconds(6))
                .build();
    }

    @Override
    protected Duration patience() {
        return Duration.ofSeconds(30);
    }
}
