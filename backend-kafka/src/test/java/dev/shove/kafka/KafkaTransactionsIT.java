package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.conformance.ChildJvm;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transactional settlement ({@link KafkaConfig.Builder#transactional()}) is exactly-once within Kafka: a consumer
 * killed inside a transaction that wrote replies leaves none of them visible to {@code read_committed} readers, its
 * successor answers every message once, and the committed offsets agree with the replies; an aborted transaction's
 * records are read and answered again, and its copies stay invisible.
 */
class KafkaTransactionsIT {
    record Msg(int n) {}

    private static final Pattern N = Pattern.compile("\"n\"\\s*:\\s*(-?\\d+)");

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName(
            "a consumer killed after writing replies in an uncommitted transaction: read_committed readers see each"
                    + " reply exactly once and the group's offsets cover every message")
    void killInsideTransactionLeavesEachReplyOnce() throws Exception {
        int messages = 60;
        String name = kafka.topicName("txn-crash");
        String replyName = name + "-replies";
        Topic<Msg> topic = Topic.builder(name, Msg.class).build();
        Topic<Msg> replies = Topic.builder(replyName, Msg.class).build();
        String clientName = "txn-child-" + name;
        try (Broker<Kafka> broker = Broker.connect(kafka.config(2))) {
            broker.topology().declare(topic);
            broker.topology().declare(replies);
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, messages).mapToObj(Msg::new).toList());

            // The first consumer halts as soon as its 20th reply is on the broker, inside an open transaction.
            Process first = startChild(name, replyName, clientName, 20);
            List<String> firstLines = new CopyOnWriteArrayList<>();
            Thread firstReader = readLines(first, firstLines);
            assertThat(first.waitFor(90, TimeUnit.SECONDS))
                    .as("the first child halts")
                    .isTrue();
            firstReader.join(5_000);
            assertThat(first.exitValue()).as("halted by its interceptor").isEqualTo(137);
            assertThat(firstLines).contains("HALT");

            // Its successor (same client name, so the same transactional ids) aborts what it left open and goes on.
            Process second = startChild(name, replyName, clientName, -1);
            List<String> secondLines = new CopyOnWriteArrayList<>();
            Thread secondReader = readLines(second, secondLines);
            try {
                await().atMost(Duration.ofSeconds(90)).until(() -> kafka.lag(name, name) == 0);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> replyCounts(replyName, "read_committed").size() == messages);
            } finally {
                ChildJvm.kill(second);
                secondReader.join(5_000);
            }

            Map<Integer, Long> committed = replyCounts(replyName, "read_committed");
            assertThat(committed.keySet())
                    .containsExactlyInAnyOrderElementsOf(
                            IntStream.range(0, messages).boxed().toList());
            assertThat(committed.values()).as("each reply visible once").containsOnly(1L);
            long written = replyCounts(replyName, "read_uncommitted").values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
            assertThat(written)
                    .as("the killed transaction's replies are in the log, aborted: the kill hit an open transaction")
                    .isGreaterThan(messages);
            assertThat(handled(firstLines).size() + handled(secondLines).size())
                    .as("messages of the killed transaction were handled again")
                    .isGreaterThan(messages);
        }
    }

    @Test
    @DisplayName("an aborted transaction is invisible to read_committed readers and its records are answered again")
    void abortedTransactionIsInvisibleAndRedelivered() throws Exception {
        int messages = 10;
        String name = kafka.topicName("txn-abort");
        String replyName = name + "-replies";
        Topic<Msg> topic = Topic.builder(name, Msg.class).build();
        Topic<Msg> replies = Topic.builder(replyName, Msg.class).build();
        // The reply topic takes record batches of at most 20,000 bytes: the broker refuses the large reply, failing its
        // transaction on the broker's side (the client accepts it).
        kafka.admin()
                .createTopics(
                        List.of(new NewTopic(replyName, 1, (short) 1).configs(Map.of("max.message.bytes", "20000"))))
                .all()
                .get(30, TimeUnit.SECONDS);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Map<Integer, Integer> calls = new ConcurrentHashMap<>();
        try (Broker<Kafka> broker = Broker.<Kafka>builder(kafka.config(1, true))
                .meterRegistry(meters)
                .connect()) {
            broker.topology().declare(topic);
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                int call = calls.merge(m.n(), 1, Integer::sum);
                // message 5 answers too large the first time, then normally
                String pad = m.n() == 5 && call == 1 ? "x".repeat(30_000) : "";
                return Outcome.ack().withReply(replies, m, Map.of("pad", pad));
            });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, messages).mapToObj(Msg::new).toList());
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> replyCounts(replyName, "read_committed").size() == messages);
            await().atMost(Duration.ofSeconds(30)).until(() -> kafka.lag(name, name) == 0);
            kafka.assertStopsCleanly(group);
        }
        Map<Integer, Long> committed = replyCounts(replyName, "read_committed");
        assertThat(committed.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, messages).boxed().toList());
        assertThat(committed.values()).as("each reply visible once").containsOnly(1L);
        assertThat(calls.get(5))
                .as("the record of the aborted transaction was handled again")
                .isGreaterThan(1);
        assertThat(meters.get("shove.kafka.transactions")
                        .tag("outcome", "aborted")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1.0);
        assertThat(meters.get("shove.kafka.transactions")
                        .tag("outcome", "committed")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1.0);
    }

    /** How often each reply {@code n} appears on the reply topic, read with {@code isolation}. */
    private static Map<Integer, Long> replyCounts(String replyTopic, String isolation) {
        // Quiet for 3 s: on a loaded machine the reader's first fetch alone can take longer than a second.
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(replyTopic, Duration.ofSeconds(3), isolation);
        return records.stream()
                .map(r -> {
                    Matcher m = N.matcher(new String(r.value(), StandardCharsets.UTF_8));
                    if (!m.find()) {
                        throw new IllegalStateException(
                                "not a reply: " + new String(r.value(), StandardCharsets.UTF_8));
                    }
                    return Integer.parseInt(m.group(1));
                })
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    }

    private static Set<String> handled(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("HANDLED ")).collect(Collectors.toSet());
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

    private static Process startChild(String topic, String replyTopic, String clientName, int haltAfter)
            throws Exception {
        return ChildJvm.start(
                TransactionalReplyChild.class,
                KafkaFixture.bootstrap(),
                topic,
                replyTopic,
                clientName,
                Integer.toString(haltAfter));
    }
}
