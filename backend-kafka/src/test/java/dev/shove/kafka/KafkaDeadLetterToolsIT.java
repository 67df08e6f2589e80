package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Broker;
import dev.shove.DeadLetter;
import dev.shove.DeadLetterException;
import dev.shove.DeadLetterOptions;
import dev.shove.DeadLetterQueue;
import dev.shove.Topic;
import dev.shove.spi.TransportContext;
import dev.shove.spi.WireHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dead-letter tools on Kafka beyond the kit: what removing from the middle of a partition does to the log, the
 * refusal while the group's dead-letter consumer is a member (found before anything moves, or by Kafka refusing the
 * commit), and where a group stands once retention passed it. The dead letters are written straight to a dead-letter
 * topic of one partition, so their offsets are known.
 */
class KafkaDeadLetterToolsIT {
    record Msg(int n) {}

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    @Test
    @DisplayName("removing a dead letter in the middle of a partition re-appends the kept ones before it and commits"
            + " past it: the group then reads exactly the kept ones, none lost")
    void removalInTheMiddle() throws Exception {
        Topic<Msg> topic = topic("dlt-middle");
        String dlq = topic.dlq().orElseThrow();
        try (Broker<Kafka> broker = kafka.connect(1)) {
            broker.topology().declare(topic);
            writeDeadLetters(dlq, 5); // offsets 0..4 hold n = 1..5
            DeadLetterQueue<Msg> letters = broker.deadLetters(topic);

            assertThat(letters.purge(number(3), DeadLetterOptions.ofDefaults()).moved())
                    .isEqualTo(1);

            assertThat(committed(dlq, topic.name() + "-dlq")).isEqualTo(3);
            assertThat(letters.count()).hasValue(4);
        }
        List<ConsumerRecord<byte[], byte[]>> left = readAsGroup(dlq, topic.name() + "-dlq", 4);
        assertThat(left)
                .extracting(r -> r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8))
                .containsExactly("{\"n\":4}", "{\"n\":5}", "{\"n\":1}", "{\"n\":2}");
        assertThat(left).extracting(ConsumerRecord::offset).containsExactly(3L, 4L, 5L, 6L);
        for (ConsumerRecord<byte[], byte[]> r : left) {
            String n = new String(r.value(), StandardCharsets.UTF_8).replaceAll("\\D", "");
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("k" + n);
            assertThat(KafkaHeaders.get(r.headers(), "tenant")).isEqualTo("acme-" + n);
        }
        assertThat(kafka.endOffset(dlq)).isEqualTo(7);
    }

    @Test
    @DisplayName("removing while the group's dead-letter consumer is a member fails, naming the group and what to do;"
            + " nothing is removed or appended")
    void refusedWhileTheDeadLetterConsumerRuns() throws Exception {
        Topic<Msg> topic = topic("dlt-member");
        String dlq = topic.dlq().orElseThrow();
        String groupId = topic.name() + "-dlq";
        try (Broker<Kafka> broker = kafka.connect(1)) {
            broker.topology().declare(topic);
            writeDeadLetters(dlq, 3);
            DeadLetterQueue<Msg> letters = broker.deadLetters(topic);
            try (KafkaConsumer<byte[], byte[]> member = joinedMember(dlq, groupId)) {

                assertThatThrownBy(() -> letters.purge(number(2), DeadLetterOptions.ofDefaults()))
                        .isInstanceOf(DeadLetterException.class)
                        .satisfies(e -> assertThat(
                                        ((DeadLetterException) e).report().moved())
                                .isZero())
                        .rootCause()
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("Kafka group '" + groupId + "' has active members (1 member)")
                        .hasMessageContaining("Stop that dead-letter consumer")
                        .hasMessageContaining("noDeadLetterConsumer()")
                        .hasMessageContaining("Nothing was removed");
                assertThat(member.assignment()).isNotEmpty();
            }
            assertThat(letters.count()).hasValue(3);
        }
        assertThat(kafka.endOffset(dlq)).isEqualTo(3);
        assertThat(committed(dlq, groupId)).isNull();
    }

    @Test
    @DisplayName("a commit Kafka refuses because a member joined after the check gives the same error, and commits"
            + " nothing")
    void commitRefusedByAMemberThatJoinedLate() throws Exception {
        Topic<Msg> topic = topic("dlt-late-member");
        String dlq = topic.dlq().orElseThrow();
        String groupId = topic.name() + "-dlq";
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (KafkaTransport transport = new KafkaTransport(
                kafka.config(1), new TransportContext(meters, "dlt-test", new WireHeaders(meters)))) {
            transport.declare(topic);
            writeDeadLetters(dlq, 2);
            try (DeadLetterScan scan = (DeadLetterScan)
                            transport.deadLetters(topic, topic.name()).scan();
                    KafkaConsumer<byte[], byte[]> member = joinedMember(dlq, groupId)) {

                assertThatThrownBy(() -> scan.commit(Map.of(new TopicPartition(dlq, 0), new OffsetAndMetadata(1)), 0))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("Kafka group '" + groupId + "' has active members")
                        .hasMessageContaining("noDeadLetterConsumer()")
                        .hasMessageContaining("Nothing was removed");
                assertThat(member.assignment()).isNotEmpty();
            }
        }
        assertThat(committed(dlq, groupId)).isNull();
    }

    @Test
    @DisplayName("count and browse start at the log start when retention deleted records past the group's committed"
            + " offset, as the dead-letter consumer would")
    void committedOffsetBelowLogStart() throws Exception {
        Topic<Msg> topic = topic("dlt-retention");
        String dlq = topic.dlq().orElseThrow();
        TopicPartition tp = new TopicPartition(dlq, 0);
        try (Broker<Kafka> broker = kafka.connect(1)) {
            broker.topology().declare(topic);
            writeDeadLetters(dlq, 5);
            kafka.admin()
                    .alterConsumerGroupOffsets(topic.name() + "-dlq", Map.of(tp, new OffsetAndMetadata(1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            kafka.admin()
                    .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            DeadLetterQueue<Msg> letters = broker.deadLetters(topic);

            assertThat(letters.count()).hasValue(2);
            assertThat(letters.browse(10))
                    .extracting(d -> d.message().orElseThrow().n())
                    .containsExactly(4, 5);
        }
    }

    private static Topic<Msg> topic(String prefix) {
        return Topic.builder(kafka.topicName(prefix), Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
    }

    private static Predicate<DeadLetter<Msg>> number(int n) {
        return d -> d.message().map(m -> m.n() == n).orElse(false);
    }

    /** Dead letters n = 1..count on partition 0, key {@code k{n}}, header {@code tenant=acme-{n}}. */
    private static void writeDeadLetters(String dlq, int count) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", KafkaFixture.bootstrap());
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int n = 1; n <= count; n++) {
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(
                        dlq,
                        0,
                        ("k" + n).getBytes(StandardCharsets.UTF_8),
                        ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
                r.headers().add("tenant", ("acme-" + n).getBytes(StandardCharsets.UTF_8));
                producer.send(r).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static Long committed(String dlq, String groupId) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = kafka.admin()
                .listConsumerGroupOffsets(groupId)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        OffsetAndMetadata o = offsets.get(new TopicPartition(dlq, 0));
        return o == null ? null : o.offset();
    }

    private static Properties consumerProperties(String groupId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", KafkaFixture.bootstrap());
        p.put("group.id", groupId);
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        return p;
    }

    /**
     * What the group's dead-letter consumer would read now: a plain consumer of the group reads until it has {@code
     * expected} records, then on until the end offsets (so a record too many shows), committing nothing.
     */
    private static List<ConsumerRecord<byte[], byte[]>> readAsGroup(String dlq, String groupId, int expected)
            throws Exception {
        long end = kafka.endOffset(dlq);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties(groupId))) {
            c.subscribe(List.of(dlq));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            TopicPartition tp = new TopicPartition(dlq, 0);
            while ((out.size() < expected || c.assignment().isEmpty() || c.position(tp) < end)
                    && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    /** A plain consumer that has joined {@code groupId} and holds the partition: the group has an active member. */
    private static KafkaConsumer<byte[], byte[]> joinedMember(String dlq, String groupId) {
        Properties p = consumerProperties(groupId);
        p.put("max.poll.records", "1");
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
        c.subscribe(List.of(dlq));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (c.assignment().isEmpty() && System.nanoTime() < deadline) {
            c.poll(Duration.ofMillis(200));
        }
        assertThat(c.assignment()).as("the member's assignment").isNotEmpty();
        return c;
    }
}
