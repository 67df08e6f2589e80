package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.conformance.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kills a consumer with SIGKILL while its retries wait in the hold topic: the consumer runs in a child JVM ({@link
 * RetryingChild}), so nothing of it can clean up (no commit, no leave-group, no relay shutdown). Another consumer of
 * the same group must then receive every retry.
 */
class KafkaCrashIT {
    record Msg(int n) {}

    private static final int MESSAGES = 30;
    private static final long TIER_MS = 6_000;
    /** Longer than the dead consumer's session timeout and the next one's join, so the due time is still ahead. */
    private static final long SEQUENCED_TIER_MS = 20_000;

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("a consumer killed while its retries wait in the hold topic loses none of them")
    void killDuringHoldLosesNothing() throws Exception {
        String name = kafka.topicName("crash");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(TIER_MS))
                .dlq()
                .build();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);

            Process child = startChild(name, TIER_MS);
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = readLines(child, lines);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher()
                        .publishBatch(
                                topic,
                                IntStream.range(0, MESSAGES).mapToObj(Msg::new).toList());
                // Every message was handled once and retried: its copy is in the hold topic, its original committed.
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> firstAttempts(lines).size() == MESSAGES);
                await().atMost(Duration.ofSeconds(30)).until(() -> kafka.lag(name, name) == 0);
                assertThat(secondAttempts(lines))
                        .as("nothing came back from the hold yet")
                        .isEmpty();
            } finally {
                ChildJvm.kill(child); // SIGKILL: no drain, no commit, no leave-group
                reader.join(5_000);
            }
            assertThat(secondAttempts(lines))
                    .as("killed before any retry was due")
                    .isEmpty();

            Map<Integer, Integer> retried = new ConcurrentHashMap<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                retried.merge(m.n(), meta.retryCount(), Math::max);
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(90)).until(() -> retried.size() == MESSAGES);
            kafka.assertStopsCleanly(group);
            assertThat(retried.keySet())
                    .containsExactlyInAnyOrderElementsOf(
                            IntStream.range(0, MESSAGES).boxed().toList());
            assertThat(retried.values())
                    .as("every message came back through the hold topic")
                    .containsOnly(1);
        }
    }

    @Test
    @DisplayName("a consumer killed while sequenced retries wait in place: the next one resumes each with its retry"
            + " count and due time, and its key stays behind it")
    void killDuringSequencedWaitKeepsCountAndDueTime() throws Exception {
        String name = kafka.topicName("crash-seq");
        int messages = 10; // keys k0..k4, two messages each
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(SEQUENCED_TIER_MS))
                .dlq()
                .sequenced(SequenceFailure.SKIP, m -> RetryingChild.key(m.n()))
                .build();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);

            Process child = startChild(name, SEQUENCED_TIER_MS, "sequenced");
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = readLines(child, lines);
            long firstAttemptsSeen;
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher()
                        .publishBatch(
                                topic,
                                IntStream.range(0, messages).mapToObj(Msg::new).toList());
                // The first message of each key ran and waits in place; the second of each key waits behind it.
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> firstAttempts(lines).size() == 5);
                firstAttemptsSeen = System.currentTimeMillis();
                // The waits reached the committed offsets' metadata.
                await().atMost(Duration.ofSeconds(30)).until(() -> committedWaits(name) == 5);
                assertThat(firstAttempts(lines)).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
            } finally {
                ChildJvm.kill(child); // SIGKILL: no drain, no commit, no leave-group
                reader.join(5_000);
            }
            assertThat(secondAttempts(lines))
                    .as("killed before any retry was due")
                    .isEmpty();

            List<String> calls = new CopyOnWriteArrayList<>();
            Map<Integer, Long> firstCallAt = new ConcurrentHashMap<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                calls.add(m.n() + "@" + meta.retryCount());
                firstCallAt.putIfAbsent(m.n(), System.currentTimeMillis());
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(90)).until(() -> calls.size() == messages);
            kafka.assertStopsCleanly(group);

            assertThat(calls)
                    .as("the waiting first message of each key resumes with retryCount 1; the second was never run")
                    .containsExactlyInAnyOrder("0@1", "1@1", "2@1", "3@1", "4@1", "5@0", "6@0", "7@0", "8@0", "9@0");
            for (int n = 0; n < 5; n++) {
                assertThat(firstCallAt.get(n))
                        .as("message %d waits out its delay", n)
                        .isGreaterThanOrEqualTo(firstAttemptsSeen + SEQUENCED_TIER_MS - 1_000);
                assertThat(firstCallAt.get(n + 5))
                        .as("message %d runs after the first of its key", n + 5)
                        .isGreaterThanOrEqualTo(firstCallAt.get(n));
            }
        }
    }

    /** The waits recorded in the metadata of the group's committed offsets, over all partitions. */
    private static int committedWaits(String group) throws Exception {
        return kafka
                .admin()
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS)
                .values()
                .stream()
                .filter(om -> om != null)
                .mapToInt(om -> WaitingOffsets.decode(om.metadata()).size())
                .sum();
    }

    private static Thread readLines(Process child, List<String> lines) {
        return Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (Exception e) {
                // the child died
            }
        });
    }

    private static Set<Integer> firstAttempts(List<String> lines) {
        return attempts(lines, "0");
    }

    private static Set<Integer> secondAttempts(List<String> lines) {
        return attempts(lines, "1");
    }

    private static Set<Integer> attempts(List<String> lines, String retryCount) {
        return lines.stream()
                .filter(l -> l.startsWith("HANDLED "))
                .map(l -> l.split(" "))
                .filter(p -> p[2].equals(retryCount))
                .map(p -> Integer.parseInt(p[1]))
                .collect(Collectors.toSet());
    }

    private static Process startChild(String topic, long tierMs, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(KafkaFixture.bootstrap(), topic, Long.toString(tierMs)));
        args.addAll(List.of(more));
        return ChildJvm.start(RetryingChild.class, args.toArray(String[]::new));
    }
}
