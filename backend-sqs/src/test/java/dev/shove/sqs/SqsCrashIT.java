package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.sqs.SqsCrashChild.Msg;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A consumer killed with SIGKILL ({@link SqsCrashChild} in a child JVM) loses nothing: what it held comes back when its
 * lease ends, and a retry copy waiting in SQS is delivered as if nothing happened.
 */
class SqsCrashIT {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final List<Process> children = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs();
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : children) {
            p.destroyForcibly();
        }
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    record Call(String label, MessageMetadata meta, long nanos) {}

    /** A consumer in this JVM that records and acknowledges everything. */
    private List<Call> consume(Broker<Sqs> broker, Topic<Msg> topic) {
        List<Call> calls = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
            calls.add(new Call(m.label(), meta, System.nanoTime()));
            return Outcome.ack();
        });
        group.start();
        closeables.add(() -> group.stop(Duration.ofSeconds(5)));
        return calls;
    }

    private Broker<Sqs> broker() {
        Broker<Sqs> broker = Broker.connect(SqsTestSupport.config());
        closeables.add(broker);
        return broker;
    }

    private List<String> startChild(String topic, String mode) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        SqsCrashChild.class.getName(),
                        SqsTestSupport.endpoint(),
                        topic,
                        mode)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        children.add(child);
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().name("crash-child-reader").start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the child died
            }
        });
        return lines;
    }

    private void kill(Process child) throws InterruptedException {
        child.destroyForcibly(); // SIGKILL: no drain, no return, no delete
        child.waitFor(10, TimeUnit.SECONDS);
    }

    private static Map<String, String> depth(SqsClient sqs, String queue) {
        String url = sqs.getQueueUrl(r -> r.queueName(queue)).queueUrl();
        return sqs.getQueueAttributes(r -> r.queueUrl(url).attributeNamesWithStrings("All"))
                .attributesAsStrings();
    }

    @Test
    @DisplayName("killed -9 mid-handler: the heartbeat kept the message invisible while the handler ran; after the"
            + " kill it comes back once its lease ends, flagged redelivered")
    void killedMidHandler() throws Exception {
        Topic<Msg> topic = SqsCrashChild.topic(SqsTestSupport.unique("crash-handler"), false);
        Broker<Sqs> broker = broker();
        broker.topology().declare(topic);
        broker.publisher().publish(topic, new Msg("a", 1));
        List<String> child = startChild(topic.name(), "block");
        await().atMost(PATIENCE).until(() -> child.contains("HANDLED a1 0"));

        List<Call> calls = consume(broker, topic);
        // the child's lease is 3 s: past two leases the heartbeat is what keeps the message from this consumer
        await().during(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(20)).until(calls::isEmpty);
        long killed = System.nanoTime();
        kill(children.getFirst());

        await().atMost(PATIENCE).until(() -> calls.size() == 1);
        Call call = calls.getFirst();
        assertThat(call.label()).isEqualTo("a1");
        assertThat(call.meta().redelivered()).isTrue();
        assertThat(call.meta().deliveryCount()).hasValue(2);
        assertThat(call.meta().retryCount()).isZero();
        assertThat(Duration.ofNanos(call.nanos() - killed)).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    @DisplayName("killed -9 while its retry copy waits in SQS: the copy is delivered after its delay with retryCount 1")
    void killedMidHold() throws Exception {
        Topic<Msg> topic = SqsCrashChild.topic(SqsTestSupport.unique("crash-hold"), false);
        Broker<Sqs> broker = broker();
        broker.topology().declare(topic);
        broker.publisher().publish(topic, new Msg("a", 1));
        List<String> child = startChild(topic.name(), "retry");
        await().atMost(PATIENCE).until(() -> child.contains("HANDLED a1 0"));
        try (SqsClient sqs = SqsTestSupport.sqs()) {
            // the copy waits delayed in SQS and the original is deleted: the child holds nothing
            await().atMost(PATIENCE).until(() -> {
                Map<String, String> d = depth(sqs, topic.name());
                return d.get("ApproximateNumberOfMessagesDelayed").equals("1")
                        && d.get("ApproximateNumberOfMessagesNotVisible").equals("0");
            });
        }
        kill(children.getFirst());

        List<Call> calls = consume(broker, topic);
        await().atMost(PATIENCE).until(() -> calls.size() == 1);
        assertThat(calls.getFirst().label()).isEqualTo("a1");
        assertThat(calls.getFirst().meta().retryCount()).isEqualTo(1);
        assertThat(calls.getFirst().meta().redelivered()).isFalse();
    }

    @Test
    @DisplayName("killed -9 while a sequenced retry waits in place: the message comes back first for its key")
    void killedMidWaitInPlace() throws Exception {
        Topic<Msg> topic = SqsCrashChild.topic(SqsTestSupport.unique("crash-wait"), true);
        Broker<Sqs> broker = broker();
        broker.topology().declare(topic);
        broker.publisher().publish(topic, new Msg("a", 0));
        broker.publisher().publish(topic, new Msg("a", 1));
        List<String> child = startChild(topic.name(), "wait");
        await().atMost(PATIENCE).until(() -> child.contains("HANDLED a0 0"));
        kill(children.getFirst());

        List<Call> calls = consume(broker, topic);
        await().atMost(PATIENCE).until(() -> calls.size() == 2);
        assertThat(calls).extracting(Call::label).containsExactly("a0", "a1");
        assertThat(calls.getFirst().meta().redelivered()).isTrue();
    }
}
