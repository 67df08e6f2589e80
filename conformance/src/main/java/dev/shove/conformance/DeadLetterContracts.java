package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.DeadLetter;
import dev.shove.DeadLetterQueue;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a group does with its dead letters: handleDead once per dead letter, its metadata; by default the dead letter
 * stays in the queue whatever handleDead did ({@code KEEP}); {@code REMOVE} consumes and empties the queue.
 */
abstract class DeadLetterContracts<B> extends Contracts<B> {

    DeadLetterContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName(
            "handleDead receives the message with reason, originalQueue, deathCount 1 and the retryCount it died with")
    void handleDeadMetadata() {
        Topic<Msg> topic = plainTopic("dead-meta");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.reject("bad"));
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(5));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        DeadMessageMetadata meta = death.metadata();
        assertThat(death.message()).isEqualTo(Msg.of(5));
        assertThat(meta.reason()).isEqualTo("rejected: bad");
        assertThat(meta.originalQueue()).isEqualTo(topic.name());
        assertThat(meta.deathCount()).isEqualTo(1);
        assertThat(meta.message().retryCount()).isEqualTo(1);
        assertThat(meta.message().topic()).isEqualTo(topic.name());
    }

    @Test
    @DisplayName("a message that died because its handler threw carries the exception's class, message and trace")
    void deadLetterSaysWhy() {
        Topic<Msg> topic = plainTopic("dead-why");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            throw new IllegalStateException("ledger down\nsecond line");
        });
        h().consume(topic, config(c -> c.maxRetries(0)), rec);
        h().publisher().publish(topic, Msg.of(1));

        DeadMessageMetadata meta = rec.awaitDeaths(1).getFirst().metadata();
        assertThat(meta.reason()).isEqualTo("max-retries-exceeded");
        assertThat(meta.exceptionClass()).contains(IllegalStateException.class.getName());
        assertThat(meta.exceptionMessage()).contains("ledger down second line");
        assertThat(meta.exceptionTrace())
                .hasValueSatisfying(trace -> assertThat(trace)
                        .startsWith(IllegalStateException.class.getName() + ": ledger down second line | at ")
                        .doesNotContain("\n")
                        .hasSizeLessThanOrEqualTo(4096));
    }

    @Test
    @DisplayName("a message rejected without an exception carries no exception headers")
    void rejectSaysNoException() {
        Topic<Msg> topic = plainTopic("dead-no-why");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject("bad"));
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        DeadMessageMetadata meta = rec.awaitDeaths(1).getFirst().metadata();
        assertThat(meta.exceptionClass()).isEmpty();
        assertThat(meta.exceptionTrace()).isEmpty();
    }

    @Test
    @DisplayName("each dead letter reaches handleDead exactly once")
    void handleDeadOnce() {
        Topic<Msg> topic = plainTopic("dead-once");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        h().consume(topic, rec);
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitDeaths(3);
        rec.assertNoMoreDeaths(3);
        assertThat(rec.deaths())
                .extracting(Recorder.Death::message)
                .containsExactlyInAnyOrder(Msg.of(0), Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("a dead letter is acknowledged even when handleDead throws: it is never delivered again")
    void handleDeadThrows() {
        Topic<Msg> topic = plainTopic("dead-throws");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject(), (m, dead) -> {
            throw new IllegalStateException("handleDead fails on purpose");
        });
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitDeaths(1);
        rec.assertNoMoreDeaths(1);
    }

    @Test
    @DisplayName("a message that cannot be decoded is kept as a dead letter with its raw bytes, handleDead is not"
            + " called for it, and later ones are handled")
    void undecodableDeadLetter() {
        Topic<Msg> topic = plainTopic("dead-undecodable");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        var group = h().consume(topic, config(c -> c.prefetch(1)), rec);
        h().publisher().publish(h().rawTwin(topic), "not json".getBytes(StandardCharsets.UTF_8));
        h().await(
                        "the undecodable message to be dead-lettered",
                        () -> h().count("shove.messages.failed", "topic", topic.name(), "reason", "decode") == 1);
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitDeaths(1);
        rec.assertNoMoreDeaths(1);
        assertThat(rec.deaths().getFirst().message()).isEqualTo(Msg.of(2));
        assertThat(group.stop(h().patience()).exitCode()).isZero();
        assertThat(h().count("shove.messages.discarded", "topic", topic.dlq().orElseThrow(), "reason", "decode"))
                .isZero();

        Recorder<byte[]> reader = h().deadLetterReader(topic);
        assertThat(reader.awaitDeaths(2))
                .extracting(d -> new String(d.message(), StandardCharsets.UTF_8))
                .contains("not json");
    }

    @Test
    @DisplayName("noDeadLetterConsumer and the default leave dead letters already in the DLQ alone;"
            + " handleAndRemoveDeadLetters hands them to handleDead and empties the DLQ")
    void deadLettersAlreadyStored() {
        Topic<Msg> topic = plainTopic("dead-left");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        var first = h().consume(topic, config(c -> c.noDeadLetterConsumer()), rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);
        rec.assertNoMoreDeaths(0);
        assertThat(first.stop(h().patience()).exitCode()).isZero();

        Recorder<Msg> keeping = h().acking();
        var second = h().consume(topic, keeping);
        keeping.assertNoMoreDeaths(0);
        assertThat(second.stop(h().patience()).exitCode()).isZero();

        Recorder<Msg> removing = h().acking();
        h().consume(topic, config(c -> c.handleAndRemoveDeadLetters()), removing);
        Recorder.Death<Msg> death = removing.awaitDeaths(1).getFirst();
        assertThat(death.message()).isEqualTo(Msg.of(1));
        assertThat(death.reason()).isEqualTo("rejected");
        h().await(
                        "the dead-letter queue to be empty",
                        () -> h().broker().deadLetters(topic).count().orElse(-1) == 0);
    }

    @Test
    @DisplayName("by default a dead letter stays in the DLQ after handleDead, where broker.deadLetters sees it")
    void defaultKeepsDeadLetters() {
        Topic<Msg> topic = plainTopic("dead-default");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject("kept"));
        var group = h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitDeaths(1);
        assertThat(group.stop(h().patience()).exitCode()).isZero();
        DeadLetterQueue<Msg> dlq = h().broker().deadLetters(topic);
        h().await("the dead letter to stay in the queue", () -> dlq.count().orElse(-1) == 1);
        List<DeadLetter<Msg>> kept = dlq.browse(10);
        assertThat(kept).hasSize(1);
        assertThat(kept.getFirst().message()).contains(Msg.of(1));
        assertThat(kept.getFirst().metadata().reason()).isEqualTo("rejected: kept");
        rec.assertNoMoreDeaths(1);
    }

    @Test
    @DisplayName("handleAndRemoveDeadLetters: the default handleDead removes dead letters: they are not delivered"
            + " again")
    void removeModeAcknowledges() {
        Topic<Msg> topic = plainTopic("dead-remove");
        var group = h().group();
        group.register(topic, config(c -> c.handleAndRemoveDeadLetters()), () -> (m, meta, ctx) -> Outcome.reject());
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        String dlq = topic.dlq().orElseThrow();
        h().await(
                        "the dead-letter consumer to acknowledge the dead letter",
                        () -> h().count("shove.messages.consumed", "topic", dlq, "outcome", "ack") == 1);
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        Recorder<byte[]> reader = h().deadLetterReader(topic);
        reader.assertNoMoreDeaths(0);
    }

    @Test
    @DisplayName("a handleDead past the handler timeout is interrupted and its dead letter acknowledged")
    void handleDeadTimeout() {
        Topic<Msg> topic = plainTopic("dead-timeout");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject(), (m, dead) -> gate.pass());
        h().consume(topic, config(c -> c.handlerTimeout(tier().multipliedBy(2))), rec);
        h().publisher().publish(topic, Msg.of(1));

        h().await("handleDead to be interrupted", () -> gate.interrupted() == 1);
        rec.assertNoMoreDeaths(1);
    }

    @Test
    @DisplayName("a rejected message's dead letter carries its payload bytes unchanged")
    void deadLetterKeepsPayload() {
        Topic<byte[]> topic =
                h().rawTopic("dead-payload").holdQueue(tier()).dlq().build();
        byte[] payload = {(byte) 0xca, (byte) 0xfe, 0, (byte) 0xba, (byte) 0xbe};
        Recorder<byte[]> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publish(topic, payload);

        assertThat(rec.awaitDeaths(1).getFirst().message()).isEqualTo(payload);
    }

    @Test
    @DisplayName("handleAndRemoveDeadLetters: a dead letter that cannot be decoded is discarded visibly: counted in"
            + " shove.messages.discarded")
    void undecodableDeadLetterCounted() {
        Topic<Msg> topic = plainTopic("dead-undecodable-count");
        h().consume(topic, config(c -> c.handleAndRemoveDeadLetters()), h().acking());
        h().publisher().publish(h().rawTwin(topic), "not json".getBytes(StandardCharsets.UTF_8));

        h().await(
                        "shove.messages.discarded{reason=decode} for the dead letter",
                        () -> h().count(
                                                "shove.messages.discarded",
                                                "topic",
                                                topic.dlq().orElseThrow(),
                                                "reason",
                                                "decode")
                                == 1);
    }

    @Test
    @DisplayName("a dead letter that cannot be decoded is counted as discarded through a wrapper (an audited handler)"
            + " that passes handleUnreadableDead on to the default")
    void undecodableDeadLetterCountedThroughWrapper() {
        Topic<Msg> topic = plainTopic("dead-undecodable-wrapped");
        h().consume(
                        topic,
                        config(c -> c.handleAndRemoveDeadLetters()),
                        h().<Msg>acking().audited(record -> {}));
        h().publisher().publish(h().rawTwin(topic), "not json".getBytes(StandardCharsets.UTF_8));

        h().await(
                        "shove.messages.discarded{reason=decode} for the dead letter",
                        () -> h().count(
                                                "shove.messages.discarded",
                                                "topic",
                                                topic.dlq().orElseThrow(),
                                                "reason",
                                                "decode")
                                == 1);
    }

    @Test
    @DisplayName("a dead letter over the size limit is not decoded: it reaches handleUnreadableDead as its bytes")
    void oversizeDeadLetterNotDecoded() {
        Topic<Msg> topic = plainTopic("dead-oversize");
        List<byte[]> unreadable = new CopyOnWriteArrayList<>();
        List<Msg> decoded = new CopyOnWriteArrayList<>();
        h().consume(topic, config(c -> c.maxMessageSize(64)), () -> new MessageHandler<Msg, Object>() {
            @Override
            public Outcome handle(Msg message, MessageMetadata metadata, Object context) {
                return Outcome.ack();
            }

            @Override
            public void handleDead(Msg message, DeadMessageMetadata metadata, Object context) {
                decoded.add(message);
            }

            @Override
            public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, Object context) {
                assertThat(metadata.reason()).startsWith("oversize");
                unreadable.add(payload);
            }
        });
        h().publisher().publish(topic, new Msg("k".repeat(200), 1));

        h().await("the oversize dead letter, as bytes", () -> unreadable.size() == 1);
        assertThat(unreadable.getFirst()).hasSizeGreaterThan(64);
        assertThat(decoded).isEmpty();
    }
}
