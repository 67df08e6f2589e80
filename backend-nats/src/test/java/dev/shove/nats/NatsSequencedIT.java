package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Sequenced topics across processes: the shard leases deal shards between the group's consumers and keep key order. */
class NatsSequencedIT {
    record Msg(String key, int n) {}

    private static final Set<String> before = new HashSet<>();

    @BeforeAll
    static void nats() throws Exception {
        NatsTestSupport.requireNats();
        before.addAll(NatsTestSupport.streams());
    }

    @AfterAll
    static void cleanUp() throws Exception {
        NatsTestSupport.deleteStreamsCreatedSince(before);
    }

    @Test
    @DisplayName("a second process joins a sequenced group mid-stream and leaves again: shards move both ways, every"
            + " message is handled, and each key stays in publish order")
    void shardsMoveBetweenProcessesInOrder() throws Exception {
        Topic<Msg> topic = Topic.builder(NatsTestSupport.unique("seq-handover"), Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(4)
                .build();
        int messages = 400;
        Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
        Set<Integer> byA = ConcurrentHashMap.newKeySet();
        Set<Integer> byB = ConcurrentHashMap.newKeySet();
        NatsConfig config = NatsTestSupport.config().build();
        try (Broker<Nats> a = Broker.connect(config)) {
            a.topology().declare(topic);
            var groupA = a.consumerGroup();
            groupA.register(topic, ConsumerGroupConfig.builder().prefetch(2).build(), () -> (m, meta, c) -> {
                Thread.sleep(30);
                byKey.computeIfAbsent(m.key(), k -> new CopyOnWriteArrayList<>())
                        .add(m.n());
                byA.add(m.n());
                return Outcome.ack();
            });
            groupA.start();
            for (int n = 0; n < messages; n++) {
                a.publisher().publish(topic, new Msg("k" + n % 10, n));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> byA.size() >= messages / 8);

            try (Broker<Nats> b = Broker.connect(config)) {
                var groupB = b.consumerGroup();
                groupB.register(topic, ConsumerGroupConfig.builder().prefetch(2).build(), () -> (m, meta, c) -> {
                    Thread.sleep(30);
                    byKey.computeIfAbsent(m.key(), k -> new CopyOnWriteArrayList<>())
                            .add(m.n());
                    byB.add(m.n());
                    return Outcome.ack();
                });
                groupB.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> byB.size() >= 20);
                assertThat(groupB.stop(Duration.ofSeconds(10)).isClean()).isTrue();
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> handled(byKey) == messages);
            assertThat(groupA.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(byB).as("the second process got shards").isNotEmpty();
        for (Map.Entry<String, List<Integer>> e : byKey.entrySet()) {
            List<Integer> firsts =
                    new ArrayList<>(e.getValue().stream().distinct().toList());
            assertThat(firsts).as("key %s in publish order", e.getKey()).isSorted();
        }
        assertThat(IntStream.range(0, messages).allMatch(n -> byA.contains(n) || byB.contains(n)))
                .isTrue();
    }

    private static long handled(Map<String, List<Integer>> byKey) {
        return byKey.values().stream()
                .mapToLong(l -> l.stream().distinct().count())
                .sum();
    }
}
