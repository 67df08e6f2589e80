package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ConsumerOptions;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Supervisors, drains and exit codes; continuations and when they run. */
abstract class ShutdownContracts<B> extends Contracts<B> {

    ShutdownContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    /** Runs {@code action} (a stop, a runUntil) on a virtual thread, so the test can act while it runs. */
    private static CompletableFuture<SupervisorOutcome> inBackground(Supplier<SupervisorOutcome> action) {
        CompletableFuture<SupervisorOutcome> result = new CompletableFuture<>();
        Thread.ofVirtual().name("shove-conformance-background").start(() -> {
            try {
                result.complete(action.get());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    @Test
    @DisplayName("a group stopped with nothing in flight ends clean: exit code 0")
    void cleanStop() {
        Topic<Msg> topic = plainTopic("clean-stop");
        Recorder<Msg> rec = h().acking();
        var group = h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);

        SupervisorOutcome outcome = group.stop(h().patience());
        assertThat(outcome).isEqualTo(SupervisorOutcome.CLEAN);
        assertThat(outcome.exitCode()).isZero();
    }

    @Test
    @DisplayName("a supervisor runs one consumer per topic and ends clean: exit code 0")
    void supervisorClean() {
        Topic<Msg> a = plainTopic("supervised-a");
        Topic<Msg> b = plainTopic("supervised-b");
        Recorder<Msg> rec = h().acking();
        var supervisor = h().supervisor();
        supervisor.register(a, rec);
        supervisor.register(b, ConsumerOptions.builder().prefetch(2).build(), rec);
        supervisor.start();
        h().publisher().publish(a, Msg.of(1));
        h().publisher().publish(b, Msg.of(2));

        rec.awaitCalls(2);
        assertThat(rec.messages()).containsExactlyInAnyOrder(Msg.of(1), Msg.of(2));
        assertThat(supervisor.stop(h().patience()).exitCode()).isZero();
    }

    @Test
    @DisplayName("a handler still running at the drain deadline makes the outcome timedOut, exit code 3")
    void stuckHandlerTimesOut() {
        Topic<Msg> topic = plainTopic("drain-stuck");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        var group = h().consume(topic, config(c -> c.noHandlerTimeout()), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the handler to start", () -> gate.arrived() == 1);

        SupervisorOutcome outcome = group.stop(tier());
        assertThat(outcome.timedOut()).isTrue();
        assertThat(outcome.exitCode()).isEqualTo(3);
    }

    @Test
    @DisplayName("a handler still running at the drain deadline is interrupted")
    void stuckHandlerInterrupted() {
        Topic<Msg> topic = plainTopic("drain-interrupt");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        var group = h().consume(topic, config(c -> c.noHandlerTimeout()), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the handler to start", () -> gate.arrived() == 1);
        group.stop(tier());

        h().await("the stuck handler to be interrupted", () -> gate.interrupted() == 1);
    }

    @Test
    @DisplayName("the message of a handler abandoned at the drain deadline is not acknowledged: the next group gets it")
    void stuckHandlerMessageRedelivered() {
        Topic<Msg> topic = plainTopic("drain-redeliver");
        Gate gate = h().gate();
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> {
            gate.passIgnoringInterrupts();
            return Outcome.ack();
        });
        var group = h().consume(topic, config(c -> c.noHandlerTimeout()), first);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the handler to start", () -> gate.arrived() == 1);
        assertThat(group.stop(tier()).timedOut()).isTrue();
        gate.open(); // the abandoned handler now returns ack: too late, it must be ignored

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        Recorder.Call<Msg> again = second.awaitCalls(1).getFirst();
        assertThat(again.message()).isEqualTo(Msg.of(1));
        assertThat(again.retryCount()).isZero();
        second.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("handlers in flight when the drain starts finish, and their outcomes settle: exit code 0")
    void inFlightFinishDuringDrain() {
        Topic<Msg> topic = plainTopic("drain-finish");
        Gate gate = h().gate();
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        var group = h().consume(topic, config(c -> c.prefetch(2)), first);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));
        h().await("both handlers to start", () -> gate.arrived() == 2);

        CompletableFuture<SupervisorOutcome> stopped = inBackground(() -> group.stop(h().patience()));
        h().assertStays("stop to wait for the handlers in flight", () -> !stopped.isDone());
        gate.open();
        SupervisorOutcome outcome = stopped.join();
        assertThat(outcome.exitCode()).isZero();
        assertThat(h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack"))
                .isEqualTo(2);

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        second.assertNoMoreCalls(0);
    }

    @Test
    @DisplayName("an outcome decided during the drain is carried out: a retry decided then comes back as a retry")
    void retryDuringDrain() {
        Topic<Msg> topic = plainTopic("drain-retry");
        Gate gate = h().gate();
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.retry();
        });
        var group = h().consume(topic, first);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the handler to start", () -> gate.arrived() == 1);

        CompletableFuture<SupervisorOutcome> stopped = inBackground(() -> group.stop(h().patience()));
        h().assertStays("stop to wait for the handlers in flight", () -> !stopped.isDone());
        gate.open();
        assertThat(stopped.join().exitCode()).isZero();

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        assertThat(second.awaitCalls(1).getFirst().retryCount()).isEqualTo(1);
    }

    @Test
    @DisplayName(
            "messages received but not yet started are returned at shutdown, and the next group gets them in order")
    void unstartedReturned() {
        Topic<Msg> topic = h().topic("drain-unstarted")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        Gate gate = h().gate();
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        // prefetch 1 on a sequenced topic: a0 runs, a1..a4 are received into a0's lane and wait
        var group = h().consume(topic, config(c -> c.prefetch(1).noHandlerTimeout()), first);
        for (int i = 0; i < 5; i++) {
            h().publisher().publish(topic, new Msg("a", i));
        }
        h().await("a0 to start", () -> gate.arrived() == 1);

        assertThat(group.stop(tier()).timedOut()).isTrue();
        assertThat(first.calls()).extracting(c -> c.message().label()).containsExactly("a0");

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        second.awaitCalls(5);
        assertThat(second.calls()).extracting(c -> c.message().label()).containsExactly("a0", "a1", "a2", "a3", "a4");
    }

    @Test
    @DisplayName(
            "a sequenced retry decided during the drain is returned at once: the drain does not wait out its delay")
    void sequencedRetryDuringDrain() {
        Topic<Msg> topic = h().topic("drain-seq-retry")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        Gate gate = h().gate();
        // long enough that the first group cannot run it again before its stop; short enough that the next group,
        // which waits out the rest where sequenced retries are durable, gets it within the patience
        Duration longWait = h().patience().dividedBy(2);
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.retry(longWait);
        });
        var group = h().consume(topic, first);
        h().publisher().publish(topic, new Msg("a", 0));
        h().await("a0 to start", () -> gate.arrived() == 1);

        // the drain may last longer than the patience; it must not wait for the retry's delay
        CompletableFuture<SupervisorOutcome> stopped =
                inBackground(() -> group.stop(h().patience().multipliedBy(3)));
        h().assertStays("stop to wait for the handler in flight", () -> !stopped.isDone());
        gate.open();
        h().await("the drain to end without waiting out the retry", longWait.dividedBy(2), stopped::isDone);
        assertThat(stopped.join()).isEqualTo(SupervisorOutcome.CLEAN);

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        assertThat(second.awaitCalls(1).getFirst().message().label()).isEqualTo("a0");
    }

