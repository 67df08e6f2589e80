package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.DeadLetter;
import dev.shove.DeadLetterException;
import dev.shove.DeadLetterOptions;
import dev.shove.DeadLetterQueue;
import dev.shove.DeadLetterReport;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter tools ({@code broker.deadLetters(topic)}): counting, browsing without consuming, replaying with a
 * filter, a limit and a dry run, refusing replay loops, purging. Dead letters are made by a handler that rejects
 * first attempts, in a group without a dead-letter consumer, so they stay in the queue.
 */
abstract class DeadLetterQueueContracts<B> extends Contracts<B> {

    DeadLetterQueueContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    /** Rejects every message the first time it is handled (a replayed copy is handled again: attempt 1). */
    private Recorder<Msg> rejectingFirst() {
        return h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.reject("bad " + m.n()) : Outcome.ack());
    }

    /** Consumes {@code topic} with {@code rec}, publishes messages 1..n and waits until all n are dead letters. */
    private DeadLetterQueue<Msg> deadLetters(Topic<Msg> topic, Recorder<Msg> rec, int n) {
        h().consume(topic, config(c -> c.noDeadLetterConsumer()), rec);
        for (int i = 1; i <= n; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }
        return awaitCount(topic, n);
    }

    private DeadLetterQueue<Msg> awaitCount(Topic<Msg> topic, long n) {
        DeadLetterQueue<Msg> dlq = h().broker().deadLetters(topic);
        h().await(
                        "%d dead letters in %s".formatted(n, dlq.name()),
                        () -> dlq.count().orElse(-1) == n);
        return dlq;
    }

    private static List<Integer> numbers(List<DeadLetter<Msg>> letters) {
        return letters.stream().map(d -> d.message().orElseThrow().n()).sorted().toList();
    }

    private static Predicate<DeadLetter<Msg>> number(int n) {
        return d -> d.message().map(m -> m.n() == n).orElse(false);
    }

    @Test
    @DisplayName("count says how many dead letters wait")
    void count() {
        Topic<Msg> topic = plainTopic("dlq-count");
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rejectingFirst(), 3);

        assertThat(dlq.count()).hasValue(3);
        assertThat(dlq.name()).isEqualTo(topic.dlq().orElseThrow());
    }

    @Test
    @DisplayName("browse shows dead letters with why they died, their headers and the exception, and leaves them")
    void browse() {
        Topic<Msg> topic = plainTopic("dlq-browse");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 1) {
                throw new IllegalStateException("no stock for " + m.n());
            }
            return Outcome.reject("bad " + m.n());
        });
        h().consume(topic, config(c -> c.noDeadLetterConsumer().maxRetries(0)), rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("tenant", "acme"));
        h().publisher().publish(topic, Msg.of(2));
        DeadLetterQueue<Msg> dlq = awaitCount(topic, 2);

        List<DeadLetter<Msg>> letters = dlq.browse(10);

        assertThat(numbers(letters)).containsExactly(1, 2);
        DeadLetter<Msg> thrown = letters.stream().filter(number(1)).findFirst().orElseThrow();
        assertThat(thrown.metadata().exceptionClass()).hasValue(IllegalStateException.class.getName());
        assertThat(thrown.metadata().exceptionMessage()).hasValue("no stock for 1");
        assertThat(thrown.metadata().message().headers()).containsEntry("tenant", "acme");
        assertThat(thrown.metadata().originalQueue()).isEqualTo(topic.name());
        assertThat(thrown.metadata().deathCount()).isEqualTo(1);
        assertThat(thrown.replayCount()).isZero();
        assertThat(thrown.unreadable()).isEmpty();
        assertThat(thrown.id())
                .isEqualTo(rec.calls().stream()
                        .filter(c -> c.message().n() == 1)
                        .findFirst()
                        .orElseThrow()
                        .messageId());
        DeadLetter<Msg> rejected =
                letters.stream().filter(number(2)).findFirst().orElseThrow();
        assertThat(rejected.metadata().reason()).contains("bad 2");
        assertThat(rejected.metadata().exceptionClass()).isEmpty();

        assertThat(dlq.browse(10))
                .extracting(DeadLetter::id)
                .containsExactlyInAnyOrderElementsOf(
                        letters.stream().map(DeadLetter::id).toList());
        assertThat(dlq.count()).hasValue(2);
    }

    @Test
    @DisplayName("browse(max) returns at most max dead letters, the oldest first")
    void browseLimit() {
        Topic<Msg> topic = plainTopic("dlq-browse-max");
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rejectingFirst(), 3);

        assertThat(dlq.browse(2)).hasSize(2);
        assertThat(dlq.browse(1)).hasSize(1);
    }

    @Test
    @DisplayName("a dead letter that cannot be decoded is browsed as its bytes, with why it cannot be read")
    void browseUnreadable() {
        Topic<Msg> topic = plainTopic("dlq-unreadable");
        h().consume(topic, config(c -> c.noDeadLetterConsumer()), h().acking());
        byte[] garbage = "not json".getBytes(StandardCharsets.UTF_8);
        h().publisher().publish(h().rawTwin(topic), garbage);
        DeadLetterQueue<Msg> dlq = awaitCount(topic, 1);

        DeadLetter<Msg> letter = dlq.browse(1).getFirst();

        assertThat(letter.message()).isEmpty();
        assertThat(letter.unreadable()).isPresent();
        assertThat(letter.payload()).isEqualTo(garbage);
    }

    @Test
    @DisplayName("replay sends dead letters back to the topic: same message id, retry count 0, replay count 1, and"
            + " removes them")
    void replay() {
        Topic<Msg> topic = plainTopic("dlq-replay");
        Recorder<Msg> rec = rejectingFirst();
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rec, 2);

        DeadLetterReport report = dlq.replay(DeadLetterOptions.ofDefaults());

        assertThat(report.moved()).isEqualTo(2);
        assertThat(report.scanned()).isEqualTo(2);
        assertThat(report.dryRun()).isFalse();
        List<Recorder.Call<Msg>> calls = rec.awaitCalls(4);
        for (Recorder.Call<Msg> replayed :
                calls.stream().filter(c -> c.attempt() == 1).toList()) {
            Recorder.Call<Msg> first = calls.stream()
                    .filter(c -> c.attempt() == 0 && c.message().equals(replayed.message()))
                    .findFirst()
                    .orElseThrow();
            assertThat(replayed.messageId()).isEqualTo(first.messageId());
            assertThat(replayed.retryCount()).isZero();
            assertThat(replayed.metadata().header(ShoveHeaders.REPLAY_COUNT)).hasValue("1");
            assertThat(replayed.metadata().header(ShoveHeaders.DEATH_REASON)).isEmpty();
        }
        assertThat(report.movedIds())
                .containsExactlyInAnyOrderElementsOf(calls.stream()
                        .filter(c -> c.attempt() == 0)
                        .map(Recorder.Call::messageId)
                        .toList());
        h().await("the dead-letter queue to be empty", () -> dlq.count().orElse(-1) == 0);
        rec.assertNoMoreCalls(4);
    }

    @Test
    @DisplayName("replay with a filter moves only the dead letters it chooses; the others stay")
    void replayFilter() {
        Topic<Msg> topic = plainTopic("dlq-replay-filter");
        Recorder<Msg> rec = rejectingFirst();
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rec, 3);

        DeadLetterReport report = dlq.replay(number(2), DeadLetterOptions.ofDefaults());

        assertThat(report.scanned()).isEqualTo(3);
        assertThat(report.matched()).isEqualTo(1);
        assertThat(report.moved()).isEqualTo(1);
        assertThat(rec.awaitCalls(4).getLast().message()).isEqualTo(Msg.of(2));
        awaitCount(topic, 2);
        assertThat(numbers(dlq.browse(10))).containsExactly(1, 3);
        rec.assertNoMoreCalls(4);
    }

    @Test
    @DisplayName("replay moves at most maxMessages dead letters")
    void replayLimit() {
        Topic<Msg> topic = plainTopic("dlq-replay-max");
        Recorder<Msg> rec = rejectingFirst();
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rec, 3);

        DeadLetterReport report = dlq.replay(
                DeadLetterOptions.builder().maxMessages(2).pageSize(1).build());

        assertThat(report.moved()).isEqualTo(2);
        rec.awaitCalls(5);
        awaitCount(topic, 1);
        rec.assertNoMoreCalls(5);
    }

    @Test
    @DisplayName("a dry run reports what would move and moves nothing")
    void dryRun() {
        Topic<Msg> topic = plainTopic("dlq-dry-run");
        Recorder<Msg> rec = rejectingFirst();
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rec, 2);

        DeadLetterReport report =
                dlq.replay(DeadLetterOptions.builder().dryRun().build());

        assertThat(report.dryRun()).isTrue();
        assertThat(report.moved()).isEqualTo(2);
        assertThat(report.movedIds()).hasSize(2);
        rec.assertNoMoreCalls(2);
        assertThat(dlq.count()).hasValue(2);
        assertThat(dlq.browse(10)).hasSize(2);
    }

    @Test
    @DisplayName("a dead letter replayed maxReplays times is refused and stays, so a failing message cannot loop")
    void replayLoopRefused() {
        Topic<Msg> topic = plainTopic("dlq-replay-loop");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject("always"));
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rec, 1);
        DeadLetterOptions once = DeadLetterOptions.builder().maxReplays(1).build();

        assertThat(dlq.replay(once).moved()).isEqualTo(1);
        rec.awaitCalls(2);
        awaitCount(topic, 1);
        DeadLetter<Msg> again = dlq.browse(1).getFirst();
        assertThat(again.replayCount()).isEqualTo(1);
        assertThat(again.metadata().deathCount()).isEqualTo(2);

        DeadLetterReport refused = dlq.replay(once);

        assertThat(refused.moved()).isZero();
        assertThat(refused.refused()).isEqualTo(1);
        assertThat(refused.refusedIds()).containsExactly(again.id());
        rec.assertNoMoreCalls(2);
        assertThat(dlq.count()).hasValue(1);
    }

    @Test
    @DisplayName("purge removes the dead letters the filter chooses, without publishing them")
    void purge() {
        Topic<Msg> topic = plainTopic("dlq-purge");
        Recorder<Msg> rec = rejectingFirst();
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rec, 3);

        DeadLetterReport report = dlq.purge(number(1), DeadLetterOptions.ofDefaults());

        assertThat(report.moved()).isEqualTo(1);
        awaitCount(topic, 2);
        assertThat(numbers(dlq.browse(10))).containsExactly(2, 3);
        rec.assertNoMoreCalls(3);
    }

    @Test
    @DisplayName("a filter that throws stops the replay with the report so far; nothing is lost")
    void filterThrows() {
        Topic<Msg> topic = plainTopic("dlq-filter-throws");
        Recorder<Msg> rec = rejectingFirst();
        DeadLetterQueue<Msg> dlq = deadLetters(topic, rec, 2);

        assertThatThrownBy(() -> dlq.replay(
                        d -> {
                            throw new IllegalStateException("filter bug");
                        },
                        DeadLetterOptions.ofDefaults()))
                .isInstanceOf(DeadLetterException.class)
                .hasMessageContaining("the filter threw")
                .hasRootCauseMessage("filter bug")
                .satisfies(e ->
                        assertThat(((DeadLetterException) e).report().moved()).isZero());
        assertThat(dlq.count()).hasValue(2);
        assertThat(dlq.browse(10)).hasSize(2);
        rec.assertNoMoreCalls(2);
    }

    @Test
    @DisplayName("replay on a sequenced topic keeps each message's key: replays of one key are handled in order")
    void replaySequenced() {
        Topic<Msg> topic = h().topic("dlq-sequenced")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        Recorder<Msg> rec = rejectingFirst();
        h().consume(topic, config(c -> c.noDeadLetterConsumer()), rec);
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, new Msg("a", i));
        }
        DeadLetterQueue<Msg> dlq = awaitCount(topic, 3);

        assertThat(dlq.replay(DeadLetterOptions.ofDefaults()).moved()).isEqualTo(3);

        List<Recorder.Call<Msg>> replayed = rec.awaitCalls(6).stream()
                .filter(c -> c.attempt() == 1)
                .sorted(Comparator.comparingLong(Recorder.Call::startNanos))
                .toList();
        assertThat(replayed).extracting(c -> c.message().label()).containsExactly("a0", "a1", "a2");
        assertThat(replayed)
                .allSatisfy(c -> assertThat(c.metadata().header(ShoveHeaders.SEQUENCE_KEY))
                        .hasValue("a"));
    }

    @Test
    @DisplayName("a topic without a dead-letter queue has no dead-letter tools")
    void noDlq() {
        Topic<Msg> topic = h().topic("dlq-none").build();
        assertThatThrownBy(() -> h().broker().deadLetters(topic))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(topic.name())
                .hasMessageContaining("no dead-letter queue");
    }
}
