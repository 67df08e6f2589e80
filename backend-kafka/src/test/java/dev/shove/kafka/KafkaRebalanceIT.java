package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Consumers joining and leaving the Kafka group while records are in flight. */
class KafkaRebalanceIT {
    record Msg(int n) {}

    private static final int MESSAGES = 300;

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("a rebalance with records in flight loses nothing and leaves nothing uncommitted")
    void rebalanceLosesNothing() throws Exception {
        String name = kafka.topicName("rebalance");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        try (Broker<Kafka> broker = kafka.connect()) {
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .consumers(1, 3)
                            .prefetch(20)
                            .noAutoscaler()
                            .build(),
                    () -> (m, meta, c) -> {
                        Thread.sleep(5); // keep records in flight while the group rebalances
                        handled.add(m.n());
                        // every tenth message also takes a trip through the hold topic
                        return m.n() % 10 == 0 && meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
                    });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, MESSAGES).mapToObj(Msg::new).toList());
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() >= 40);
            assertThat(group.scaleUp(topic)).isTrue(); // rebalance 1: partitions move to the new member
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() >= 120);
            assertThat(group.scaleUp(topic)).isTrue(); // rebalance 2
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() >= 200);
            group.scaleDown(topic); // rebalance 3 if a consumer is idle (best effort: scaleDown takes idle ones only)
            await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == MESSAGES);
            await().atMost(Duration.ofSeconds(30)).until(() -> kafka.lag(name, name) == 0);
            kafka.assertStopsCleanly(group);
        }
        assertThat(handled)
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, MESSAGES).boxed().toList());
    }
}
