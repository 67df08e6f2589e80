package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.ConsumerGroupConfig;
import dev.shove.ConsumerOptions;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Moving a log-like subscription: {@link Outcome#andSeek(Position)} from a handler, {@code withStartAt} at
 * registration, positions that do not exist, and how seeking is refused where the backend has no log. Most contracts
 * need {@code capabilities().seek()} and run with prefetch 1, so that "what waits" is well defined; an {@code andSeek}
 * the registration did not allow is ignored on every backend, and the refusals at registration run exactly where
 * {@code seek} is missing.
 */
abstract class SeekContracts<B> extends Contracts<B> {

    SeekContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private void requireSeek() {
        assumeTrue(capabilities().seek(), "the backend's subscriptions are not logs");
    }

    /** One consumer, prefetch 1, seeking allowed, plus {@code more}. */
    private ConsumerGroupConfig seeking(UnaryOperator<ConsumerGroupConfig.Builder> more) {
        return config(c -> more.apply(c.prefetch(1).seeking()));
    }

    private ConsumerGroupConfig seeking() {
        return seeking(o -> o);
    }

    /** Declares {@code topic} and publishes messages {@code from..to-1} to it. */
    private void publish(Topic<Msg> topic, int from, int to) {
        h().broker().topology().declare(topic);
        h().publisher()
                .publishBatch(topic, IntStream.range(from, to).mapToObj(Msg::of).toList());
    }

    private static List<Integer> numbers(Recorder<Msg> rec) {
        return rec.messages().stream().map(Msg::n).toList();
    }

    @Test
    @DisplayName("andSeek(a captured position) replays that message and then the rest, in order")
    void seekToCaptured() {
        requireSeek();
        Topic<Msg> topic = plainTopic("seek-captured");
        publish(topic, 0, 5);
        AtomicReference<Position> second = new AtomicReference<>();
        AtomicBoolean sought = new AtomicBoolean();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 1) {
                second.compareAndSet(null, meta.position().orElseThrow());
            }
            if (m.n() == 3 && sought.compareAndSet(false, true)) {
                return Outcome.ack().andSeek(second.get());
            }
            return Outcome.ack();
        });
        h().consume(topic, seeking(), rec);

        rec.awaitCalls(8);
        rec.assertNoMoreCalls(8);
        assertThat(numbers(rec)).containsExactly(0, 1, 2, 3, 1, 2, 3, 4);
    }

    @Test
    @DisplayName("on a sequenced topic, andSeek replays the key from the position, in order: later messages of the"
            + " key do not slip in before the replay")
    void sequencedSeekKeepsOrder() {
        requireSeek();
        Topic<Msg> topic = h().topic("seek-sequenced")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(1)
                .build();
        h().broker().topology().declare(topic);
        for (int i = 0; i < 4; i++) {
            h().publisher().publish(topic, new Msg("a", i));
        }
        AtomicReference<Position> first = new AtomicReference<>();
        AtomicBoolean sought = new AtomicBoolean();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 0) {
                first.compareAndSet(null, meta.position().orElseThrow());
            }
            if (m.n() == 2 && sought.compareAndSet(false, true)) {
                return Outcome.ack().andSeek(first.get());
            }
            return Outcome.ack();
        });
        h().consume(topic, seeking(), rec);

        rec.awaitCalls(7);
        rec.assertNoMoreCalls(7);
        assertThat(rec.calls())
                .extracting(c -> c.message().label())
                .containsExactly("a0", "a1", "a2", "a0", "a1", "a2", "a3");
    }

    @Test
    @DisplayName("every delivery of a log-like subscription carries its position")
    void positionPresent() {
        requireSeek();
        Topic<Msg> topic = plainTopic("seek-position");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, seeking(), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(calls).allSatisfy(c -> assertThat(c.metadata().position()).isPresent());
        assertThat(calls.get(0).metadata().position())
                .isNotEqualTo(calls.get(1).metadata().position());
    }

    @Test
    @DisplayName("andSeek(Position.start()) replays every retained message, in order")
    void seekToStart() {
        requireSeek();
        Topic<Msg> topic = plainTopic("seek-start");
        publish(topic, 0, 4);
        AtomicBoolean sought = new AtomicBoolean();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> m.n() == 2 && sought.compareAndSet(false, true)
                ? Outcome.ack().andSeek(Position.start())
                : Outcome.ack());
        h().consume(topic, seeking(), rec);

        rec.awaitCalls(7);
        rec.assertNoMoreCalls(7);
        assertThat(numbers(rec)).containsExactly(0, 1, 2, 0, 1, 2, 3);
    }

    @Test
    @DisplayName("andSeek(Position.end()) skips every message waiting; later messages flow")
    void seekToEnd() {
        requireSeek();
        Topic<Msg> topic = plainTopic("seek-end");
        publish(topic, 0, 5);
        Recorder<Msg> rec =
                h().recorder((m, meta, attempt) -> m.n() == 0 ? Outcome.ack().andSeek(Position.end()) : Outcome.ack());
        h().consume(topic, seeking(), rec);
        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
        h().publisher().publish(topic, Msg.of(10));

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(numbers(rec)).containsExactly(0, 10);
    }

    @Test
    @DisplayName("a seek follows the settlement of its own outcome: a retry with andSeek is still retried")
    void seekAfterOwnSettlement() {
        requireSeek();
        Topic<Msg> topic = plainTopic("seek-retry");
        publish(topic, 0, 3);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) ->
                m.n() == 0 && attempt == 0 ? Outcome.retry().andSeek(Position.end()) : Outcome.ack());
        h().consume(topic, seeking(), rec);

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.calls())
                .extracting(c -> c.message().n(), Recorder.Call::retryCount)
                .containsExactly(tuple(0, 0), tuple(0, 1));
    }

    @Test
    @DisplayName("withStartAt(Position.start()) replays the retained log into a fresh group, in order")
    void startAtStart() {
        requireSeek();
        Topic<Msg> topic = plainTopic("start-at-start");
        publish(topic, 0, 3);
        Recorder<Msg> first = h().acking();
        var group = h().consume(topic, config(c -> c.prefetch(1)), first);
        first.awaitCalls(3);
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        Recorder<Msg> fresh = h().acking();
        h().consume(topic, seeking(o -> o.startAt(Position.start()).groupName(h().name("fresh"))), fresh);
        fresh.awaitCalls(3);
        fresh.assertNoMoreCalls(3);
        assertThat(numbers(fresh)).containsExactly(0, 1, 2);
    }

    @Test
    @DisplayName("withStartAt(Position.end()) starts after the newest message: only what is published later arrives")
    void startAtEnd() {
        requireSeek();
        Topic<Msg> topic = plainTopic("start-at-end");
        publish(topic, 0, 3);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, seeking(o -> o.startAt(Position.end())), rec);
        rec.assertNoMoreCalls(0);
        h().publisher().publish(topic, Msg.of(3));

        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
        assertThat(numbers(rec)).containsExactly(3);
    }

    @Test
    @DisplayName("withStartAt(Position.sequence(n)) starts at the message whose offset is n")
    void startAtSequence() {
        requireSeek();
        Topic<Msg> topic = plainTopic("start-at-sequence");
        publish(topic, 0, 5);
        Recorder<Msg> first = h().acking();
        var group = h().consume(topic, config(c -> c.prefetch(1)), first);
        first.awaitCalls(5);
        assertThat(group.stop(h().patience()).exitCode()).isZero();
        OptionalLong offset = first.calls().get(2).metadata().offset();
        assumeTrue(offset.isPresent(), "the backend reports no offsets to start at");

        Recorder<Msg> fresh = h().acking();
        h().consume(
                        topic,
                        seeking(o ->
                                o.startAt(Position.sequence(offset.getAsLong())).groupName(h().name("fresh"))),
                        fresh);
        fresh.awaitCalls(3);
        fresh.assertNoMoreCalls(3);
        assertThat(numbers(fresh)).containsExactly(2, 3, 4);
    }

    @Test
    @DisplayName("withStartAt(Position.timestamp(t)) starts at the first message accepted at or after t")
    void startAtTimestamp() {
        requireSeek();
        Topic<Msg> topic = plainTopic("start-at-time");
        publish(topic, 0, 3);
        // Leave a clear gap on the clock between the two runs of messages; t falls inside it.
        long published = System.currentTimeMillis();
        h().await("the clock to move past the first messages", () -> System.currentTimeMillis() > published + 50);
        Instant t = Instant.now();
        h().await("the clock to move past t", () -> System.currentTimeMillis() > t.toEpochMilli() + 50);
        publish(topic, 3, 6);

        Recorder<Msg> rec = h().acking();
        h().consume(topic, seeking(o -> o.startAt(Position.timestamp(t))), rec);
        rec.awaitCalls(3);
        rec.assertNoMoreCalls(3);
        assertThat(numbers(rec)).containsExactly(3, 4, 5);
    }

    @Test
    @DisplayName("a seek to a position beyond the log is refused: the subscription stays, and every message still"
            + " flows once, in order")
    void seekBeyondEndRefused() {
        requireSeek();
        Topic<Msg> topic = plainTopic("seek-beyond");
        publish(topic, 0, 5);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) ->
                m.n() == 1 ? Outcome.ack().andSeek(Position.sequence(Long.MAX_VALUE / 2)) : Outcome.ack());
        h().consume(topic, seeking(), rec);

        rec.awaitCalls(5);
        rec.assertNoMoreCalls(5);
        assertThat(numbers(rec)).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    @DisplayName("a seek to a position that was trimmed from the log is refused: the subscription stays, nothing is"
            + " lost")
    void seekToTrimmedRefused() {
        requireSeek();
        OptionalInt retention = h().kit().logRetention();
        assumeTrue(retention.isPresent(), "the kit does not know how many messages the broker's logs keep");
        Topic<Msg> topic = plainTopic("seek-trimmed");
        AtomicReference<Position> oldest = new AtomicReference<>();
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> {
            oldest.set(meta.position().orElseThrow());
            return Outcome.ack();
        });
        var group = h().consume(topic, seeking(), first);
        h().publisher().publish(topic, Msg.of(-1));
        first.awaitCalls(1);
        assertThat(group.stop(h().patience()).exitCode()).isZero();
        int published = 2 * retention.getAsInt();
        publish(topic, 0, published);

        AtomicBoolean sought = new AtomicBoolean();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) ->
                sought.compareAndSet(false, true) ? Outcome.ack().andSeek(oldest.get()) : Outcome.ack());
        h().consume(topic, seeking(), rec);
        h().await(
                        "the last message",
                        () -> !rec.calls(m -> m.n() == published - 1).isEmpty());

        List<Integer> seen = numbers(rec);
        int from = seen.getFirst();
        assertThat(from).as("the log was trimmed").isPositive();
        assertThat(seen)
                .containsExactlyElementsOf(
                        IntStream.range(from, published).boxed().toList());
    }

    @Test
    @DisplayName("andSeek on a registration without withSeeking() is ignored: consumption goes on as if not asked")
    void seekWithoutSeekingIgnored() {
        Topic<Msg> topic = plainTopic("seek-not-allowed");
        publish(topic, 0, 4);
        Recorder<Msg> rec = h().recorder(
                        (m, meta, attempt) -> m.n() == 2 ? Outcome.ack().andSeek(Position.start()) : Outcome.ack());
        h().consume(topic, config(c -> c.prefetch(1)), rec);

        rec.awaitCalls(4);
        rec.assertNoMoreCalls(4);
        assertThat(numbers(rec)).containsExactly(0, 1, 2, 3);
    }

    @Test
    @DisplayName("where the backend has no log, registering withStartAt fails at registration with"
            + " IllegalArgumentException")
    void startAtRefusedWithoutLog() {
        assumeFalse(capabilities().seek(), "the backend's subscriptions are logs");
        Topic<Msg> topic = plainTopic("start-at-refused");
        var group = h().group();

        assertThatThrownBy(
                        () -> group.register(topic, config(c -> c.startAt(Position.start())), () -> h().<Msg>acking()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(topic.name());
    }

    @Test
    @DisplayName("where the backend has no log, registering withSeeking fails at registration with"
            + " IllegalArgumentException")
    void seekingRefusedWithoutLog() {
        assumeFalse(capabilities().seek(), "the backend's subscriptions are logs");
        Topic<Msg> topic = plainTopic("seeking-refused");
        var supervisor = h().supervisor();

        assertThatThrownBy(() -> supervisor.register(
                        topic, ConsumerOptions.builder().seeking().build(), h().<Msg>acking()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(topic.name());
    }

    @Test
    @DisplayName("a seek asked by a batch applies once every message of the batch settled: the batch is replayed"
            + " once, in order")
    void batchSeek() {
        requireSeek();
        Topic<Msg> topic = plainTopic("seek-batch");
        publish(topic, 0, 3);
        AtomicBoolean sought = new AtomicBoolean();
        BatchRecorder<Msg> rec = h().batchRecorder(b -> sought.compareAndSet(false, true)
                ? BatchOutcome.all(Outcome.ack()
                        .andSeek(b.envelopes().getFirst().metadata().position().orElseThrow()))
                : BatchOutcome.ackAll());
        h().consumeBatch(topic, seeking(), BatchOptions.of(3, tier()), rec);

        BatchRecorder.Batch<Msg> first = rec.awaitBatches(1).getFirst();
        rec.awaitMessages(3 + first.size());
        rec.assertNoMoreMessages(3 + first.size());
        List<Integer> expected = new ArrayList<>();
        first.messages().forEach(m -> expected.add(m.n()));
        IntStream.range(first.messages().getFirst().n(), 3).forEach(expected::add);
        assertThat(rec.messages()).extracting(Msg::n).containsExactlyElementsOf(expected);
    }
}
