package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Records that can never succeed end in the dead-letter topic exactly once. */
class KafkaPoisonIT {
    record Msg(int n) {}

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("a record that cannot be decoded goes to the DLQ once, never reaches the handler and never loops")
    void poisonRecordGoesToDeadLetterOnce() throws Exception {
        String name = kafka.topicName("poison");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(100))
                .dlq()
                .build();
        AtomicInteger handled = new AtomicInteger();
        List<DeadMessageMetadata> dead = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);
            Properties p = new Properties();
            p.put("bootstrap.servers", KafkaFixture.bootstrap());
            p.put("key.serializer", ByteArraySerializer.class.getName());
            p.put("value.serializer", ByteArraySerializer.class.getName());
            try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(p)) {
                raw.send(new ProducerRecord<>(name, "not json {".getBytes(StandardCharsets.UTF_8)))
                        .get(30, TimeUnit.SECONDS);
            }
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> recording(handled, dead));
            group.start();
            // handleUnreadableDead (the default) runs for it, not handleDead; the dead letter stays in the DLQ.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> kafka.endOffset(name + "-dlq") == 1 && kafka.lag(name, name) == 0);
            // let a loop show itself if there were one
            await().during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> kafka.endOffset(name + "-dlq") == 1 && kafka.endOffset(name) == 1);
            kafka.assertStopsCleanly(group);
        }
        assertThat(handled).hasValue(0);
        assertThat(dead).isEmpty();
        var letters = kafka.readAll(name + "-dlq", Duration.ofSeconds(1));
        assertThat(letters).hasSize(1);
        assertThat(KafkaHeaders.get(letters.getFirst().headers(), dev.shove.ShoveHeaders.DEATH_REASON))
                .startsWith("decode-failed");
        assertThat(kafka.readAll(name + "-hold-100ms", Duration.ofMillis(500))).isEmpty();
    }

    @Test
    @DisplayName("a message failing every time runs maxRetries + 1 times, then goes to the DLQ once")
    void exhaustedRetriesGoToDeadLetterOnce() throws Exception {
        String name = kafka.topicName("exhaust");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(100))
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
        AtomicInteger handled = new AtomicInteger();
        List<DeadMessageMetadata> dead = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect()) {
            var group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().maxRetries(3).build(), () -> recording(handled, dead, true));
            group.start();
            broker.publisher().publish(topic, new Msg(1));
            await().atMost(Duration.ofSeconds(30)).until(() -> dead.size() == 1);
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> dead.size() == 1);
            kafka.assertStopsCleanly(group);
        }
        assertThat(handled).hasValue(4);
        assertThat(dead.getFirst().reason()).isEqualTo("max-retries-exceeded");
        assertThat(dead.getFirst().message().retryCount()).isEqualTo(3);
        assertThat(kafka.readAll(name + "-dlq", Duration.ofSeconds(1))).hasSize(1);
    }

    private static MessageHandler<Msg, NoContext> recording(AtomicInteger handled, List<DeadMessageMetadata> dead) {
        return recording(handled, dead, false);
    }

    private static MessageHandler<Msg, NoContext> recording(
            AtomicInteger handled, List<DeadMessageMetadata> dead, boolean fail) {
        return new MessageHandler<>() {
            @Override
            public Outcome handle(Msg m, MessageMetadata meta, NoContext c) {
                handled.incrementAndGet();
                return fail ? Outcome.retry() : Outcome.ack();
            }

            @Override
            public void handleDead(Msg m, DeadMessageMetadata meta, NoContext c) {
                dead.add(meta);
            }
        };
    }
}