    @Test
    @DisplayName("a sequenced message waiting out a retry at shutdown comes back first for its key in the next group")
    void sequencedOrderAcrossRestart() {
        Topic<Msg> topic = h().topic("drain-seq-restart")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        // long enough that the first group cannot run it again before its stop; short enough that the next group,
        // which waits out the rest where sequenced retries are durable, gets it within the patience
        Duration longWait = h().patience().dividedBy(2);
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> m.n() == 0 ? Outcome.retry(longWait) : Outcome.ack());
        var group = h().consume(topic, first);
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, new Msg("a", i));
        }
        first.awaitCalls(1);
        first.assertNoMoreCalls(1);
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        second.awaitCalls(3);
        assertThat(second.calls()).extracting(c -> c.message().label()).containsExactly("a0", "a1", "a2");
    }

    @Test
    @DisplayName("runUntil starts the group, returns when its CompletableFuture signal completes, and drains")
    void runUntilSignal() {
        Topic<Msg> topic = plainTopic("run-until");
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(topic, config(), () -> rec);
        CompletableFuture<Void> signal = new CompletableFuture<>();
        CompletableFuture<SupervisorOutcome> ran = inBackground(() -> group.runUntil(signal, h().patience()));
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);
        assertThat(ran).isNotDone();

        signal.complete(null);
        assertThat(ran.join()).isEqualTo(SupervisorOutcome.CLEAN);
    }

    @Test
    @DisplayName("a supervisor's runUntil returns when its signal completes, with exit code 0")
    void supervisorRunUntil() {
        Topic<Msg> topic = plainTopic("supervisor-run-until");
        Recorder<Msg> rec = h().acking();
        var supervisor = h().supervisor();
        supervisor.register(topic, rec);
        CompletableFuture<String> signal = new CompletableFuture<>();
        CompletableFuture<SupervisorOutcome> ran = inBackground(() -> supervisor.runUntil(signal, h().patience()));
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);

        signal.complete("stop");
        assertThat(ran.join().exitCode()).isZero();
    }

    @Test
    @DisplayName("stop is idempotent: stopping again returns the same outcome at once")
    void stopTwice() {
        Topic<Msg> topic = plainTopic("stop-twice");
        var group = h().consume(topic, h().acking());
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        assertThat(group.stop(h().patience())).isEqualTo(SupervisorOutcome.CLEAN);
        group.close();
    }

    @Test
    @DisplayName("a continuation runs exactly once, after its message settled")
    void continuationRunsOnce() {
        Topic<Msg> topic = plainTopic("continuation");
        AtomicInteger runs = new AtomicInteger();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.ack().andThen(runs::incrementAndGet));
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        h().await("the continuation to run", () -> runs.get() == 1);
        h().assertStays("the continuation ran once", () -> runs.get() == 1);
    }

    @Test
    @DisplayName("each outcome's continuation runs once: retry's after the retry settled, ack's after the ack")
    void continuationPerOutcome() {
        Topic<Msg> topic = plainTopic("continuation-retry");
        AtomicInteger retried = new AtomicInteger();
        AtomicInteger acked = new AtomicInteger();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0
                ? Outcome.retry().andThen(retried::incrementAndGet)
                : Outcome.ack().andThen(acked::incrementAndGet));
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        h().await("both continuations to run", () -> retried.get() == 1 && acked.get() == 1);
        h().assertStays("each ran once", () -> retried.get() == 1 && acked.get() == 1);
    }

    @Test
    @DisplayName("a continuation runs only after its settlement: a hanging continuation does not keep its message")
    void continuationAfterSettlement() {
        Topic<Msg> topic = plainTopic("continuation-hangs");
        Gate gate = h().gate();
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> Outcome.ack().andThen(() -> {
            try {
                gate.pass();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        var group = h().consume(topic, first);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the continuation to start", () -> gate.arrived() == 1);

        SupervisorOutcome outcome = group.stop(tier());
        assertThat(outcome.timedOut())
                .as("a continuation still running at the deadline")
                .isTrue();
        gate.open();
        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        second.assertNoMoreCalls(0);
    }

    @Test
    @DisplayName("stop waits for running continuations: they are drained before it returns")
    void continuationsDrained() {
        Topic<Msg> topic = plainTopic("continuation-drain");
        Gate gate = h().gate();
        AtomicBoolean finished = new AtomicBoolean();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.ack().andThen(() -> {
            try {
                gate.pass();
                finished.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        var group = h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the continuation to start", () -> gate.arrived() == 1);

        CompletableFuture<SupervisorOutcome> stopped = inBackground(() -> group.stop(h().patience()));
        h().assertStays("stop waits for the continuation", () -> !stopped.isDone());
        gate.open();
        assertThat(stopped.join().exitCode()).isZero();
        assertThat(finished).isTrue();
    }

    @Test
    @DisplayName("a continuation that throws does not redeliver its message nor stop the consumer")
    void throwingContinuation() {
        Topic<Msg> topic = plainTopic("continuation-throws");
        AtomicInteger runs = new AtomicInteger();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.ack().andThen(() -> {
            runs.incrementAndGet();
            throw new IllegalStateException("continuation fails on purpose");
        }));
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the continuation to run", () -> runs.get() == 1);
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.messages()).containsExactly(Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("the continuation of a handler abandoned at the drain deadline never runs")
    void abandonedContinuationNeverRuns() {
        Topic<Msg> topic = plainTopic("continuation-abandoned");
        Gate gate = h().gate();
        AtomicInteger runs = new AtomicInteger();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.passIgnoringInterrupts();
            return Outcome.ack().andThen(runs::incrementAndGet);
        });
        var group = h().consume(topic, config(c -> c.noHandlerTimeout()), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the handler to start", () -> gate.arrived() == 1);
        SupervisorOutcome outcome = group.stop(tier());
        gate.open();

        assertThat(outcome.timedOut()).isTrue();
        h().assertStays("the continuation never ran", () -> runs.get() == 0);
    }

    @Test
    @DisplayName("the continuation of a sequenced retry waiting in place never runs when its message is returned at"
            + " shutdown")
    void returnedContinuationNeverRuns() {
        Topic<Msg> topic = h().topic("continuation-returned")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        AtomicInteger runs = new AtomicInteger();
        // long enough that the first group cannot run it again before its stop; short enough that the next group,
        // which waits out the rest where sequenced retries are durable, gets it within the patience
        Duration longWait = h().patience().dividedBy(2);
        Recorder<Msg> first =
                h().recorder((m, meta, attempt) -> Outcome.retry(longWait).andThen(runs::incrementAndGet));
        var group = h().consume(topic, first);
        h().publisher().publish(topic, new Msg("a", 0));
        first.awaitCalls(1);
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        assertThat(second.awaitCalls(1).getFirst().message().label()).isEqualTo("a0");
        h().assertStays("the returned message's continuation never ran", () -> runs.get() == 0);
    }

    @Test
    @DisplayName("a stop called while another stop drains returns only once the drain is over, with its outcome")
    void concurrentStopWaits() {
        Topic<Msg> topic = plainTopic("stop-concurrent");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        var group = h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the handler to start", () -> gate.arrived() == 1);

        CompletableFuture<SupervisorOutcome> first = inBackground(() -> group.stop(h().patience()));
        h().assertStays("the first stop to drain", () -> !first.isDone());
        CompletableFuture<SupervisorOutcome> second = inBackground(() -> group.stop(h().patience()));
        h().assertStays("the second stop to wait for the drain", () -> !second.isDone());
        gate.open();
        assertThat(first.join()).isEqualTo(SupervisorOutcome.CLEAN);
        assertThat(second.join()).isEqualTo(SupervisorOutcome.CLEAN);
    }

    @Test
    @DisplayName("closing the broker while a group drains waits for the drain before closing the connection")
    void brokerCloseWaitsForDrain() {
        Topic<Msg> topic = plainTopic("close-during-drain");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        var group = h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the handler to start", () -> gate.arrived() == 1);
        CompletableFuture<SupervisorOutcome> stopped = inBackground(() -> group.stop(h().patience()));
        h().assertStays("the stop to drain", () -> !stopped.isDone());

        CompletableFuture<SupervisorOutcome> closed = inBackground(() -> {
            h().broker().close();
            return SupervisorOutcome.CLEAN;
        });
        h().assertStays("broker.close() to wait for the drain", () -> !closed.isDone());
        gate.open();
        closed.join();
        assertThat(stopped.join()).isEqualTo(SupervisorOutcome.CLEAN);
        assertThat(h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack"))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("close() stops a running group, and closing it again is harmless")
    void closeStopsGroup() {
        Topic<Msg> topic = plainTopic("group-close");
        Recorder<Msg> rec = h().acking();
        var group = h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);

        group.close();
        assertThat(group.activeConsumers(topic)).isZero();
        group.close();
        h().publisher().publish(topic, Msg.of(2));
        rec.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("closing the broker stops its running groups")
    void brokerCloseStopsGroups() {
        Topic<Msg> topic = plainTopic("broker-close");
        Recorder<Msg> rec = h().acking();
        var group = h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);

        h().broker().close();
        assertThat(group.activeConsumers(topic)).isZero();
        h().broker().close(); // idempotent
    }

    @Test
    @DisplayName("runUntil also stops when its signal completes exceptionally")
    void runUntilExceptionalSignal() {
        Topic<Msg> topic = plainTopic("run-until-failed");
        var group = h().group();
        group.register(topic, config(), () -> h().<Msg>acking());
        CompletableFuture<Void> signal = new CompletableFuture<>();
        CompletableFuture<SupervisorOutcome> ran = inBackground(() -> group.runUntil(signal, h().patience()));
        h().await("the group to start", () -> group.activeConsumers(topic) == 1);

        signal.completeExceptionally(new IllegalStateException("shutdown requested on purpose"));
        assertThat(ran.join().exitCode()).isZero();
    }

    @Test
    @DisplayName("a slow continuation runs off the delivery path: it does not hold up the consumer")
    void slowContinuationDoesNotBlock() {
        Topic<Msg> topic = plainTopic("continuation-slow");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) ->
                m.n() == 0 ? Outcome.ack().andThen(() -> gate.passIgnoringInterrupts()) : Outcome.ack());
        h().consume(topic, config(c -> c.prefetch(1)), rec);
        h().publisher().publish(topic, Msg.of(0));
        h().await("the continuation to start", () -> gate.arrived() == 1);
        for (int i = 1; i < 4; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitCalls(4);
        assertThat(gate.isOpen()).isFalse();
    }
}
