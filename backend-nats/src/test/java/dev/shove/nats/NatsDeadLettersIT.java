package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadLetter;
import dev.shove.DeadLetterOptions;
import dev.shove.DeadLetterQueue;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.TopologyException;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter store on the real server ({@link NatsDeadLetters}): what the kit cannot see from outside. Reads leave
 * the letters in the stream and undelivered to the group's dead-letter consumer; the count follows that consumer once
 * it exists; a removal deletes the stream message.
 */
class NatsDeadLettersIT {
    record Msg(int n) {}

    private static final Set<String> before = new HashSet<>();
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @BeforeAll
    static void nats() throws Exception {
        NatsTestSupport.requireNats();
        before.addAll(NatsTestSupport.streams());
    }

    @AfterAll
    static void cleanUp() throws Exception {
        NatsTestSupport.deleteStreamsCreatedSince(before);
    }

    private static Topic<Msg> topic(String prefix) {
        return Topic.builder(NatsTestSupport.unique(prefix), Msg.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
    }

    /** Consumes {@code topic} as group {@code group} rejecting everything, without a dead-letter consumer. */
    private static void rejectAll(Broker<Nats> broker, Topic<Msg> topic, String group, int n) {
        var consumers = broker.consumerGroup();
        consumers.register(
                topic,
                ConsumerGroupConfig.builder()
                        .groupName(group)
                        .noDeadLetterConsumer()
                        .build(),
                () -> (m, meta, c) -> Outcome.reject("bad " + m.n()));
        consumers.start();
        for (int i = 1; i <= n; i++) {
            broker.publisher().publish(topic, new Msg(i));
        }
        DeadLetterQueue<Msg> dlq = broker.deadLetters(topic, group);
        await().atMost(PATIENCE).until(() -> dlq.count().orElse(-1) == n);
        consumers.stop(Duration.ofSeconds(10));
    }

    @Test
    @DisplayName("a browse leaves the letters in the stream and undelivered to the group's dead-letter consumer, which"
            + " then handles them all; the count follows that consumer, not the stream")
    void readsInPlace() throws Exception {
        Topic<Msg> topic = topic("dlq-in-place");
        String dlqStream = NatsTopology.stream(topic.dlq().orElseThrow());
        Connection raw = NatsTestSupport.raw();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            broker.topology().declare(topic);
            rejectAll(broker, topic, "billing", 3);
            DeadLetterQueue<Msg> dlq = broker.deadLetters(topic, "billing");

            assertThat(dlq.readsInPlace()).isTrue();
            List<DeadLetter<Msg>> browsed = dlq.browse(10);
            // dead-lettered by concurrent handlers: in the stream's order, which need not be the publish order
            assertThat(browsed).extracting(d -> d.message().orElseThrow().n()).containsExactlyInAnyOrder(1, 2, 3);
            assertThat(browsed)
                    .extracting(d -> d.metadata().message().offset().orElseThrow())
                    .isSorted();
            JetStreamManagement jsm = raw.jetStreamManagement();
            assertThat(jsm.getStreamInfo(dlqStream).getStreamState().getMsgCount())
                    .isEqualTo(3);
            assertThat(jsm.getConsumerNames(dlqStream)).isEmpty(); // a read creates no consumer

            List<Integer> dead = new CopyOnWriteArrayList<>();
            var consumers = broker.consumerGroup();
            consumers.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .groupName("billing")
                            .handleAndRemoveDeadLetters()
                            .build(),
                    () -> new MessageHandler<Msg, NoContext>() {
                        @Override
                        public Outcome handle(Msg m, MessageMetadata meta, NoContext c) {
                            return Outcome.ack();
                        }

                        @Override
                        public void handleDead(Msg m, DeadMessageMetadata meta, NoContext c) {
                            dead.add(m.n());
                        }
                    });
            consumers.start();
            await().atMost(PATIENCE).until(() -> dead.size() == 3);
            await().atMost(PATIENCE).until(() -> dlq.count().orElse(-1) == 0);
            consumers.stop(Duration.ofSeconds(10));
            assertThat(dead).containsExactlyInAnyOrder(1, 2, 3); // each once

            // the group consumed them; the stream (limits retention) still holds them for other groups
            assertThat(jsm.getStreamInfo(dlqStream).getStreamState().getMsgCount())
                    .isEqualTo(3);
            assertThat(dlq.browse(10)).isEmpty();
            assertThat(broker.deadLetters(topic, "shipping").count()).hasValue(3);
        } finally {
            raw.close();
        }
    }

    @Test
    @DisplayName("a purge deletes the removed letters from the stream by sequence: gone for every reader")
    void removeDeletes() throws Exception {
        Topic<Msg> topic = topic("dlq-delete");
        String dlqStream = NatsTopology.stream(topic.dlq().orElseThrow());
        Connection raw = NatsTestSupport.raw();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            broker.topology().declare(topic);
            rejectAll(broker, topic, "billing", 3);
            DeadLetterQueue<Msg> dlq = broker.deadLetters(topic, "billing");
            long second = dlq.browse(10).stream()
                    .filter(d -> d.message().orElseThrow().n() == 2)
                    .findFirst()
                    .orElseThrow()
                    .metadata()
                    .message()
                    .offset()
                    .orElseThrow();

            assertThat(dlq.purge(d -> d.message().orElseThrow().n() == 2, DeadLetterOptions.ofDefaults())
                            .moved())
                    .isEqualTo(1);

            JetStreamManagement jsm = raw.jetStreamManagement();
            assertThat(jsm.getStreamInfo(dlqStream).getStreamState().getMsgCount())
                    .isEqualTo(2);
            assertThatThrownBy(() -> jsm.getMessage(dlqStream, second))
                    .isInstanceOf(JetStreamApiException.class)
                    .satisfies(e -> assertThat(((JetStreamApiException) e).getApiErrorCode())
                            .isEqualTo(NatsDeadLetters.NO_MESSAGE_FOUND));
            assertThat(dlq.count()).hasValue(2);
            assertThat(dlq.browse(10))
                    .extracting(d -> d.message().orElseThrow().n())
                    .containsExactlyInAnyOrder(1, 3);
        } finally {
            raw.close();
        }
    }

    @Test
    @DisplayName("the dead letters of a topic whose streams were never declared: a TopologyException naming the stream")
    void undeclared() {
        Topic<Msg> topic = topic("dlq-undeclared");
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            DeadLetterQueue<Msg> dlq = broker.deadLetters(topic);
            assertThatThrownBy(dlq::count)
                    .isInstanceOf(TopologyException.class)
                    .hasMessageContaining(NatsTopology.stream(topic.dlq().orElseThrow()))
                    .hasMessageContaining("declare");
        }
    }
}
