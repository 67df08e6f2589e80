package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The hold relay: retries come back when due, none held up by another, whatever happens to the relay. */
class KafkaHoldRelayIT {
    record Msg(String id) {}

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("a retry longer than the longest tier does not hold up a short retry behind it in its hold partition")
    void longRetryDoesNotBlockShortRetry() throws Exception {
        String name = kafka.topicName("relay-long");
        String hold = name + "-hold-1s";
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Map<String, Long> firstSeen = new ConcurrentHashMap<>();
        Map<String, Long> backAt = new ConcurrentHashMap<>();
        // one partition per topic: both hold copies land in the same hold partition, the long one first
        try (Broker<Kafka> broker = kafka.connect(1)) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                if (meta.retryCount() == 0) {
                    firstSeen.put(m.id(), System.currentTimeMillis());
                    return m.id().equals("long") ? Outcome.retry(Duration.ofHours(1)) : Outcome.retry();
                }
                backAt.putIfAbsent(m.id(), System.currentTimeMillis());
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, new Msg("long"));
            await().atMost(Duration.ofSeconds(30)).until(() -> kafka.endOffset(hold) == 1);
            broker.publisher().publish(topic, new Msg("short"));

            await().atMost(Duration.ofSeconds(20)).until(() -> backAt.containsKey("short"));
            // its 1 s tier, plus the hops through the hold topic and back: far below the long retry's hour
            assertThat(backAt.get("short") - firstSeen.get("short")).isLessThan(15_000);
            assertThat(backAt).doesNotContainKey("long");
            kafka.assertStopsCleanly(group);
        }
        // the long retry still waits in the hold topic, due when the core said (an hour from its first attempt)
        List<ConsumerRecord<byte[], byte[]>> held = kafka.readAll(hold, Duration.ofSeconds(1));
        List<Long> dueTimes = held.stream()
                .filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains("long"))
                .map(r -> Long.parseLong(KafkaHeaders.get(r.headers(), ShoveHeaders.NOT_BEFORE)))
                .distinct()
                .toList();
        assertThat(dueTimes).hasSize(1);
        assertThat(dueTimes.getFirst() - firstSeen.get("long")).isBetween(3_590_000L, 3_610_000L);
    }
}
