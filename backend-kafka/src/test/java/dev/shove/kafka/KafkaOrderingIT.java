package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageHandler;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Per-key order on a sequenced topic: keys in parallel inside a partition, strict order within a key. */
class KafkaOrderingIT {
    record Msg(String key, int n) {}

    private static final int KEYS = 12;
    private static final int PER_KEY = 20;

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    private static Topic<Msg> topic(String name, SequenceFailure onFailure) {
        return Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(150))
                .dlq()
                .sequenced(onFailure, Msg::key)
                .routingShards(3)
                .build();
    }

    private static List<Msg> messages() {
        List<Msg> all = new ArrayList<>();
        for (int n = 0; n < PER_KEY; n++) {
            for (int k = 0; k < KEYS; k++) {
                all.add(new Msg("k" + k, n));
            }
        }
        return all;
    }

    @Test
    @DisplayName("per-key order holds across a retry and across a consumer restart")
    void orderHoldsAcrossRetryAndRestart() {
        String name = kafka.topicName("order");
        Topic<Msg> topic = topic(name, SequenceFailure.SKIP);
        Map<String, List<Integer>> firstRun = new ConcurrentHashMap<>();
        Map<String, List<Integer>> secondRun = new ConcurrentHashMap<>();
        AtomicInteger handled = new AtomicInteger();
        try (Broker<Kafka> broker = kafka.connect()) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.builder().prefetch(8).build(), () -> handler(firstRun, handled));
            group.start();
            broker.publisher().publishBatch(topic, messages());
            await().atMost(Duration.ofSeconds(60)).until(() -> handled.get() >= KEYS * PER_KEY / 3);
            kafka.assertStopsCleanly(group, Duration.ofSeconds(15));
        }
        try (Broker<Kafka> broker = kafka.connect()) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.builder().prefetch(8).build(), () -> handler(secondRun, handled));
            group.start();
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                for (int k = 0; k < KEYS; k++) {
                    if (seen(firstRun, secondRun, "k" + k).size() < PER_KEY) {
                        return false;
                    }
                }
                return true;
            });
            kafka.assertStopsCleanly(group, Duration.ofSeconds(15));
        }
        List<Integer> expected = IntStream.range(0, PER_KEY).boxed().toList();
        for (int k = 0; k < KEYS; k++) {
            String key = "k" + k;
            assertThat(firstRun.getOrDefault(key, List.of()))
                    .as("first run of %s", key)
                    .isSorted();
            assertThat(secondRun.getOrDefault(key, List.of()))
                    .as("second run of %s", key)
                    .isSorted();
            assertThat(new ArrayList<>(seen(firstRun, secondRun, key)))
                    .as("%s overall", key)
                    .isEqualTo(expected);
        }
    }

    @Test
    @DisplayName("FAIL_ALL dead-letters the failed message and every later message of its key, other keys go on")
    void failAllDeadLettersTheRestOfTheKey() {
        String name = kafka.topicName("failall");
        Topic<Msg> topic = topic(name, SequenceFailure.FAIL_ALL);
        List<String> acked = new CopyOnWriteArrayList<>();
        List<String> dead = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect()) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> new MessageHandler<Msg, NoContext>() {
                @Override
                public Outcome handle(Msg m, dev.shove.MessageMetadata meta, NoContext c) {
                    if (m.key().equals("k1") && m.n() == 5) {
                        return Outcome.reject("boom");
                    }
                    acked.add(m.key() + ":" + m.n());
                    return Outcome.ack();
                }

                @Override
                public void handleDead(Msg m, dev.shove.DeadMessageMetadata meta, NoContext c) {
                    dead.add(m.key() + ":" + m.n());
                }
            });
            group.start();
            broker.publisher().publishBatch(topic, messages());
            await().atMost(Duration.ofSeconds(60)).until(() -> acked.size() + dead.size() == KEYS * PER_KEY);
            kafka.assertStopsCleanly(group);
        }
        assertThat(dead)
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(5, PER_KEY).mapToObj(n -> "k1:" + n).toList());
        assertThat(acked).filteredOn(s -> s.startsWith("k1:")).hasSize(5);
    }

    @Test
    @DisplayName("a consumer behind on several partitions runs the keys of all of them at once, not one partition's")
    void backlogOfSeveralPartitionsRunsTheirKeysTogether() {
        // FNV-1a-64 puts a, b, c and d on shards (partitions) 0, 1, 2 and 3 of 4; the test checks that it did.
        List<String> keys = List.of("a", "b", "c", "d");
        int perKey = 40;
        Topic<Msg> topic = Topic.builder(kafka.topicName("spread"), Msg.class)
                .holdQueue(Duration.ofMillis(150))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(4)
                .build();
        List<Msg> all = new ArrayList<>();
        for (int n = 0; n < perKey; n++) {
            for (String key : keys) {
                all.add(new Msg(key, n));
            }
        }
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostRunning = new AtomicInteger();
        AtomicInteger handled = new AtomicInteger();
        Map<String, Integer> partitionOfKey = new ConcurrentHashMap<>();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);
            broker.publisher().publishBatch(topic, all); // the whole backlog is there before the consumer starts
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder().prefetch(4).laneBuffer(4).build(),
                    () -> (m, meta, c) -> {
                        partitionOfKey.put(m.key(), meta.partition().orElse(-1));
                        mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                        Thread.sleep(10);
                        running.decrementAndGet();
                        handled.incrementAndGet();
                        return Outcome.ack();
                    });
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> handled.get() == all.size());
            kafka.assertStopsCleanly(group);
        }
        assertThat(partitionOfKey).containsExactlyInAnyOrderEntriesOf(Map.of("a", 0, "b", 1, "c", 2, "d", 3));
        // Handed out one partition's fetch at a time, the window of 8 would hold one key (one partition) at a time.
        assertThat(mostRunning.get()).as("keys handled at once").isEqualTo(4);
    }

    private static LinkedHashSet<Integer> seen(
            Map<String, List<Integer>> first, Map<String, List<Integer>> second, String key) {
        LinkedHashSet<Integer> all = new LinkedHashSet<>(first.getOrDefault(key, List.of()));
        all.addAll(second.getOrDefault(key, List.of()));
        return all;
    }

    private static MessageHandler<Msg, NoContext> handler(Map<String, List<Integer>> log, AtomicInteger handled) {
        return (m, meta, c) -> {
            // every fifth message of a key fails once: it waits in place and holds its key
            if (m.n() % 5 == 2 && meta.retryCount() == 0) {
                return Outcome.retry();
            }
            Thread.sleep(2);
            log.computeIfAbsent(m.key(), k -> new CopyOnWriteArrayList<>()).add(m.n());
            handled.incrementAndGet();
            return Outcome.ack();
        };
    }
}
