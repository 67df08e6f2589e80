package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.conformance.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kills a consumer with SIGKILL mid-handler, mid-hold and mid-wait: the consumer runs in a child JVM ({@link
 * RedisChild}), so nothing of it can clean up (no acknowledgement, no hand-back, no lease release). Another consumer
 * of the same group must then receive every message, as the contract says.
 */
class RedisCrashIT {
    private static final int MESSAGES = 20;

    private static RedisTestSupport redis;

    @BeforeAll
    static void redis() {
        redis = RedisTestSupport.connect();
    }

    @AfterAll
    static void cleanUp() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    @DisplayName("entries left pending by a consumer killed mid-handler are reclaimed by another, with their retry"
            + " count unspent and their delivery counted")
    void killMidHandlerLosesNothing() throws Exception {
        String name = RedisTestSupport.unique("crash-handler");
        redis.forget(name);
        Topic<RedisChild.Msg> topic = RedisChild.topic(name, 1_000, false);
        try (Broker<Redis> broker = Broker.connect(RedisChild.config(RedisTestSupport.uri()))) {
            broker.topology().declare(topic);
            List<String> lines = new CopyOnWriteArrayList<>();
            Process child = startChild(name, 1_000, "hang", lines);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher().publishBatch(topic, messages(MESSAGES));
                // prefetch 10: ten handlers run (and hang), the other entries wait in the stream
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> attempts(lines, 0).size() == 10);
            } finally {
                kill(child);
            }
            Map<Integer, String> seen = new ConcurrentHashMap<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                seen.merge(m.n(), meta.retryCount() + "/" + meta.deliveryCount().orElse(0), (a, b) -> a + "," + b);
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == MESSAGES);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
            List<Integer> hung = attempts(lines, 0);
            for (int n = 0; n < MESSAGES; n++) {
                // read ahead by the child but never started: reclaimed too (2), or never read by it (1)
                List<String> expected = hung.contains(n) ? List.of("0/2") : List.of("0/1", "0/2");
                assertThat(seen.get(n))
                        .as("message %d: handled once, retryCount 0, delivery count counted", n)
                        .isIn(expected);
            }
        }
    }

    @Test
    @DisplayName("retries held when their consumer is killed come back once each, with retryCount 1")
    void killMidHoldLosesNothing() throws Exception {
        String name = RedisTestSupport.unique("crash-hold");
        redis.forget(name);
        long tierMs = 4_000;
        Topic<RedisChild.Msg> topic = RedisChild.topic(name, tierMs, false);
        try (Broker<Redis> broker = Broker.connect(RedisChild.config(RedisTestSupport.uri()))) {
            broker.topology().declare(topic);
            List<String> lines = new CopyOnWriteArrayList<>();
            Process child = startChild(name, tierMs, "retry", lines);
            String tier = RedisConfig.DEFAULT_KEY_PREFIX + "{" + name + "}:"
                    + topic.holdTiers().getFirst().queue();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher().publishBatch(topic, messages(MESSAGES));
                await().atMost(Duration.ofSeconds(30)).until(() -> redis.redis().zcard(tier) == MESSAGES);
                assertThat(attempts(lines, 1))
                        .as("nothing came back from the hold yet")
                        .isEmpty();
            } finally {
                kill(child);
            }
            Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                seen.computeIfAbsent(m.n(), k -> new CopyOnWriteArrayList<>()).add(meta.retryCount());
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == MESSAGES);
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> seen.size() == MESSAGES);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
            assertThat(seen.values()).allSatisfy(rc -> assertThat(rc).containsExactly(1));
            assertThat(redis.redis().zcard(tier)).isZero();
        }
    }

    @Test
    @DisplayName("a consumer killed while sequenced retries wait in place: the next one resumes each with its retry"
            + " count and due time, and its key stays behind it")
    void killDuringSequencedWait() throws Exception {
        String name = RedisTestSupport.unique("crash-seq");
        redis.forget(name);
        long tierMs = 8_000;
        int messages = 10; // keys k0..k4, two messages each
        Topic<RedisChild.Msg> topic = RedisChild.topic(name, tierMs, true);
        try (Broker<Redis> broker = Broker.connect(RedisChild.config(RedisTestSupport.uri()))) {
            broker.topology().declare(topic);
            List<String> lines = new CopyOnWriteArrayList<>();
            Process child = startChild(name, tierMs, "sequenced", lines);
            long firstAttemptsSeen;
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher().publishBatch(topic, messages(messages));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> attempts(lines, 0).size() == 5);
                firstAttemptsSeen = System.currentTimeMillis();
                String waits = RedisConfig.DEFAULT_KEY_PREFIX + "{" + name + "}:waits:" + name;
                await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().hlen(waits) == 5);
            } finally {
                kill(child);
            }
            assertThat(attempts(lines, 1)).as("killed before any retry was due").isEmpty();
            List<String> calls = new CopyOnWriteArrayList<>();
            Map<Integer, Long> firstCallAt = new ConcurrentHashMap<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                calls.add(m.n() + "@" + meta.retryCount());
                firstCallAt.putIfAbsent(m.n(), System.currentTimeMillis());
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> calls.size() == messages);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
            assertThat(calls)
                    .as("the waiting first message of each key resumes with retryCount 1; the second was never run")
                    .containsExactlyInAnyOrder("0@1", "1@1", "2@1", "3@1", "4@1", "5@0", "6@0", "7@0", "8@0", "9@0");
            for (int n = 0; n < 5; n++) {
                assertThat(firstCallAt.get(n))
                        .as("message %d waits out its delay", n)
                        .isGreaterThanOrEqualTo(firstAttemptsSeen + tierMs - 1_000);
                assertThat(firstCallAt.get(n + 5))
                        .as("message %d runs after the first of its key", n + 5)
                        .isGreaterThanOrEqualTo(firstCallAt.get(n));
            }
        }
    }

    private static List<RedisChild.Msg> messages(int count) {
        return IntStream.range(0, count).mapToObj(RedisChild.Msg::new).toList();
    }

    private static void kill(Process child) throws InterruptedException {
        ChildJvm.kill(child); // SIGKILL: no drain, no acknowledgement, no hand-back
    }

    /** The messages handled with this retry count, by the child's lines. */
    private static List<Integer> attempts(List<String> lines, int retryCount) {
        return lines.stream()
                .filter(l -> l.startsWith("HANDLED "))
                .map(l -> l.split(" "))
                .filter(p -> Integer.parseInt(p[2]) == retryCount)
                .map(p -> Integer.parseInt(p[1]))
                .distinct()
                .toList();
    }

    private static Process startChild(String topic, long tierMs, String mode, List<String> lines) throws Exception {
        Process child = ChildJvm.start(RedisChild.class, RedisTestSupport.uri(), topic, Long.toString(tierMs), mode);
        Thread.ofPlatform().daemon().start(() -> {
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
        return child;
    }
}
