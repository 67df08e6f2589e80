package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.PublishException;
import dev.shove.Topic;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Messages over Kafka's 1 MB default: topic configs on the topics shove creates, and the client sizes. */
class KafkaLargeMessageIT {
    record Blob(int n, String data) {}

    private static final int TWO_MB = 2 * 1024 * 1024;
    private static final String FOUR_MB = Integer.toString(4 * 1024 * 1024);

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("a 2 MB message is published, retried through its hold topic and consumed when the topics and"
            + " clients are configured for it")
    void twoMegabyteMessageRoundTrips() throws Exception {
        String name = kafka.topicName("large");
        Topic<Blob> topic = Topic.builder(name, Blob.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        KafkaConfig config = KafkaConfig.builder(KafkaFixture.bootstrap())
                .partitions(2)
                .sessionTimeout(Duration.ofSeconds(6))
                .topicConfig("max.message.bytes", FOUR_MB)
                .deadLetterTopicConfig(
                        "retention.ms", Long.toString(Duration.ofDays(30).toMillis()))
                .clientProperty("max.request.size", FOUR_MB)
                .clientProperty("max.partition.fetch.bytes", FOUR_MB)
                .build();
        String data = "x".repeat(TWO_MB);
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = Broker.connect(config)) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                attempts.add(meta.retryCount());
                sizes.add(m.data().length());
                return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, new Blob(1, data));
            await().atMost(Duration.ofSeconds(30)).until(() -> attempts.size() == 2);
            kafka.assertStopsCleanly(group);
        }
        assertThat(attempts).containsExactly(0, 1);
        assertThat(sizes).containsExactly(TWO_MB, TWO_MB);

        String hold = topic.holdTiers().getFirst().queue();
        String dlq = name + "-dlq";
        Map<String, Config> configs = new HashMap<>();
        kafka.admin()
                .describeConfigs(List.of(
                        new ConfigResource(ConfigResource.Type.TOPIC, name),
                        new ConfigResource(ConfigResource.Type.TOPIC, hold),
                        new ConfigResource(ConfigResource.Type.TOPIC, dlq)))
                .all()
                .get(30, TimeUnit.SECONDS)
                .forEach((r, c) -> configs.put(r.name(), c));
        for (String t : List.of(name, hold, dlq)) {
            assertThat(configs.get(t).get("max.message.bytes").value()).as(t).isEqualTo(FOUR_MB);
        }
        assertThat(configs.get(hold).get("retention.ms").value())
                .isEqualTo(Long.toString(Duration.ofDays(7).toMillis()));
        assertThat(configs.get(dlq).get("retention.ms").value())
                .isEqualTo(Long.toString(Duration.ofDays(30).toMillis()));
    }

    @Test
    @DisplayName("a message larger than its topic accepts fails at once, naming the topic and the settings to raise")
    void tooLargeForTheTopicFailsClearly() {
        String name = kafka.topicName("too-large");
        Topic<Blob> topic = Topic.builder(name, Blob.class).dlq().build();
        KafkaConfig config = KafkaConfig.builder(KafkaFixture.bootstrap())
                .partitions(1)
                .clientProperty("max.request.size", FOUR_MB) // the producer would send it; the topic refuses it
                .build();
        try (Broker<Kafka> broker = Broker.connect(config)) {
            broker.topology().declare(topic);
            assertThatThrownBy(() -> broker.publisher().publish(topic, new Blob(1, "x".repeat(TWO_MB))))
                    .isInstanceOf(PublishException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("max.message.bytes")
                    .hasMessageContaining("max.request.size")
                    .satisfies(e ->
                            assertThat(((PublishException) e).isRetriable()).isFalse());
        }
    }
}
