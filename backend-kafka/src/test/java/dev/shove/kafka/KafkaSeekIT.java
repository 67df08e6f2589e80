package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The seek capability on Kafka: start positions and moves asked by a handler. One partition keeps order simple. */
class KafkaSeekIT {
    record Msg(int n) {}

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    private static Topic<Msg> topic(String prefix) {
        String name = kafka.topicName(prefix);
        return Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
    }

    @Test
    @DisplayName("withStartAt(start) makes a group that already consumed the topic read it again from the start")
    void startAtStartRereads() {
        Topic<Msg> topic = topic("startat");
        List<Integer> first = new CopyOnWriteArrayList<>();
        List<Integer> second = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect(1)) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                first.add(m.n());
                return Outcome.ack();
            });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic, IntStream.range(0, 5).mapToObj(Msg::new).toList());
            await().atMost(Duration.ofSeconds(30)).until(() -> first.size() == 5);
            kafka.assertStopsCleanly(group);

            var again = broker.consumerGroup();
            again.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .prefetch(1)
                            .startAt(Position.start())
                            .build(),
                    () -> (m, meta, c) -> {
                        second.add(m.n());
                        return Outcome.ack();
                    });
            again.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> second.size() == 5);
            kafka.assertStopsCleanly(again);
        }
        assertThat(second).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    @DisplayName("a handler's andSeek(captured position) reads that message again, then the rest in order")
    void handlerSeeksBack() {
        Topic<Msg> topic = topic("andseek");
        List<Integer> seen = new CopyOnWriteArrayList<>();
        List<Position> positions = new CopyOnWriteArrayList<>();
        AtomicBoolean moved = new AtomicBoolean();
        try (Broker<Kafka> broker = kafka.connect(1)) {
            var group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().prefetch(1).seeking().build(), () -> (m, meta, c) -> {
                        seen.add(m.n());
                        positions.add(meta.position().orElseThrow());
                        if (m.n() == 3 && moved.compareAndSet(false, true)) {
                            return Outcome.ack().andSeek(positions.get(1)); // back to message 1
                        }
                        return Outcome.ack();
                    });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic, IntStream.range(0, 5).mapToObj(Msg::new).toList());
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 8);
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 8);
            kafka.assertStopsCleanly(group);
            await().atMost(Duration.ofSeconds(10)).until(() -> kafka.lag(topic.name(), topic.name()) == 0);
        }
        assertThat(seen).containsExactly(0, 1, 2, 3, 1, 2, 3, 4);
        assertThat(positions.getFirst()).isEqualTo(new Position.Captured(topic.name(), 0, 0));
    }

    @Test
    @DisplayName("a seek to an offset past the end is refused and the consumer stays where it was")
    void seekPastTheEndIsRefused() {
        Topic<Msg> topic = topic("badseek");
        List<Integer> seen = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect(1)) {
            var group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().prefetch(1).seeking().build(), () -> (m, meta, c) -> {
                        seen.add(m.n());
                        return m.n() == 1 ? Outcome.ack().andSeek(Position.sequence(1_000)) : Outcome.ack();
                    });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic, IntStream.range(0, 4).mapToObj(Msg::new).toList());
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 4);
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 4);
            kafka.assertStopsCleanly(group);
        }
        assertThat(seen).containsExactly(0, 1, 2, 3);
    }

    @Test
    @DisplayName("with two partitions, andSeek(start) moves both back: every message is handled again")
    void seekToStartMovesEveryPartition() {
        String name = kafka.topicName("seek2");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
        List<Integer> seen = new CopyOnWriteArrayList<>();
        AtomicBoolean moved = new AtomicBoolean();
        try (Broker<Kafka> broker = kafka.connect(2)) {
            broker.topology().declare(topic);
            broker.publisher()
                    .publishBatch(
                            topic, IntStream.range(0, 4).mapToObj(Msg::new).toList());
            var group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().prefetch(1).seeking().build(), () -> (m, meta, c) -> {
                        seen.add(m.n());
                        return m.n() == 2 && moved.compareAndSet(false, true)
                                ? Outcome.ack().andSeek(Position.start())
                                : Outcome.ack();
                    });
            group.start();
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() >= 6);
            } catch (RuntimeException e) {
                System.out.println("SEEN2 " + seen);
                throw e;
            }
            kafka.assertStopsCleanly(group);
        }
        assertThat(seen).containsAll(List.of(0, 1, 2, 3));
    }
}
