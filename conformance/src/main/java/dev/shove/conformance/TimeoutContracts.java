package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ConsumerOptions;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Handler deadlines: interruption, the timeout outcome, and how the timeout is resolved. */
abstract class TimeoutContracts<B> extends Contracts<B> {

    TimeoutContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    /** A handler timeout short enough for the suite, long enough that a normal handler call never hits it. */
    private Duration timeout() {
        return tier().multipliedBy(2);
    }

    @Test
    @DisplayName("a handler past its timeout is interrupted")
    void interrupted() {
        Topic<Msg> topic = plainTopic("timeout-interrupt");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                gate.pass();
            }
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.handlerTimeout(timeout())), rec);
        h().publisher().publish(topic, Msg.of(1));

        h().await("the handler to be interrupted", () -> gate.interrupted() == 1);
    }

    @Test
    @DisplayName("a timed-out handler's message is retried with retryCount + 1")
    void timeoutRetries() {
        Topic<Msg> topic = plainTopic("timeout-retry");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                gate.pass();
            }
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.handlerTimeout(timeout())), rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.retryCounts()).containsExactly(0, 1);
    }

    @Test
    @DisplayName("a timeout counts shove.messages.failed{reason=timeout} and consumed{outcome=retry}, and the"
            + " interrupted call is not counted again when it returns")
    void timeoutCounted() {
        Topic<Msg> topic = plainTopic("timeout-count");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                gate.pass();
            }
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.handlerTimeout(timeout())), rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        h().await(
                        "failed{reason=timeout} = 1 and consumed{outcome=retry} = 1",
                        () -> h().count("shove.messages.failed", "topic", topic.name(), "reason", "timeout") == 1
                                && h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "retry")
                                        == 1);
        // the first call returns once interrupted; only the second call's ack may count
        h().assertStays(
                        "consumed{outcome=ack} = 1 and consumed{outcome=retry} = 1",
                        () -> h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack") == 1
                                && h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "retry")
                                        == 1);
    }

    @Test
    @DisplayName("with timeout outcome defer, a timed-out message comes back with the same retryCount")
    void timeoutOutcomeDefer() {
        Topic<Msg> topic = plainTopic("timeout-defer");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt < 2) {
                gate.pass();
            }
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.handlerTimeout(timeout()).handlerTimeoutOutcome(Outcome.defer())), rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(3);
        rec.assertNoMoreCalls(3);
        assertThat(rec.retryCounts()).containsExactly(0, 0, 0);
        assertThat(h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "defer"))
                .isEqualTo(2);
    }

    @Test
    @DisplayName("a message that times out every time spends its retries and goes to the DLQ as max-retries-exceeded")
    void timeoutExhausts() {
        Topic<Msg> topic = plainTopic("timeout-exhaust");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.handlerTimeout(timeout()).maxRetries(1)), rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
        assertThat(death.retryCount()).isEqualTo(1);
        assertThat(rec.retryCounts()).containsExactly(0, 1);
    }

    @Test
    @DisplayName("withoutHandlerTimeout: a handler running past the group's default timeout is never interrupted")
    void withoutTimeoutNeverInterrupts() throws Exception {
        Topic<Msg> topic = plainTopic("no-timeout");
        AtomicInteger interrupted = new AtomicInteger();
        Duration run = timeout().multipliedBy(3);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            try {
                Thread.sleep(run);
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            }
            return Outcome.ack();
        });
        var group = h().group().withDefaultHandlerTimeout(timeout());
        group.register(topic, config(c -> c.noHandlerTimeout()), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        h().await(
                        "the slow handler's ack",
                        () -> h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack") == 1);
        rec.assertNoMoreCalls(1);
        assertThat(interrupted).hasValue(0);
    }

    @Test
    @DisplayName("the group's default handler timeout applies to registrations that set none")
    void groupDefaultApplies() {
        Topic<Msg> topic = plainTopic("group-default");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                gate.pass();
            }
            return Outcome.ack();
        });
        var group = h().group().withDefaultHandlerTimeout(timeout());
        group.register(topic, config(), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        h().await("the handler to be interrupted", () -> gate.interrupted() == 1);
        assertThat(rec.awaitCalls(2).get(1).retryCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("a registration's own handler timeout wins over the group's default")
    void registrationWinsOverGroupDefault() {
        Topic<Msg> topic = plainTopic("own-timeout");
        AtomicInteger interrupted = new AtomicInteger();
        Duration run = timeout().multipliedBy(3);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            try {
                Thread.sleep(run);
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            }
            return Outcome.ack();
        });
        var group = h().group().withDefaultHandlerTimeout(timeout());
        group.register(topic, config(c -> c.handlerTimeout(h().patience())), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        h().await(
                        "the slow handler's ack",
                        () -> h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack") == 1);
        assertThat(interrupted).hasValue(0);
        assertThat(rec.calls()).hasSize(1);
    }

    @Test
    @DisplayName("a supervisor's default handler timeout applies to its registrations")
    void supervisorDefaultApplies() {
        Topic<Msg> topic = plainTopic("supervisor-timeout");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                gate.pass();
            }
            return Outcome.ack();
        });
        var supervisor = h().supervisor().withDefaultHandlerTimeout(timeout());
        supervisor.register(topic, ConsumerOptions.ofDefaults(), rec);
        supervisor.start();
        h().publisher().publish(topic, Msg.of(1));

        h().await("the handler to be interrupted", () -> gate.interrupted() == 1);
        assertThat(rec.awaitCalls(2).get(1).retryCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("a handler that ignores the interrupt does not hold its consumer: other messages flow")
    void stuckHandlerDoesNotBlockConsumer() {
        Topic<Msg> topic = plainTopic("timeout-stuck");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 0 && attempt == 0) {
                gate.passIgnoringInterrupts();
            }
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(1).handlerTimeout(timeout())), rec);
        h().publisher().publish(topic, Msg.of(0));
        h().await("message 0 to be stuck", () -> gate.arrived() == 1);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        h().await(
                        "messages 1 and 2 handled while message 0 is stuck",
                        () -> rec.calls(m -> m.n() > 0).size() == 2);
        assertThat(gate.isOpen()).isFalse();
    }

    @Test
    @DisplayName("with timeout outcome reject, a timed-out message is dead-lettered at once")
    void timeoutOutcomeReject() {
        Topic<Msg> topic = plainTopic("timeout-reject");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        h().consume(
                        topic,
                        config(c -> c.handlerTimeout(timeout()).handlerTimeoutOutcome(Outcome.reject("too slow"))),
                        rec);
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitDeaths(1).getFirst().reason()).isEqualTo("rejected: too slow");
        rec.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("a timed-out handler on a sequenced topic is retried before the rest of its key")
    void sequencedTimeoutKeepsOrder() {
        Topic<Msg> topic = h().topic("timeout-seq")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 0 && attempt == 0) {
                gate.pass();
            }
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.handlerTimeout(timeout())), rec);
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, new Msg("a", i));
        }

        rec.awaitCalls(4);
        assertThat(rec.calls()).extracting(c -> c.message().label()).containsExactly("a0", "a0", "a1", "a2");
        assertThat(rec.calls().get(1).retryCount()).isEqualTo(1);
    }
}
