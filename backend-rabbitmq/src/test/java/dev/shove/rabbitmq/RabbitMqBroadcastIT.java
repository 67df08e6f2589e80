package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageHandler;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Broadcast topics on a real broker, beyond the kit's contracts: the queue each subscription declares for itself
 * (read back through the management API), its lifetime, the start positions RabbitMQ cannot honour, connection
 * recovery, and replies that go to a broadcast topic.
 */
class RabbitMqBroadcastIT {
    record Note(String text) {}

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    private static Topic<Note> topic(String prefix) {
        return Topic.builder(admin.unique(prefix), Note.class).broadcast().build();
    }

    private static String exchange(Topic<?> topic) {
        return topic.name() + "-broadcast";
    }

    /** A handler factory recording the text of every message, acking each. */
    private static Supplier<MessageHandler<Note, NoContext>> recording(List<String> into) {
        return () -> (m, meta, c) -> {
            into.add(m.text());
            return Outcome.ack();
        };
    }

    /** One subscriber: a group of its own that handles one message at a time, so it sees them in queue order. */
    private static ConsumerGroup<RabbitMq, NoContext> subscribe(
            Broker<RabbitMq> broker, Topic<Note> topic, Supplier<MessageHandler<Note, NoContext>> handler) {
        ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .prefetch(1)
                        .groupName(admin.unique("subscriber"))
                        .build(),
                handler);
        group.start();
        return group;
    }

    private static String onlyQueueBoundTo(Topic<?> topic) throws Exception {
        List<String> bound = admin.queuesBoundTo(exchange(topic));
        assertThat(bound).hasSize(1);
        return bound.getFirst();
    }

    @Test
    @DisplayName("each subscription reads a server-named, exclusive, auto-delete, non-durable queue of its own bound to"
            + " the exchange, and the queue is gone once the subscription stops")
    void ownQueuePerSubscription() throws Exception {
        Topic<Note> topic = topic("own");
        List<String> a = new CopyOnWriteArrayList<>();
        List<String> b = new CopyOnWriteArrayList<>();
        try (Broker<RabbitMq> broker = admin.connect("own")) {
            ConsumerGroup<RabbitMq, NoContext> first = subscribe(broker, topic, recording(a));
            ConsumerGroup<RabbitMq, NoContext> second = subscribe(broker, topic, recording(b));

            List<String> queues = admin.queuesBoundTo(exchange(topic));
            assertThat(queues).hasSize(2).doesNotHaveDuplicates();
            for (String queue : queues) {
                assertThat(queue).startsWith("amq.gen-");
                JsonNode info = admin.queueInfo(queue);
                assertThat(info.path("durable").asBoolean())
                        .as("%s is durable", queue)
                        .isFalse();
                assertThat(info.path("exclusive").asBoolean())
                        .as("%s is exclusive", queue)
                        .isTrue();
                assertThat(info.path("auto_delete").asBoolean())
                        .as("%s is auto-delete", queue)
                        .isTrue();
            }
            broker.publisher().publish(topic, new Note("hello"));
            await().atMost(PATIENCE).until(() -> a.size() == 1 && b.size() == 1);

            assertThat(first.stop(PATIENCE).isClean()).isTrue();
            await().atMost(PATIENCE)
                    .until(() -> admin.queuesBoundTo(exchange(topic)).size() == 1);
            String left = onlyQueueBoundTo(topic);
            for (String queue : queues) {
                assertThat(admin.exists(queue)).as("%s exists", queue).isEqualTo(queue.equals(left));
            }

            assertThat(second.stop(PATIENCE).isClean()).isTrue();
            await().atMost(PATIENCE)
                    .until(() -> admin.queuesBoundTo(exchange(topic)).isEmpty());
            assertThat(admin.exists(left)).isFalse();
        }
        assertThat(a).containsExactly("hello");
        assertThat(b).containsExactly("hello");
    }

    @Test
    @DisplayName("subscribers on two connections each receive every broadcast of a third, in publish order")
    void subscribersOnTwoConnections() {
        Topic<Note> topic = topic("two");
        List<String> a = new CopyOnWriteArrayList<>();
        List<String> b = new CopyOnWriteArrayList<>();
        List<String> sent = IntStream.range(0, 20).mapToObj(i -> "n" + i).toList();
        try (Broker<RabbitMq> publisher = admin.connect("two-pub");
                Broker<RabbitMq> one = admin.connect("two-a");
                Broker<RabbitMq> two = admin.connect("two-b")) {
            publisher.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> groupA = subscribe(one, topic, recording(a));
            ConsumerGroup<RabbitMq, NoContext> groupB = subscribe(two, topic, recording(b));
            for (String text : sent) {
                publisher.publisher().publish(topic, new Note(text));
            }
            await().atMost(PATIENCE).until(() -> a.size() >= sent.size() && b.size() >= sent.size());
            assertThat(groupA.stop(PATIENCE).isClean()).isTrue();
            assertThat(groupB.stop(PATIENCE).isClean()).isTrue();
        }
        assertThat(a).containsExactlyElementsOf(sent);
        assertThat(b).containsExactlyElementsOf(sent);
    }

    @Test
    @DisplayName("a broadcast subscription asked to start before the tail is refused when its group starts, naming"
            + " the topic and why, and leaves no queue behind")
    void startBeforeTailRefused() throws Exception {
        Topic<Note> topic = topic("history");
        try (Broker<RabbitMq> broker = admin.connect("history")) {
            for (Position start : List.of(Position.start(), Position.sequence(0), Position.timestamp(Instant.EPOCH))) {
                ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
                group.register(
                        topic,
                        ConsumerGroupConfig.builder().startAt(start).build(),
                        recording(new CopyOnWriteArrayList<>()));
                assertThatThrownBy(group::start)
                        .as("start at %s", start)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("topic '" + topic.name() + "'")
                        .hasMessageContaining("start at the tail")
                        .hasMessageContaining("withStartAt");
                group.close();
            }
            assertThat(admin.queuesBoundTo(exchange(topic))).isEmpty();
        }
    }

    @Test
    @DisplayName("withStartAt(Position.end()) on a broadcast topic is the tail, which RabbitMQ honours")
    void startAtEndAccepted() {
        Topic<Note> topic = topic("tail");
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Broker<RabbitMq> broker = admin.connect("tail")) {
            broker.topology().declare(topic);
            broker.publisher().publish(topic, new Note("before"));
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().startAt(Position.end()).build(), recording(seen));
            group.start();
            broker.publisher().publish(topic, new Note("after"));
            await().atMost(PATIENCE).until(() -> !seen.isEmpty());
            assertThat(group.stop(PATIENCE).isClean()).isTrue();
        }
        assertThat(seen).containsExactly("after");
    }

    @Test
    @DisplayName("after the connection is lost, a broadcast subscription resumes on a new queue bound to the exchange:"
            + " it receives what is published from then on, and what was published while it was down is lost")
    void resumesAfterConnectionLoss() throws Exception {
        Topic<Note> topic = topic("recover");
        String name = admin.unique("recover-sub");
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Broker<RabbitMq> publisher = admin.connect("recover-pub");
                Broker<RabbitMq> subscriber = admin.connect(admin.config(name).toBuilder()
                        .recoveryInterval(Duration.ofSeconds(3))
                        .build())) {
            publisher.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = subscribe(subscriber, topic, recording(seen));
            String before = onlyQueueBoundTo(topic);
            publisher.publisher().publish(topic, new Note("before"));
            await().atMost(PATIENCE).until(() -> seen.size() == 1);

            RabbitMqTransport transport =
                    subscriber.unwrap(RabbitMqTransport.class).orElseThrow();
            await().atMost(PATIENCE).until(() -> admin.killConnection(name) == 1);
            await().atMost(PATIENCE).until(() -> !transport.isConnected());
            publisher.publisher().publish(topic, new Note("while down"));

            await().atMost(PATIENCE).until(() -> {
                List<String> bound = admin.queuesBoundTo(exchange(topic));
                return bound.size() == 1 && !bound.getFirst().equals(before);
            });
            assertThat(admin.exists(before))
                    .as("the old queue went with the old connection")
                    .isFalse();
            assertThat(admin.queueInfo(onlyQueueBoundTo(topic))
                            .path("exclusive")
                            .asBoolean())
                    .isTrue();
            publisher.publisher().publish(topic, new Note("after"));
            await().atMost(PATIENCE).until(() -> seen.contains("after"));
            assertThat(group.activeConsumers(topic)).isEqualTo(1);

            assertThat(group.stop(PATIENCE).isClean()).isTrue();
            await().atMost(PATIENCE)
                    .until(() -> admin.queuesBoundTo(exchange(topic)).isEmpty());
        }
        assertThat(seen).containsExactly("before", "after");
    }

    @Test
    @DisplayName("a subscriber stopped while its handler runs past the deadline returns the message to its own queue,"
            + " which goes with it: the message is not delivered again")
    void abandonedMessageGoesWithTheQueue() throws Exception {
        Topic<Note> topic = topic("abandon");
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        try (Broker<RabbitMq> broker = admin.connect("abandon")) {
            ConsumerGroup<RabbitMq, NoContext> group = subscribe(broker, topic, () -> (m, meta, c) -> {
                seen.add(m.text());
                release.await();
                return Outcome.ack();
            });
            String queue = onlyQueueBoundTo(topic);
            broker.publisher().publish(topic, new Note("slow"));
            await().atMost(PATIENCE).until(() -> seen.size() == 1);

            group.stop(Duration.ofMillis(200));
            release.countDown();

            await().atMost(PATIENCE).until(() -> !admin.exists(queue));
            assertThat(admin.queuesBoundTo(exchange(topic))).isEmpty();
        }
        assertThat(seen).containsExactly("slow");
    }

    @Test
    @DisplayName("the depth of a broadcast topic is (0, 0) even while a subscriber's own queue holds messages")
    void statsAreZero() throws Exception {
        Topic<Note> topic = topic("depth");
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        try (Broker<RabbitMq> broker = admin.connect("depth")) {
            ConsumerGroup<RabbitMq, NoContext> group = subscribe(broker, topic, () -> (m, meta, c) -> {
                seen.add(m.text());
                release.await();
                return Outcome.ack();
            });
            String queue = onlyQueueBoundTo(topic);
            for (int i = 0; i < 3; i++) {
                broker.publisher().publish(topic, new Note("n" + i));
            }
            // Exclusive: only the management API may look into it (its figures lag by up to 5 s).
            await().atMost(PATIENCE)
                    .until(() -> admin.queueInfo(queue).path("messages_ready").asLong() == 2);

            RabbitMqTransport transport = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            assertThat(transport.stats(topic)).isEqualTo(new QueueStats(0, 0));

            release.countDown();
            await().atMost(PATIENCE).until(() -> seen.size() == 3);
            assertThat(group.stop(PATIENCE).isClean()).isTrue();
        }
    }

    @ParameterizedTest(name = "transactional settlement: {0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("a handler's reply to a broadcast topic reaches its subscribers")
    void replyToBroadcast(boolean transactional) {
        Topic<Note> requests = Topic.builder(admin.unique("ask"), Note.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<Note> announcements = topic("announce");
        List<String> heard = new CopyOnWriteArrayList<>();
        RabbitMqConfig config = admin.config(admin.unique("reply"));
        try (Broker<RabbitMq> broker = admin.connect(
                transactional ? config.toBuilder().transactionalSettlement().build() : config)) {
            assertThat(broker.capabilities().transactions()).isEqualTo(transactional);
            ConsumerGroup<RabbitMq, NoContext> listener = subscribe(broker, announcements, recording(heard));
            ConsumerGroup<RabbitMq, NoContext> worker = broker.consumerGroup();
            worker.register(
                    requests,
                    ConsumerGroupConfig.ofDefaults(),
                    () -> (m, meta, c) -> Outcome.reply(announcements, new Note(m.text() + " done")));
            worker.start();
            broker.publisher().publish(requests, new Note("job"));

            await().atMost(PATIENCE).until(() -> !heard.isEmpty());
            assertThat(worker.stop(PATIENCE).isClean()).isTrue();
            assertThat(listener.stop(PATIENCE).isClean()).isTrue();
        }
        assertThat(heard).containsExactly("job done");
    }
}
