package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Sequenced topics: strict order per key across retries, SKIP and FAIL_ALL, and other keys never held up. */
abstract class SequencingContracts<B> extends Contracts<B> {

    SequencingContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private Topic<Msg> sequenced(String prefix, SequenceFailure onFailure) {
        return h().topic(prefix)
                .holdQueue(tier())
                .dlq()
                .sequenced(onFailure, Msg::key)
                .build();
    }

    /** The labels ({@code a0}, {@code a1}...) of the calls for one key, in the order the calls started. */
    private static List<String> labels(Recorder<Msg> rec, String key) {
        return rec.calls(m -> m.key().equals(key)).stream()
                .map(c -> c.message().label())
                .toList();
    }

    private void publish(Topic<Msg> topic, String key, int from, int to) {
        for (int i = from; i < to; i++) {
            h().publisher().publish(topic, new Msg(key, i));
        }
    }

    private static List<String> range(String key, int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(key + i);
        }
        return out;
    }

    @Test
    @DisplayName("3 keys x 10 interleaved messages: each key is handled in publish order")
    void interleavedKeysInOrder() {
        Topic<Msg> topic = sequenced("seq-order", SequenceFailure.SKIP);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        for (int i = 0; i < 10; i++) {
            for (String key : List.of("a", "b", "c")) {
                h().publisher().publish(topic, new Msg(key, i));
            }
        }

        rec.awaitCalls(30);
        for (String key : List.of("a", "b", "c")) {
            assertThat(labels(rec, key)).as("key " + key).containsExactlyElementsOf(range(key, 0, 10));
        }
    }

    @Test
    @DisplayName("keys in any script (müller, 张三, an emoji, one of 200 characters) are each handled in publish order,"
            + " and arrive unchanged")
    void unicodeKeysInOrder() {
        Topic<Msg> topic = sequenced("seq-unicode", SequenceFailure.SKIP);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        List<String> keys = List.of("müller", "张三", "\uD83D\uDE80 launch", "k".repeat(199) + "é");
        for (int i = 0; i < 5; i++) {
            for (String key : keys) {
                h().publisher().publish(topic, new Msg(key, i));
            }
        }

        rec.awaitCalls(20);
        for (String key : keys) {
            assertThat(labels(rec, key)).as("key " + key).containsExactlyElementsOf(range(key, 0, 5));
        }
        assertThat(rec.calls().stream()
                        .map(c -> c.metadata().header(ShoveHeaders.SEQUENCE_KEY).orElse("")))
                .containsAll(keys);
    }

    @Test
    @DisplayName("a batch published to a sequenced topic is handled in order per key")
    void batchInOrder() {
        Topic<Msg> topic = sequenced("seq-batch", SequenceFailure.SKIP);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        List<Msg> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(new Msg("a", i));
            batch.add(new Msg("b", i));
        }
        h().publisher().publishBatch(topic, batch);

        rec.awaitCalls(10);
        assertThat(labels(rec, "a")).containsExactlyElementsOf(range("a", 0, 5));
        assertThat(labels(rec, "b")).containsExactlyElementsOf(range("b", 0, 5));
    }

    @Test
    @DisplayName("a retried message holds back its key: later messages of the key are handled only after it")
    void retryKeepsOrder() {
        Topic<Msg> topic = sequenced("seq-retry", SequenceFailure.SKIP);
        Recorder<Msg> rec =
                h().recorder((m, meta, attempt) -> m.n() == 0 && attempt < 2 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        publish(topic, "a", 0, 3);

        rec.awaitCalls(5);
        assertThat(labels(rec, "a")).containsExactly("a0", "a0", "a0", "a1", "a2");
        assertThat(rec.retryCounts()).containsExactly(0, 1, 2, 0, 0);
    }

    @Test
    @DisplayName("while a key waits out a retry, other keys flow")
    void otherKeysFlowDuringRetry() {
        Topic<Msg> topic = sequenced("seq-other-keys", SequenceFailure.SKIP);
        Duration wait = tier().multipliedBy(5);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) ->
                m.label().equals("a0") && attempt == 0 ? Outcome.retry(wait) : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, new Msg("a", 0));
        h().publisher().publish(topic, new Msg("a", 1));
        publish(topic, "b", 0, 3);

        rec.awaitCalls(6);
        List<Recorder.Call<Msg>> calls = rec.calls();
        long a0Again = calls.stream()
                .filter(c -> c.message().label().equals("a0") && c.attempt() == 1)
                .findFirst()
                .orElseThrow()
                .startNanos();
        assertThat(rec.calls(m -> m.key().equals("b")))
                .as("key b handled while a0 waited")
                .allSatisfy(c -> assertThat(c.startNanos()).isLessThan(a0Again));
        assertThat(labels(rec, "a")).containsExactly("a0", "a0", "a1");
    }

    @Test
    @DisplayName("a retry on a sequenced topic waits at least the tier delay")
    void sequencedRetryWaits() {
        Duration delay = tier().multipliedBy(2);
        Topic<Msg> topic = h().topic("seq-delay")
                .holdQueue(delay)
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, new Msg("a", 0));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(millisBetween(calls.get(0).startNanos(), calls.get(1).startNanos()))
                .isGreaterThanOrEqualTo(atLeastMillis(delay));
    }

    @Test
    @DisplayName("where sequenced retries are durable, a retry waiting in place keeps its retryCount and due time when"
            + " its consumer stops and the next one takes over, and its key stays behind it")
    void waitingRetrySurvivesHandOver() {
        assumeTrue(
                capabilities().durableSequencedRetries(),
                "the backend keeps no wait state: a message delivered again starts from its published retryCount");
        Duration delay = tier().multipliedBy(3);
        Topic<Msg> topic = h().topic("seq-durable-wait")
                .holdQueue(delay)
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> Outcome.retry());
        var group = h().consume(topic, first);
        publish(topic, "a", 0, 2);
        first.awaitCalls(1);
        // the stop lets the handler finish; its retry then waits in place and goes back to the broker unsettled
        assertThat(group.stop(h().patience()).exitCode()).isZero();
        assertThat(labels(first, "a")).containsExactly("a0");

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        List<Recorder.Call<Msg>> calls = second.awaitCalls(2);

        assertThat(labels(second, "a")).containsExactly("a0", "a1");
        assertThat(calls.getFirst().metadata().retryCount()).isEqualTo(1);
        assertThat(millisBetween(
                        first.calls().getFirst().startNanos(), calls.getFirst().startNanos()))
                .isGreaterThanOrEqualTo(atLeastMillis(delay));
    }

    @Test
    @DisplayName("defer on a sequenced topic keeps the key's order and the retryCount")
    void deferKeepsOrderAndCount() {
        Topic<Msg> topic = sequenced("seq-defer", SequenceFailure.SKIP);
        Recorder<Msg> rec =
                h().recorder((m, meta, attempt) -> m.n() == 0 && attempt < 2 ? Outcome.defer() : Outcome.ack());
        h().consume(topic, rec);
        publish(topic, "a", 0, 2);

        rec.awaitCalls(4);
        assertThat(labels(rec, "a")).containsExactly("a0", "a0", "a0", "a1");
        assertThat(rec.retryCounts()).containsExactly(0, 0, 0, 0);
    }

    @Test
    @DisplayName("SKIP dead-letters the failed message and carries on with the rest of its key, in order")
    void skipCarriesOn() {
        Topic<Msg> topic = sequenced("seq-skip", SequenceFailure.SKIP);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> m.n() == 2 ? Outcome.reject() : Outcome.ack());
        h().consume(topic, rec);
        publish(topic, "a", 0, 5);

        rec.awaitCalls(5);
        assertThat(labels(rec, "a")).containsExactly("a0", "a1", "a2", "a3", "a4");
        assertThat(rec.awaitDeaths(1)).extracting(d -> d.message().label()).containsExactly("a2");
        rec.assertNoMoreDeaths(1);
    }

    @Test
    @DisplayName("SKIP: a message that exhausts its retries is dead-lettered, and its key carries on after it")
    void skipAfterMaxRetries() {
        Topic<Msg> topic = sequenced("seq-skip-max", SequenceFailure.SKIP);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> m.n() == 1 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, config(c -> c.maxRetries(1)), rec);
        publish(topic, "a", 0, 4);

        rec.awaitCalls(5);
        assertThat(labels(rec, "a")).containsExactly("a0", "a1", "a1", "a2", "a3");
        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.message().label()).isEqualTo("a1");
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
    }

    @Test
    @DisplayName("FAIL_ALL dead-letters the failed message and every later message of its key, without the handler")
    void failAllDeadLettersRest() {
        Topic<Msg> topic = sequenced("seq-fail-all", SequenceFailure.FAIL_ALL);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> m.n() == 3 ? Outcome.reject() : Outcome.ack());
        h().consume(topic, rec);
        publish(topic, "a", 0, 6);

        rec.awaitDeaths(3);
        assertThat(labels(rec, "a")).containsExactly("a0", "a1", "a2", "a3");
        assertThat(rec.deaths()).extracting(d -> d.message().label()).containsExactlyInAnyOrder("a3", "a4", "a5");
        rec.assertNoMoreCalls(4);
    }

    @Test
    @DisplayName("FAIL_ALL: the later messages of a poisoned key are dead-lettered as sequence-poisoned")
    void failAllPoisonedReason() {
        Topic<Msg> topic = sequenced("seq-poisoned", SequenceFailure.FAIL_ALL);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> m.n() == 0 ? Outcome.reject("first") : Outcome.ack());
        h().consume(topic, rec);
        publish(topic, "a", 0, 3);

        rec.awaitDeaths(3);
        assertThat(rec.deaths())
                .extracting(d -> d.message().label() + ":" + d.reason())
                .containsExactlyInAnyOrder("a0:rejected: first", "a1:sequence-poisoned", "a2:sequence-poisoned");
    }

    @Test
    @DisplayName("FAIL_ALL: other keys are unaffected by a poisoned key, before and after it was poisoned")
    void failAllOtherKeysUnaffected() {
        Topic<Msg> topic = sequenced("seq-fail-all-others", SequenceFailure.FAIL_ALL);
        Recorder<Msg> rec =
                h().recorder((m, meta, attempt) -> m.label().equals("a1") ? Outcome.reject() : Outcome.ack());
        h().consume(topic, rec);
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, new Msg("a", i));
            h().publisher().publish(topic, new Msg("b", i));
        }
        rec.awaitDeaths(2);
        publish(topic, "b", 3, 5);

        h().await("key b handled in full", () -> labels(rec, "b").size() == 5);
        assertThat(labels(rec, "b")).containsExactlyElementsOf(range("b", 0, 5));
        assertThat(labels(rec, "a")).containsExactly("a0", "a1");
    }

    @Test
    @DisplayName("FAIL_ALL: exhausting maxRetries poisons the key like a reject")
    void failAllAfterMaxRetries() {
        Topic<Msg> topic = sequenced("seq-fail-all-max", SequenceFailure.FAIL_ALL);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> m.n() == 1 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, config(c -> c.maxRetries(1)), rec);
        publish(topic, "a", 0, 4);

        rec.awaitDeaths(3);
        assertThat(labels(rec, "a")).containsExactly("a0", "a1", "a1");
        assertThat(rec.deaths())
                .extracting(d -> d.message().label() + ":" + d.reason())
                .containsExactlyInAnyOrder("a1:max-retries-exceeded", "a2:sequence-poisoned", "a3:sequence-poisoned");
    }

    @Test
    @DisplayName("FAIL_ALL poisoning lasts as long as the registration: a new group handles the key again")
    void failAllPoisonEndsWithGroup() {
        Topic<Msg> topic = sequenced("seq-poison-scope", SequenceFailure.FAIL_ALL);
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> Outcome.reject());
        var group = h().consume(topic, first);
        h().publisher().publish(topic, new Msg("a", 0));
        first.awaitDeaths(1);
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        h().publisher().publish(topic, new Msg("a", 1));

        assertThat(second.awaitCalls(1)).extracting(c -> c.message().label()).containsExactly("a1");
    }

    @Test
    @DisplayName("different keys are handled in parallel")
    void keysInParallel() {
        Topic<Msg> topic = sequenced("seq-parallel", SequenceFailure.SKIP);
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(2)), rec);
        h().publisher().publish(topic, new Msg("a", 0));
        h().publisher().publish(topic, new Msg("b", 0));

        h().await("a0 and b0 running at once", () -> rec.running() == 2);
        gate.open();
        rec.awaitCalls(2);
    }

    @Test
    @DisplayName("one key is never handled twice at once, even with prefetch > 1")
    void oneKeySerial() {
        Topic<Msg> topic = sequenced("seq-serial", SequenceFailure.SKIP);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            Thread.sleep(5);
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(5)), rec);
        publish(topic, "a", 0, 8);

        rec.awaitCalls(8);
        assertThat(rec.maxRunning()).isEqualTo(1);
        assertThat(labels(rec, "a")).containsExactlyElementsOf(range("a", 0, 8));
    }

    @Test
    @DisplayName("per-key order holds with several consumers in the group")
    void orderWithSeveralConsumers() {
        Topic<Msg> topic = sequenced("seq-consumers", SequenceFailure.SKIP);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, h().groupConfig(3, 3).noAutoscaler().build(), rec.factory());
        for (int i = 0; i < 10; i++) {
            for (String key : List.of("a", "b", "c", "d")) {
                h().publisher().publish(topic, new Msg(key, i));
            }
        }

        rec.awaitCalls(40);
        for (String key : List.of("a", "b", "c", "d")) {
            assertThat(labels(rec, key)).as("key " + key).containsExactlyElementsOf(range(key, 0, 10));
        }
        rec.assertNoMoreCalls(40);
    }

    @Test
    @DisplayName("the ordering key travels in the shove-sequence-key header")
    void keyInHeader() {
        Topic<Msg> topic = sequenced("seq-header", SequenceFailure.SKIP);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, new Msg("customer-42", 0));

        assertThat(rec.awaitCalls(1).getFirst().metadata().headers())
                .containsEntry(ShoveHeaders.SEQUENCE_KEY, "customer-42");
    }

    @Test
    @DisplayName("on a sequenced topic, the continuations of a retry and of the final ack each run once")
    void continuationsAcrossInPlaceRetries() {
        Topic<Msg> topic = sequenced("seq-continuation", SequenceFailure.SKIP);
        AtomicInteger retried = new AtomicInteger();
        AtomicInteger acked = new AtomicInteger();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0
                ? Outcome.retry().andThen(retried::incrementAndGet)
                : Outcome.ack().andThen(acked::incrementAndGet));
        h().consume(topic, rec);
        h().publisher().publish(topic, new Msg("a", 0));

        h().await("both continuations to run", () -> retried.get() == 1 && acked.get() == 1);
        h().assertStays("each ran once", () -> retried.get() == 1 && acked.get() == 1);
    }
}
