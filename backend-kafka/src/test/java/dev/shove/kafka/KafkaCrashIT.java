package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kills a consumer with SIGKILL while its retries wait in the hold topic: the consumer runs in a child JVM ({@link
 * RetryingChild}), so nothing of it can clean up (no commit, no leave-group, no relay shutdown). Another consumer of
 * the same group must then receive every retry.
 */
class KafkaCrashIT {
    record Msg(int n) {}

    private static final int MESSAGES = 30;
    private static final long TIER_MS = 6_000;
    private static final List<String> created = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void kafka() {
        KafkaTestSupport.requireKafka();
    }

    @AfterAll
    static void cleanUp() {
        KafkaTestSupport.deleteTopics(created);
    }

    @Test
    @DisplayName("a consumer killed while its retries wait in the hold topic loses none of them")
    void killDuringHoldLosesNothing() throws Exception {
        String name = KafkaTestSupport.unique("crash");
        created.add(name);
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(TIER_MS))
                .dlq()
                .build();
        try (Broker<Kafka> broker = Broker.connect(KafkaTestSupport.config())) {
            broker.topology().declare(topic);

            Process child = startChild(name);
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
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
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("STARTED"));
                broker.publisher()
                        .publishBatch(
                                topic,
                                IntStream.range(0, MESSAGES).mapToObj(Msg::new).toList());
                // Every message was handled once and retried: its copy is in the hold topic, its original committed.
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> firstAttempts(lines).size() == MESSAGES);
                await().atMost(Duration.ofSeconds(30)).until(() -> KafkaTestSupport.lag(name, name) == 0);
                assertThat(secondAttempts(lines))
                        .as("nothing came back from the hold yet")
                        .isEmpty();
            } finally {
                child.destroyForcibly(); // SIGKILL: no drain, no commit, no leave-group
                child.waitFor(30, TimeUnit.SECONDS);
                reader.join(5_000);
            }
            assertThat(secondAttempts(lines))
                    .as("killed before any retry was due")
                    .isEmpty();

            Map<Integer, Integer> retried = new ConcurrentHashMap<>();
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.of(KafkaConsumerGroupConfig.of(1, 1)), () -> (m, meta, c) -> {
                retried.merge(m.n(), meta.retryCount(), Math::max);
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(90)).until(() -> retried.size() == MESSAGES);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
            assertThat(retried.keySet())
                    .containsExactlyInAnyOrderElementsOf(
                            IntStream.range(0, MESSAGES).boxed().toList());
            assertThat(retried.values())
                    .as("every message came back through the hold topic")
                    .containsOnly(1);
        }
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

    private static Process startChild(String topic) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add(RetryingChild.class.getName());
        command.add(KafkaTestSupport.bootstrap());
        command.add(topic);
        command.add(Long.toString(TIER_MS));
        return new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }
}
