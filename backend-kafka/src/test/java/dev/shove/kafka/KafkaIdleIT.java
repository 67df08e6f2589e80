package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An idle consumer group burns no CPU in busy polling: its main consumer, its dead-letter consumer and its hold relay
 * each block in one long poll while nothing happens, and still take the next record at once. Read from the clients' own
 * metric {@code last-poll-seconds-ago} (group {@code consumer-metrics}, through {@link PollClock}): a poll thread that
 * returns from {@code poll} every 100 ms never lets it pass 0.
 */
class KafkaIdleIT {
    record Msg(int n) {}

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("an idle group's consumers and hold relay block in long polls, and the next record is still handled")
    void idleGroupPollsRarely() throws Exception {
        String name = kafka.topicName("idle");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
        var handled = ConcurrentHashMap.<String>newKeySet();
        KafkaConfig config = KafkaConfig.builder(KafkaFixture.bootstrap())
                .partitions(2)
                .sessionTimeout(Duration.ofSeconds(6))
                .clientProperty("metric.reporters", PollClock.class.getName())
                .build();
        try (Broker<Kafka> broker = Broker.connect(config)) {
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder().consumers(1).noAutoscaler().build(),
                    () -> (m, meta, c) -> {
                        handled.add(m.n() + "/" + meta.retryCount());
                        // the first message also takes a trip through the hold topic and its relay
                        return m.n() == 0 && meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
                    });
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> group.health().isReady());
            broker.publisher().publish(topic, new Msg(0));
            await().atMost(Duration.ofSeconds(60)).until(() -> handled.contains("0/1"));

            Map<String, KafkaMetric> clients = PollClock.of(name);
            // dead letters are kept by default: the group reads no dead-letter topic, so no consumer polls it
            assertThat(clients.keySet())
                    .as("main and relay consumers of '%s'", name)
                    .hasSize(2);
            for (Map.Entry<String, KafkaMetric> client : clients.entrySet()) {
                await(client.getKey() + " blocks in a long poll")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> ((Number) client.getValue().metricValue()).doubleValue() >= 2);
            }

            broker.publisher().publish(topic, new Msg(1));
            await().atMost(Duration.ofSeconds(60)).until(() -> handled.contains("1/0"));
            kafka.assertStopsCleanly(group);
        }
    }

    @Test
    @DisplayName("a dead-letter consumer lets the broker hold an empty fetch 500 ms; main consumers and relays 100 ms")
    void deadLetterConsumerFetchesLessOften() {
        String name = kafka.topicName("fetch-wait");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
        KafkaConfig config = KafkaConfig.builder(KafkaFixture.bootstrap())
                .partitions(1)
                .clientProperty("metric.reporters", PollClock.class.getName())
                .build();
        try (Broker<Kafka> broker = Broker.connect(config)) {
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .consumers(1)
                            .noAutoscaler()
                            .handleAndRemoveDeadLetters()
                            .build(),
                    () -> (m, meta, c) -> Outcome.ack());
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> group.health().isReady());

            Map<String, Object> waits = PollClock.fetchWaits(name);
            assertThat(waits)
                    .as("fetch.max.wait.ms of each consumer of '%s'", name)
                    .hasSize(3);
            waits.forEach((client, wait) -> assertThat(wait)
                    .as("fetch.max.wait.ms of %s", client)
                    .isEqualTo(client.contains("-dlq-") ? 500 : 100));
            kafka.assertStopsCleanly(group);
        }
    }

    /**
     * Collects the consumers' {@code last-poll-seconds-ago} metric: installed in every client of the test's broker
     * through {@code metric.reporters}.
     */
    public static final class PollClock implements MetricsReporter {
        private static final Map<String, KafkaMetric> LAST_POLL = new ConcurrentHashMap<>();
        private static final Map<String, Object> FETCH_WAIT = new ConcurrentHashMap<>();

        /** Kafka instantiates it. */
        public PollClock() {}

        /** The metric of each consumer whose client id contains {@code name}, by client id. */
        static Map<String, KafkaMetric> of(String name) {
            return clientsNamed(LAST_POLL, name);
        }

        /** The {@code fetch.max.wait.ms} each consumer whose client id contains {@code name} was made with. */
        static Map<String, Object> fetchWaits(String name) {
            return clientsNamed(FETCH_WAIT, name);
        }

        private static <V> Map<String, V> clientsNamed(Map<String, V> byClient, String name) {
            Map<String, V> mine = new ConcurrentHashMap<>();
            byClient.forEach((client, value) -> {
                if (client.contains(name)) {
                    mine.put(client, value);
                }
            });
            return mine;
        }

        @Override
        public void init(List<KafkaMetric> metrics) {
            metrics.forEach(this::metricChange);
        }

        @Override
        public void metricChange(KafkaMetric metric) {
            if (metric.metricName().group().equals("consumer-metrics")
                    && metric.metricName().name().equals("last-poll-seconds-ago")) {
                LAST_POLL.put(metric.metricName().tags().getOrDefault("client-id", ""), metric);
            }
        }

        @Override
        public void metricRemoval(KafkaMetric metric) {}

        @Override
        public void close() {}

        @Override
        public void configure(Map<String, ?> configs) {
            Object client = configs.get("client.id");
            Object wait = configs.get("fetch.max.wait.ms");
            if (client != null && wait != null) {
                FETCH_WAIT.put(client.toString(), wait);
            }
        }
    }
}
