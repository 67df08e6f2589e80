package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.ConsumerOptions;
import dev.shove.Envelope;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Batch handlers ({@code registerBatch}): how batches form, how a {@link BatchOutcome} settles each message through
 * the usual retry arithmetic, what happens to messages that cannot be read, throws, timeouts, prefetch and
 * continuations. Batches may be split differently on each broker, so the contracts never depend on how the messages
 * were grouped, only on what each message went through.
 */
abstract class BatchContracts<B> extends Contracts<B> {

    BatchContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    /** Batches of up to {@code max} that wait one tier for company. */
    private BatchOptions batches(int max) {
        return BatchOptions.of(max, tier());
    }

    /** Declares {@code topic} and publishes {@code count} messages 0..count-1 to it before any consumer exists. */
    private List<Msg> published(Topic<Msg> topic, int count) {
        h().broker().topology().declare(topic);
        List<Msg> all = IntStream.range(0, count).mapToObj(Msg::of).toList();
        h().publisher().publishBatch(topic, all);
        return all;
    }

    private static List<Integer> retryCounts(List<Envelope<Msg>> envelopes) {
        return envelopes.stream().map(e -> e.metadata().retryCount()).toList();
    }

    @Test
    @DisplayName("a batch never holds more than maxBatchSize messages, and each message is handled exactly once")
    void neverLargerThanMax() {
        Topic<Msg> topic = plainTopic("batch-max");
        List<Msg> all = published(topic, 25);
        BatchRecorder<Msg> rec = h().ackingBatches();
        h().consumeBatch(topic, config(), batches(4), rec);

        rec.awaitMessages(25);
        rec.assertNoMoreMessages(25);
        assertThat(rec.batches()).allSatisfy(b -> assertThat(b.size()).isBetween(1, 4));
        assertThat(rec.messages()).containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    @DisplayName("messages published while the batch consumer runs are batched too, never more than maxBatchSize")
    void neverLargerThanMaxWhileRunning() {
        Topic<Msg> topic = plainTopic("batch-max-live");
        BatchRecorder<Msg> rec = h().ackingBatches();
        h().consumeBatch(topic, config(), batches(3), rec);
        for (int i = 0; i < 10; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitMessages(10);
        rec.assertNoMoreMessages(10);
        assertThat(rec.batches()).allSatisfy(b -> assertThat(b.size()).isBetween(1, 3));
    }

    @Test
    @DisplayName("a batch that does not fill is handled anyway: it does not wait for maxBatchSize messages")
    void partialBatchHandled() {
        Topic<Msg> topic = plainTopic("batch-partial");
        BatchRecorder<Msg> rec = h().ackingBatches();
        h().consumeBatch(topic, config(), batches(100), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitMessages(2);
        assertThat(rec.messages()).containsExactlyInAnyOrder(Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("where shove gathers batches itself, a partial batch closes no earlier than maxWait after its first"
            + " message")
    void partialBatchWaitsMaxWait() {
        assumeFalse(
                capabilities().nativeBatches(),
                "the backend receives in batches and hands over what arrived without waiting");
        Duration maxWait = tier().multipliedBy(3);
        Topic<Msg> topic = plainTopic("batch-max-wait");
        BatchRecorder<Msg> rec = h().ackingBatches();
        h().consumeBatch(topic, config(), BatchOptions.of(100, maxWait), rec);
        long published = System.nanoTime();
        h().publisher().publish(topic, Msg.of(1));

        BatchRecorder.Batch<Msg> batch = rec.awaitBatches(1).getFirst();
        assertThat(batch.messages()).containsExactly(Msg.of(1));
        assertThat(millisBetween(published, batch.startNanos())).isGreaterThanOrEqualTo(atLeastMillis(maxWait));
    }

    @Test
    @DisplayName("where the backend receives in batches, a lone message is handed over at once, without waiting out"
            + " maxWait")
    void nativeBatchDoesNotWaitMaxWait() {
        assumeTrue(
                capabilities().nativeBatches(),
                "shove gathers batches itself on this backend, closing a partial batch after maxWait");
        Topic<Msg> topic = plainTopic("batch-native-no-wait");
        BatchRecorder<Msg> rec = h().ackingBatches();
        // maxWait far beyond the patience: the batch arrives within the patience only if nothing waits for it
        h().consumeBatch(topic, config(), BatchOptions.of(100, h().patience().multipliedBy(3)), rec);
        h().publisher().publish(topic, Msg.of(1));

        BatchRecorder.Batch<Msg> batch = rec.awaitBatches(1).getFirst();
        assertThat(batch.messages()).containsExactly(Msg.of(1));
    }

    @Test
    @DisplayName("a stop does not wait out maxWait: a partial batch still gathering is returned at once, and the next"
            + " group gets its messages")
    void stopWhileGathering() {
        assumeFalse(
                capabilities().nativeBatches(),
                "the backend receives in batches and hands over what arrived without waiting");
        Topic<Msg> topic = plainTopic("batch-stop-gathering");
        BatchRecorder<Msg> rec = h().ackingBatches();
        // the batch would wait far longer than the patience for company
        var group = h().consumeBatch(
                        topic, config(), BatchOptions.of(10, h().patience().multipliedBy(3)), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().assertStays(
                        "the partial batch to wait for company",
                        () -> rec.batches().isEmpty());

        CompletableFuture<SupervisorOutcome> stopped = new CompletableFuture<>();
        Thread.ofVirtual()
                .name("shove-conformance-stop")
                .start(() -> stopped.complete(group.stop(h().patience().multipliedBy(3))));
        h().await("the stop to return without waiting out maxWait", stopped::isDone);
        assertThat(stopped.join()).isEqualTo(SupervisorOutcome.CLEAN);
        assertThat(rec.batches()).isEmpty();
        Recorder<Msg> next = h().acking();
        h().consume(topic, next);
        assertThat(next.awaitCalls(1).getFirst().message()).isEqualTo(Msg.of(1));
    }

    @Test
    @DisplayName("BatchOutcome.ackAll acknowledges every message of the batch: none is delivered again")
    void ackAllSettlesEvery() {
        Topic<Msg> topic = plainTopic("batch-ack-all");
        published(topic, 6);
        BatchRecorder<Msg> rec = h().ackingBatches();
        h().consumeBatch(topic, config(), batches(6), rec);

        rec.awaitMessages(6);
        rec.assertNoMoreMessages(6);
        assertThat(h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack"))
                .isEqualTo(6);
    }

    @Test
    @DisplayName("BatchOutcome.all(reject) dead-letters every message of the batch, each once")
    void allRejectSettlesEvery() {
        Topic<Msg> topic = plainTopic("batch-reject-all");
        List<Msg> all = published(topic, 5);
        BatchRecorder<Msg> rec = h().batchRecorder(b -> BatchOutcome.all(Outcome.reject("batch refused")));
        h().consumeBatch(topic, config(), batches(5), rec);

        rec.awaitDeaths(5);
        rec.assertNoMoreDeaths(5);
        assertThat(rec.deaths()).extracting(Recorder.Death::message).containsExactlyInAnyOrderElementsOf(all);
        assertThat(rec.deaths()).extracting(Recorder.Death::reason).containsOnly("rejected: batch refused");
        assertThat(rec.messages()).hasSize(5);
    }

    @Test
    @DisplayName("BatchOutcome.all(retry) retries every message of the batch with retryCount + 1")
    void allRetrySettlesEvery() {
        Topic<Msg> topic = plainTopic("batch-retry-all");
        published(topic, 4);
        BatchRecorder<Msg> rec =
                h().batchRecorder(b -> b.call() == 0 ? BatchOutcome.all(Outcome.retry()) : BatchOutcome.ackAll());
        h().consumeBatch(topic, config(), batches(4), rec);

        BatchRecorder.Batch<Msg> first = rec.awaitBatches(1).getFirst();
        rec.awaitMessages(4 + first.size());
        rec.assertNoMoreMessages(4 + first.size());
        for (Msg m : first.messages()) {
            assertThat(retryCounts(rec.envelopesOf(m)))
                    .as("retry counts of %s", m)
                    .containsExactly(0, 1);
        }
    }

    @Test
    @DisplayName("BatchOutcome.each settles message i with outcome i: ack, retry, reject and defer in one batch")
    void eachSettlesByIndex() {
        Topic<Msg> topic = plainTopic("batch-each");
        published(topic, 4);
        BatchRecorder<Msg> rec = h().batchRecorder(b -> b.each((e, attempt) -> {
            if (attempt > 0) {
                return Outcome.ack();
            }
            return switch (e.message().n()) {
                case 0 -> Outcome.ack();
                case 1 -> Outcome.retry();
                case 2 -> Outcome.reject();
                default -> Outcome.defer();
            };
        }));
        h().consumeBatch(topic, config(), batches(4), rec);

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        rec.awaitMessages(6);
        rec.assertNoMoreMessages(6);
        assertThat(retryCounts(rec.envelopesOf(Msg.of(0)))).as("ack").containsExactly(0);
        assertThat(retryCounts(rec.envelopesOf(Msg.of(1)))).as("retry").containsExactly(0, 1);
        assertThat(retryCounts(rec.envelopesOf(Msg.of(2)))).as("reject").containsExactly(0);
        assertThat(retryCounts(rec.envelopesOf(Msg.of(3)))).as("defer").containsExactly(0, 0);
        assertThat(death.message()).isEqualTo(Msg.of(2));
        assertThat(death.reason()).isEqualTo("rejected");
        rec.assertNoMoreDeaths(1);
    }

    @Test
    @DisplayName("a message a batch keeps retrying spends maxRetries like any other, then goes to the DLQ")
    void eachRetryExhausts() {
        Topic<Msg> topic = plainTopic("batch-exhaust");
        published(topic, 2);
        BatchRecorder<Msg> rec =
                h().batchRecorder(b -> b.each((e, attempt) -> e.message().n() == 0 ? Outcome.retry() : Outcome.ack()));
        h().consumeBatch(topic, config(c -> c.maxRetries(2)), batches(2), rec);

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.message()).isEqualTo(Msg.of(0));
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
        assertThat(death.retryCount()).isEqualTo(2);
        assertThat(retryCounts(rec.envelopesOf(Msg.of(0)))).containsExactly(0, 1, 2);
        assertThat(retryCounts(rec.envelopesOf(Msg.of(1)))).containsExactly(0);
    }

    @Test
    @DisplayName("a list of outcomes shorter than the batch retries the messages without one")
    void tooFewOutcomes() {
        Topic<Msg> topic = plainTopic("batch-short");
        published(topic, 4);
        BatchRecorder<Msg> rec = h().batchRecorder(b -> {
            if (b.call() > 0) {
                return BatchOutcome.ackAll();
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < b.size() - 1; i++) {
                outcomes.add(Outcome.ack());
            }
            return BatchOutcome.each(outcomes);
        });
        h().consumeBatch(topic, config(), batches(4), rec);

        BatchRecorder.Batch<Msg> first = rec.awaitBatches(1).getFirst();
        rec.awaitMessages(5);
        rec.assertNoMoreMessages(5);
        Msg unmatched = first.messages().getLast();
        assertThat(retryCounts(rec.envelopesOf(unmatched))).containsExactly(0, 1);
        assertThat(rec.deaths()).isEmpty();
    }

    @Test
    @DisplayName("a list of outcomes longer than the batch settles the batch and ignores the surplus")
    void tooManyOutcomes() {
        Topic<Msg> topic = plainTopic("batch-long");
        published(topic, 3);
        BatchRecorder<Msg> rec = h().batchRecorder(b -> {
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < b.size(); i++) {
                outcomes.add(Outcome.ack());
            }
            outcomes.add(Outcome.reject("surplus"));
            outcomes.add(Outcome.retry());
            return BatchOutcome.each(outcomes);
        });
        h().consumeBatch(topic, config(), batches(3), rec);

        rec.awaitMessages(3);
        rec.assertNoMoreMessages(3);
        assertThat(rec.deaths()).isEmpty();
        assertThat(h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack"))
                .isEqualTo(3);
    }

    @Test
    @DisplayName("a message of a batch that cannot be decoded never reaches the handler and is dead-lettered alone")
    void undecodableElementDeadLettered() {
        Topic<Msg> topic = plainTopic("batch-undecodable");
        h().broker().topology().declare(topic);
        byte[] garbage = "not json {".getBytes(StandardCharsets.UTF_8);
        h().publisher().publish(topic, Msg.of(0));
        h().publisher().publish(h().rawTwin(topic), garbage);
        h().publisher().publish(topic, Msg.of(1));
        BatchRecorder<Msg> rec = h().ackingBatches();
        h().consumeBatch(topic, config(c -> c.noDeadLetterConsumer()), batches(3), rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);

        Recorder.Death<byte[]> death = dead.awaitDeaths(1).getFirst();
        rec.awaitMessages(2);
        rec.assertNoMoreMessages(2);
        assertThat(rec.messages()).containsExactlyInAnyOrder(Msg.of(0), Msg.of(1));
        assertThat(death.message()).isEqualTo(garbage);
        assertThat(death.reason()).startsWith("decode-failed: ");
        assertThat(death.retryCount()).isZero();
    }

    @Test
    @DisplayName("a batch of which no message can be decoded never calls the handler")
    void nothingDecodesNoCall() {
        Topic<Msg> topic = plainTopic("batch-none-decode");
        h().broker().topology().declare(topic);
        h().publisher().publish(h().rawTwin(topic), "garbage 1".getBytes(StandardCharsets.UTF_8));
        h().publisher().publish(h().rawTwin(topic), "garbage 2".getBytes(StandardCharsets.UTF_8));
        BatchRecorder<Msg> rec = h().ackingBatches();
        h().consumeBatch(topic, config(c -> c.noDeadLetterConsumer()), batches(2), rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);

        dead.awaitDeaths(2);
        h().assertStays("the batch handler never ran", () -> rec.batches().isEmpty());
    }

    @Test
    @DisplayName("a batch handler that throws retries every message of the batch with retryCount + 1")
    void throwingBodyRetriesAll() {
        Topic<Msg> topic = plainTopic("batch-throws");
        published(topic, 3);
        BatchRecorder<Msg> rec = h().batchRecorder(b -> {
            if (b.call() == 0) {
                throw new IllegalStateException("batch fails on purpose");
            }
            return BatchOutcome.ackAll();
        });
        h().consumeBatch(topic, config(), batches(3), rec);

        BatchRecorder.Batch<Msg> first = rec.awaitBatches(1).getFirst();
        rec.awaitMessages(3 + first.size());
        rec.assertNoMoreMessages(3 + first.size());
        for (Msg m : first.messages()) {
            assertThat(retryCounts(rec.envelopesOf(m)))
                    .as("retry counts of %s", m)
                    .containsExactly(0, 1);
        }
        assertThat(rec.deaths()).isEmpty();
    }

    @Test
    @DisplayName("a batch handler returning null retries every message of the batch")
    void nullBatchOutcomeRetriesAll() {
        Topic<Msg> topic = plainTopic("batch-null");
        published(topic, 2);
        BatchRecorder<Msg> rec = h().batchRecorder(b -> b.call() == 0 ? null : BatchOutcome.ackAll());
        h().consumeBatch(topic, config(), batches(2), rec);

        BatchRecorder.Batch<Msg> first = rec.awaitBatches(1).getFirst();
        rec.awaitMessages(2 + first.size());
        for (Msg m : first.messages()) {
            assertThat(retryCounts(rec.envelopesOf(m)))
                    .as("retry counts of %s", m)
                    .containsExactly(0, 1);
        }
    }

    @Test
    @DisplayName("a batch handler past its deadline is interrupted and every message of the batch gets the timeout"
            + " outcome")
    void timeoutAppliesToEvery() {
        Topic<Msg> topic = plainTopic("batch-timeout");
        published(topic, 3);
        Gate gate = h().gate();
        BatchRecorder<Msg> rec = h().batchRecorder(b -> {
            if (b.call() == 0) {
                gate.pass();
            }
            return BatchOutcome.ackAll();
        });
        h().consumeBatch(topic, config(c -> c.handlerTimeout(tier().multipliedBy(2))), batches(3), rec);

        BatchRecorder.Batch<Msg> first = rec.awaitBatches(1).getFirst();
        h().await("the batch handler to be interrupted", () -> gate.interrupted() == 1);
        rec.awaitMessages(3 + first.size());
        for (Msg m : first.messages()) {
            assertThat(retryCounts(rec.envelopesOf(m)))
                    .as("retry counts of %s", m)
                    .containsExactly(0, 1);
        }
        h().await(
                        "shove.messages.failed{reason=timeout} for each message of the batch",
                        () -> h().count("shove.messages.failed", "topic", topic.name(), "reason", "timeout")
                                == first.size());
    }

    @Test
    @DisplayName("with timeout outcome reject, every message of a timed-out batch is dead-lettered")
    void timeoutOutcomeRejectsEvery() {
        Topic<Msg> topic = plainTopic("batch-timeout-reject");
        List<Msg> all = published(topic, 3);
        Gate gate = h().gate();
        BatchRecorder<Msg> rec = h().batchRecorder(b -> {
            gate.pass();
            return BatchOutcome.ackAll();
        });
        h().consumeBatch(
                        topic,
                        config(c -> c.handlerTimeout(tier()).handlerTimeoutOutcome(Outcome.reject())),
                        batches(3),
                        rec);

        rec.awaitDeaths(3);
        assertThat(rec.deaths()).extracting(Recorder.Death::message).containsExactlyInAnyOrderElementsOf(all);
        h().await(
                        "every batch handler to be interrupted",
                        () -> gate.interrupted() == rec.batches().size());
    }

    @Test
    @DisplayName("prefetch N: a batch consumer handles at most N batches at once")
    void prefetchBoundsBatches() {
        Topic<Msg> topic = plainTopic("batch-prefetch");
        published(topic, 12);
        Gate gate = h().gate();
        BatchRecorder<Msg> rec = h().batchRecorder(b -> {
            gate.pass();
            return BatchOutcome.ackAll();
        });
        h().consumeBatch(topic, config(c -> c.prefetch(2)), batches(2), rec);

        h().await("2 batches blocked at once", () -> rec.running() == 2);
        h().assertStays("no more than 2 batches at once", () -> rec.running() <= 2 && gate.arrived() == 2);
        gate.open();
        rec.awaitMessages(12);
        assertThat(rec.maxRunning()).isEqualTo(2);
    }

    @Test
    @DisplayName("registerBatch on a sequenced topic fails at registration with IllegalArgumentException naming it")
    void sequencedRefused() {
        Topic<Msg> topic = h().topic("batch-sequenced")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        BatchRecorder<Msg> rec = h().ackingBatches();
        var group = h().group();

        assertThatThrownBy(() -> group.registerBatch(topic, config(), batches(5), () -> rec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(topic.name());
    }

    @Test
    @DisplayName("handleDead of a batch handler receives each dead letter, one at a time")
    void handleDeadOfBatchHandler() {
        Topic<Msg> topic = plainTopic("batch-dead");
        published(topic, 3);
        BatchRecorder<Msg> rec = h().batchRecorder(
                        b -> b.each((e, attempt) -> e.message().n() == 1 ? Outcome.reject("one") : Outcome.ack()));
        h().consumeBatch(topic, config(), batches(3), rec);

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        rec.assertNoMoreDeaths(1);
        assertThat(death.message()).isEqualTo(Msg.of(1));
        assertThat(death.reason()).isEqualTo("rejected: one");
        assertThat(death.metadata().originalQueue()).isNotEmpty();
    }

    @Test
    @DisplayName("a supervisor runs a batch registration: its messages arrive in batches and are acknowledged")
    void supervisorBatch() {
        Topic<Msg> topic = plainTopic("batch-supervised");
        BatchRecorder<Msg> rec = h().ackingBatches();
        var supervisor = h().supervisor();
        supervisor.registerBatch(topic, ConsumerOptions.ofDefaults(), batches(5), rec);
        supervisor.start();
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitMessages(3);
        rec.assertNoMoreMessages(3);
        assertThat(supervisor.stop(h().patience()).exitCode()).isZero();
    }

    @Test
    @DisplayName("the continuation of BatchOutcome.all runs once per batch")
    void uniformContinuationOncePerBatch() {
        Topic<Msg> topic = plainTopic("batch-continuation");
        published(topic, 6);
        AtomicInteger runs = new AtomicInteger();
        BatchRecorder<Msg> rec =
                h().batchRecorder(b -> BatchOutcome.all(Outcome.ack().andThen(runs::incrementAndGet)));
        h().consumeBatch(topic, config(), batches(3), rec);

        rec.awaitMessages(6);
        h().await(
                        "one continuation per batch",
                        () -> runs.get() == rec.batches().size());
        h().assertStays(
                        "one continuation per batch",
                        () -> runs.get() == rec.batches().size());
    }

    @Test
    @DisplayName("the continuation of BatchOutcome.all runs after every message of its batch settled: a hanging"
            + " continuation keeps none of them")
    void uniformContinuationAfterEverySettled() {
        Topic<Msg> topic = plainTopic("batch-continuation-hangs");
        published(topic, 3);
        Gate gate = h().gate();
        BatchRecorder<Msg> rec = h().batchRecorder(b ->
                BatchOutcome.all(Outcome.ack().andThen(() -> {
                    try {
                        gate.pass();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                })));
        var group = h().consumeBatch(topic, config(), batches(3), rec);
        rec.awaitMessages(3);
        h().await(
                        "every batch's continuation to start",
                        () -> gate.arrived() == rec.batches().size());

        assertThat(group.stop(tier()).timedOut())
                .as("a continuation still running")
                .isTrue();
        gate.open();
        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        second.assertNoMoreCalls(0);
    }

    @Test
    @DisplayName("with BatchOutcome.each, each outcome's continuation runs once, after its own message settled")
    void perElementContinuations() {
        Topic<Msg> topic = plainTopic("batch-continuations");
        published(topic, 4);
        List<Integer> ran = new CopyOnWriteArrayList<>();
        BatchRecorder<Msg> rec = h().batchRecorder(b ->
                b.each((e, attempt) -> e.message().n() == 3
                        ? Outcome.reject()
                        : Outcome.ack().andThen(() -> ran.add(e.message().n()))));
        h().consumeBatch(topic, config(), batches(4), rec);

        rec.awaitDeaths(1);
        h().await("three continuations", () -> ran.size() == 3);
        h().assertStays("each continuation ran once", () -> ran.size() == 3);
        assertThat(ran).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    @DisplayName("the continuation of a batch abandoned at the drain deadline never runs, and its messages come back")
    void abandonedBatchContinuationNeverRuns() {
        Topic<Msg> topic = plainTopic("batch-abandoned");
        published(topic, 2);
        Gate gate = h().gate();
        AtomicInteger runs = new AtomicInteger();
        BatchRecorder<Msg> rec = h().batchRecorder(b -> {
            gate.passIgnoringInterrupts();
            return BatchOutcome.all(Outcome.ack().andThen(runs::incrementAndGet));
        });
        var group = h().consumeBatch(topic, config(c -> c.prefetch(1).noHandlerTimeout()), batches(2), rec);
        h().await("the batch handler to start", () -> gate.arrived() == 1);

        SupervisorOutcome outcome = group.stop(tier());
        gate.open();
        assertThat(outcome.timedOut()).isTrue();
        h().assertStays("the continuation never ran", () -> runs.get() == 0);
        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        second.awaitCalls(2);
        assertThat(second.calls())
                .extracting(c -> c.message().n(), Recorder.Call::retryCount)
                .containsExactlyInAnyOrder(tuple(0, 0), tuple(1, 0));
    }
}
