package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.conformance.ChildJvm;
import io.nats.client.Connection;
import io.nats.client.api.ConsumerInfo;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kills a consumer with SIGKILL at the worst moments: the consumer runs in a child JVM ({@link NatsChild}), so nothing
 * of it can clean up (no ack, no nak, no lease given back). Another consumer of the same group must then receive every
 * message, with the retry counts and due times the dead one left.
 */
class NatsCrashIT {
    record Msg(int n) {}

    private static final int MESSAGES = 20;
    private static final long TIER_MS = 6_000;
    /** The engine runs a retry waiting in place up to this much before its due time (timer jitter). */
    private static final long ENGINE_TOLERANCE_MS = 50;

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
    @DisplayName("a consumer killed while its retries and defers wait out their delay loses none: each comes back once,"
            + " not before its delay, retries with retryCount 1 and defers with 0, and nothing loops")
    void killDuringHoldLosesNothing() throws Exception {
        String name = NatsTestSupport.unique("crash-hold");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(TIER_MS))
                .dlq()
                .build();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            broker.topology().declare(topic);
            Process child = startChild(name, TIER_MS, "retry");
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = readLines(child, lines);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher()
                        .publishBatch(
                                topic,
                                IntStream.range(0, MESSAGES).mapToObj(Msg::new).toList());
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> attempts(lines).size() == MESSAGES);
                // every original is acknowledged, which happens only once its copy is stored
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    ConsumerInfo main = consumer(name, name);
                    return main.getAckFloor().getStreamSequence() >= MESSAGES && main.getNumAckPending() == 0;
                });
            } finally {
                ChildJvm.kill(child); // SIGKILL
                reader.join(5_000);
            }
            assertThat(lines.stream().filter(l -> l.startsWith("HANDLED ")).count())
                    .as("killed before any copy was due")
                    .isEqualTo(MESSAGES);

            Map<Integer, List<Integer>> calls = new ConcurrentHashMap<>();
            Map<Integer, Long> calledAt = new ConcurrentHashMap<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                calls.computeIfAbsent(m.n(), k -> new CopyOnWriteArrayList<>()).add(meta.retryCount());
                calledAt.putIfAbsent(m.n(), System.currentTimeMillis());
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> calls.size() == MESSAGES);
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> calls.size() == MESSAGES);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();

            for (int n = 0; n < MESSAGES; n++) {
                assertThat(calls.get(n))
                        .as("message %d comes back once, %s", n, n % 2 == 0 ? "a retry" : "a defer")
                        .containsExactly(n % 2 == 0 ? 1 : 0);
                assertThat(calledAt.get(n))
                        .as("message %d waited its delay", n)
                        .isGreaterThanOrEqualTo(attemptedAt(lines, n) + TIER_MS);
            }
            ConsumerInfo retry = consumer(name, name + "_retry");
            assertThat(retry.getDelivered().getConsumerSequence())
                    .as(
                            "each copy was delivered to park it and once more when due (server 2.9 sometimes twice), give or"
                                    + " take the crash: a few deliveries per copy, never a loop")
                    .isLessThanOrEqualTo(5L * MESSAGES);
        }
    }

    @Test
    @DisplayName(
            "a consumer killed in the middle of its handlers loses nothing: the next one gets those messages again,"
                    + " flagged redelivered")
    void killMidHandlerLosesNothing() throws Exception {
        String name = NatsTestSupport.unique("crash-handler");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(TIER_MS))
                .dlq()
                .build();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            broker.topology().declare(topic);
            Process child = startChild(name, TIER_MS, "hang");
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = readLines(child, lines);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher()
                        .publishBatch(
                                topic, IntStream.range(0, 10).mapToObj(Msg::new).toList());
                // prefetch 5: five handlers hang, five messages wait on the server
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> attempts(lines).size() == 5);
            } finally {
                ChildJvm.kill(child);
                reader.join(5_000);
            }
            Set<Integer> hung = attempts(lines);

            Map<Integer, Boolean> redelivered = new ConcurrentHashMap<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                redelivered.put(m.n(), meta.redelivered());
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> redelivered.size() == 10);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
            for (int n : hung) {
                assertThat(redelivered.get(n))
                        .as("message %d was with the dead consumer", n)
                        .isTrue();
            }
        }
    }

    @Test
    @DisplayName("a consumer killed while sequenced retries wait in place: the next one resumes each with its retry"
            + " count and due time, and its key stays behind it")
    void killDuringSequencedWaitKeepsCountAndDueTime() throws Exception {
        String name = NatsTestSupport.unique("crash-seq");
        int messages = 10; // keys k0..k4, two messages each
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(TIER_MS))
                .dlq()
                .sequenced(SequenceFailure.SKIP, m -> NatsChild.key(m.n()))
                .build();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            broker.topology().declare(topic);
            Process child = startChild(name, TIER_MS, "sequenced");
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = readLines(child, lines);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher()
                        .publishBatch(
                                topic,
                                IntStream.range(0, messages).mapToObj(Msg::new).toList());
                // the first message of each key ran and waits in place; the second waits behind it
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> attempts(lines).size() == 5);
                await().atMost(Duration.ofSeconds(30)).until(() -> storedWaits(name) == 5);
                assertThat(attempts(lines)).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
            } finally {
                ChildJvm.kill(child);
                reader.join(5_000);
            }

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
                        .isGreaterThanOrEqualTo(attemptedAt(lines, n) + TIER_MS - ENGINE_TOLERANCE_MS);
                assertThat(firstCallAt.get(n + 5))
                        .as("message %d runs after the first of its key", n + 5)
                        .isGreaterThanOrEqualTo(firstCallAt.get(n));
            }
        }
    }

    private static ConsumerInfo consumer(String stream, String name) throws Exception {
        Connection c = NatsTestSupport.raw();
        try {
            return c.jetStreamManagement().getConsumerInfo(stream, name);
        } finally {
            c.close();
        }
    }

    /** The waits stored for a topic's default group. */
    private static int storedWaits(String topic) throws Exception {
        Connection c = NatsTestSupport.raw();
        try {
            return c.keyValue(NatsTransport.WAITS_BUCKET)
                    .keys(topic + "." + topic + ".>")
                    .size();
        } finally {
            c.close();
        }
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

    /** When the child handled message {@code n} first (its clock is this machine's). */
    private static long attemptedAt(List<String> lines, int n) {
        return lines.stream()
                .filter(l -> l.startsWith("HANDLED " + n + " 0 "))
                .mapToLong(l -> Long.parseLong(l.split(" ")[3]))
                .min()
                .orElseThrow();
    }

    /** The messages the child handled with retry count 0. */
    private static Set<Integer> attempts(List<String> lines) {
        return lines.stream()
                .filter(l -> l.startsWith("HANDLED "))
                .map(l -> l.split(" "))
                .filter(p -> p[2].equals("0"))
                .map(p -> Integer.parseInt(p[1]))
                .collect(Collectors.toSet());
    }

    private static Process startChild(String topic, long tierMs, String mode) throws Exception {
        return ChildJvm.start(NatsChild.class, NatsTestSupport.URL, topic, Long.toString(tierMs), mode);
    }
}
