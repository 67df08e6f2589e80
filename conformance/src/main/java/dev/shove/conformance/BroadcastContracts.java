package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.ConsumerGroupConfig;
import dev.shove.ConsumerOptions;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Broadcast topics ({@code Topic.Builder.broadcast()}): every running subscriber receives every message published
 * after it subscribed, best effort (no retries, no dead-letter queue), one consumer per registration. Gated on
 * {@code capabilities().broadcast()}; starting a broadcast subscription earlier ({@code withStartAt}) also needs
 * {@code capabilities().seek()}, because registration refuses {@code withStartAt} on backends without logs.
 */
abstract class BroadcastContracts<B> extends Contracts<B> {

    BroadcastContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private void requireBroadcast() {
        assumeTrue(capabilities().broadcast(), "the backend has no broadcast topics");
    }

    private Topic<Msg> broadcastTopic(String prefix) {
        return h().topic(prefix).broadcast().build();
    }

    /** One consumer in a group of its own: a distinct group name. */
    private ConsumerGroupConfig subscriber(String name) {
        return config(c -> c.groupName(h().name(name)));
    }

    @Test
    @DisplayName("every running subscriber receives every message: two groups each get all of them")
    void everyGroupReceivesAll() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast");
        Recorder<Msg> a = h().acking();
        Recorder<Msg> b = h().acking();
        h().consume(topic, subscriber("a"), a);
        h().consume(topic, subscriber("b"), b);
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        a.awaitCalls(3);
        b.awaitCalls(3);
        a.assertNoMoreCalls(3);
        b.assertNoMoreCalls(3);
        assertThat(a.messages()).containsExactlyInAnyOrder(Msg.of(0), Msg.of(1), Msg.of(2));
        assertThat(b.messages()).containsExactlyInAnyOrder(Msg.of(0), Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("a group and a supervisor subscribed to one broadcast topic both receive every message")
    void groupAndSupervisorReceiveAll() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast-mixed");
        Recorder<Msg> grouped = h().acking();
        Recorder<Msg> supervised = h().acking();
        h().consume(topic, subscriber("group"), grouped);
        var supervisor = h().supervisor();
        supervisor.register(topic, supervised);
        supervisor.start();
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        grouped.awaitCalls(2);
        supervised.awaitCalls(2);
        assertThat(grouped.messages()).containsExactlyInAnyOrder(Msg.of(1), Msg.of(2));
        assertThat(supervised.messages()).containsExactlyInAnyOrder(Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("two supervisors subscribed to one broadcast topic both receive every message")
    void twoSupervisorsReceiveAll() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast-supervisors");
        Recorder<Msg> first = h().acking();
        Recorder<Msg> second = h().acking();
        var one = h().supervisor();
        one.register(topic, first);
        one.start();
        var two = h().supervisor();
        two.register(topic, second);
        two.start();
        h().publisher().publish(topic, Msg.of(1));

        first.awaitCalls(1);
        second.awaitCalls(1);
        first.assertNoMoreCalls(1);
        second.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("a subscriber does not receive what was published before it subscribed")
    void tailOnly() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast-tail");
        h().broker().topology().declare(topic);
        h().publisher().publish(topic, Msg.of(0));
        Recorder<Msg> rec = h().acking();
        h().consume(topic, subscriber("late"), rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
        assertThat(rec.messages()).containsExactly(Msg.of(1));
    }

    @Test
    @DisplayName("a subscriber that stopped receives nothing more, while the others still do")
    void stoppedSubscriberReceivesNothing() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast-stopped");
        Recorder<Msg> stays = h().acking();
        Recorder<Msg> leaves = h().acking();
        h().consume(topic, subscriber("stays"), stays);
        var leaving = h().consume(topic, subscriber("leaves"), leaves);
        h().publisher().publish(topic, Msg.of(1));
        leaves.awaitCalls(1);
        assertThat(leaving.stop(h().patience()).exitCode()).isZero();
        h().publisher().publish(topic, Msg.of(2));

        stays.awaitCalls(2);
        leaves.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("a broadcast registration withStartAt(Position.start()) also receives the messages the broker kept"
            + " from before it subscribed")
    void startAtStartReceivesHistory() {
        requireBroadcast();
        assumeTrue(capabilities().seek(), "withStartAt needs a backend whose subscriptions are logs");
        Topic<Msg> topic = broadcastTopic("broadcast-history");
        h().broker().topology().declare(topic);
        h().publisher().publish(topic, Msg.of(0));
        h().publisher().publish(topic, Msg.of(1));
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.startAt(Position.start()).groupName(h().name("replay"))), rec);
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitCalls(3);
        rec.assertNoMoreCalls(3);
        assertThat(rec.messages()).containsExactlyInAnyOrder(Msg.of(0), Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("retry, reject and defer on a broadcast message discard it, counted in"
            + " shove.messages.discarded{reason=broadcast}; it is never delivered again")
    void nonAckDiscarded() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast-discard");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> switch (m.n()) {
            case 0 -> Outcome.retry();
            case 1 -> Outcome.reject("no");
            default -> Outcome.defer();
        });
        h().consume(topic, subscriber("discarding"), rec);
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitCalls(3);
        h().await(
                        "shove.messages.discarded{reason=broadcast} = 3",
                        () -> h().count("shove.messages.discarded", "topic", topic.name(), "reason", "broadcast") == 3);
        rec.assertNoMoreCalls(3);
        assertThat(rec.deaths()).isEmpty();
    }

    @Test
    @DisplayName("a broadcast handler that throws has its message discarded, not retried")
    void throwingDiscarded() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast-throws");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            throw new IllegalStateException("fails on purpose");
        });
        h().consume(topic, subscriber("throwing"), rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        h().await(
                        "shove.messages.discarded{reason=broadcast} = 1",
                        () -> h().count("shove.messages.discarded", "topic", topic.name(), "reason", "broadcast") == 1);
        rec.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("an undecodable broadcast message is discarded and counted as decode: there is no DLQ")
    void undecodableDiscarded() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast-undecodable");
        Topic<byte[]> raw =
                Topic.builder(topic.name(), byte[].class).broadcast().build();
        Recorder<Msg> rec = h().acking();
        h().consume(topic, subscriber("decoding"), rec);
        h().publisher().publish(raw, "not json {".getBytes(StandardCharsets.UTF_8));
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        h().await(
                        "shove.messages.discarded{reason=decode} = 1",
                        () -> h().count("shove.messages.discarded", "topic", topic.name(), "reason", "decode") == 1);
        assertThat(rec.messages()).containsExactly(Msg.of(1));
    }

    @Test
    @DisplayName("a broadcast registration runs exactly one consumer, whatever its min and max")
    void oneConsumer() {
        requireBroadcast();
        Topic<Msg> topic = broadcastTopic("broadcast-one");
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(
                topic, h().groupConfig(2, 4).groupName(h().name("scaled")).build(), rec.factory());
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        assertThat(group.activeConsumers(topic)).isEqualTo(1);
        assertThat(group.scaleUp(topic)).isFalse();
        rec.assertNoMoreCalls(1);
        assertThat(rec.calls()).extracting(Recorder.Call::consumer).containsOnly(0);
    }

    @Test
    @DisplayName("a broadcast topic cannot have a DLQ, hold queues or sequencing: build() fails naming the topic")
    void builderRefusesReliabilitySettings() {
        String name = h().name("broadcast-builder");

        assertThatThrownBy(
                        () -> Topic.builder(name, Msg.class).broadcast().dlq().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name);
        assertThatThrownBy(() -> Topic.builder(name, Msg.class)
                        .broadcast()
                        .holdQueue(Duration.ofSeconds(1))
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name);
        assertThatThrownBy(() -> Topic.builder(name, Msg.class)
                        .broadcast()
                        .sequenced(SequenceFailure.SKIP, Msg::key)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name);
    }

    @Test
    @DisplayName("where the backend has no broadcast, registering a broadcast topic fails with"
            + " IllegalArgumentException naming it")
    void refusedWithoutBroadcast() {
        assumeFalse(capabilities().broadcast(), "the backend has broadcast topics");
        Topic<Msg> topic = broadcastTopic("broadcast-refused");
        var supervisor = h().supervisor();

        assertThatThrownBy(() -> supervisor.register(topic, ConsumerOptions.ofDefaults(), h().<Msg>acking()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(topic.name());
    }
}
