package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.BatchPublishException;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.PublishException;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Publishing limits (attributes, size), batches reporting exactly what failed, FIFO deduplication, and no-SNS mode. */
class SqsPublishIT {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs();
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : closeables.reversed()) {
            c.close();
        }
    }

    private Broker<Sqs> broker(SqsConfig config) {
        Broker<Sqs> broker = Broker.connect(config);
        closeables.add(broker);
        return broker;
    }

    private static Topic<byte[]> raw(String prefix) {
        return Topic.builder(SqsTestSupport.unique(prefix), byte[].class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
    }

    private <T> List<T> consume(Broker<Sqs> broker, Topic<T> topic) {
        List<T> seen = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
            seen.add(m);
            return Outcome.ack();
        });
        group.start();
        closeables.add(() -> group.stop(Duration.ofSeconds(5)));
        return seen;
    }

    @Test
    @DisplayName("9 user headers arrive as attributes; a 10th is refused with a PublishException saying 9 remain")
    void attributeLimit() {
        Topic<byte[]> topic = raw("pub-attrs");
        Broker<Sqs> broker = broker(SqsTestSupport.config());
        List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, () -> (m, meta, c) -> {
            headers.add(meta.headers());
            return Outcome.ack();
        });
        group.start();
        closeables.add(() -> group.stop(Duration.ofSeconds(5)));
        Map<String, String> nine = new LinkedHashMap<>();
        for (int i = 0; i < 9; i++) {
            nine.put("h" + i, "v" + i);
        }
        broker.publisher().publishWithHeaders(topic, new byte[] {1}, nine);
        Map<String, String> ten = new LinkedHashMap<>(nine);
        ten.put("h9", "v9");

        assertThatThrownBy(() -> broker.publisher().publishWithHeaders(topic, new byte[] {2}, ten))
                .isInstanceOf(PublishException.class)
                .hasMessageContaining(topic.name())
                .hasMessageContaining("9 remain");
        await().atMost(PATIENCE).until(() -> headers.size() == 1);
        assertThat(headers.getFirst()).containsAllEntriesOf(nine);
    }

    @Test
    @DisplayName("a payload over 256 KiB fails with a PublishException naming the limit; just under it is delivered")
    void sizeLimit() {
        Topic<byte[]> topic = raw("pub-size");
        Broker<Sqs> broker = broker(SqsTestSupport.config());
        List<byte[]> seen = consume(broker, topic);
        byte[] fits = new byte[250 * 1024];
        Arrays.fill(fits, (byte) 'a');
        byte[] tooBig = new byte[257 * 1024];
        Arrays.fill(tooBig, (byte) 'a');

        broker.publisher().publish(topic, fits);
        assertThatThrownBy(() -> broker.publisher().publish(topic, tooBig))
                .isInstanceOf(PublishException.class)
                .hasMessageContaining("256 KiB");
        await().atMost(PATIENCE).until(() -> seen.size() == 1);
        assertThat(seen.getFirst()).isEqualTo(fits);
    }

    @Test
    @DisplayName("a batch of 25 goes out in chunks of 10; the refused messages are exactly the failed indices, the"
            + " others are delivered")
    void batchFailedIndices() {
        Topic<byte[]> topic = raw("pub-batch");
        Broker<Sqs> broker = broker(SqsTestSupport.config());
        List<byte[]> seen = consume(broker, topic);
        List<byte[]> batch = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            byte[] payload = i == 4 || i == 17 ? new byte[300 * 1024] : ("m" + i).getBytes();
            Arrays.fill(payload, 0, i == 4 || i == 17 ? payload.length : 0, (byte) 'z');
            batch.add(payload);
        }

        assertThatThrownBy(() -> broker.publisher().publishBatch(topic, batch))
                .isInstanceOfSatisfying(BatchPublishException.class, e -> {
                    assertThat(e.batchSize()).isEqualTo(25);
                    assertThat(e.failedIndices()).containsExactly(4, 17);
                });
        await().atMost(PATIENCE).until(() -> seen.size() == 23);
        await().during(Duration.ofSeconds(1)).atMost(PATIENCE).until(() -> seen.size() == 23);
    }

    @Test
    @DisplayName("FIFO deduplication never drops a message: two messages with the same payload are both delivered")
    void samePayloadTwice() {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("pub-dedup"), String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, s -> "k")
                .build();
        Broker<Sqs> broker = broker(SqsTestSupport.config());
        List<String> seen = consume(broker, topic);
        broker.publisher().publish(topic, "same");
        broker.publisher().publish(topic, "same");
        broker.publisher().publishBatch(topic, List.of("same", "same"));

        await().atMost(PATIENCE).until(() -> seen.size() == 4);
        await().during(Duration.ofSeconds(1)).atMost(PATIENCE).until(() -> seen.size() == 4);
    }

    @Test
    @DisplayName("without SNS, messages go straight to the queue: publish, retry, dead-letter and batches work")
    void noSns() {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("pub-nosns"), String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Broker<Sqs> broker = broker(SqsTestSupport.config().toBuilder().noSns().build());
        assertThat(broker.capabilities().broadcast()).isFalse();
        List<String> calls = new CopyOnWriteArrayList<>();
        List<String> dead = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, () -> new dev.shove.MessageHandler<String, dev.shove.NoContext>() {
            @Override
            public Outcome handle(String m, dev.shove.MessageMetadata meta, dev.shove.NoContext c) {
                calls.add(m + meta.retryCount());
                return meta.retryCount() == 0 ? Outcome.retry() : Outcome.reject("done");
            }

            @Override
            public void handleDead(String m, dev.shove.DeadMessageMetadata meta, dev.shove.NoContext c) {
                dead.add(m);
            }
        });
        group.start();
        closeables.add(() -> group.stop(Duration.ofSeconds(5)));
        broker.publisher().publish(topic, "a");
        broker.publisher().publishBatch(topic, List.of("b", "c"));

        await().atMost(PATIENCE).until(() -> dead.size() == 3);
        assertThat(calls).containsExactlyInAnyOrder("a0", "b0", "c0", "a1", "b1", "c1");
        assertThat(dead).containsExactlyInAnyOrder("a", "b", "c");
    }
}
