package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.CircuitBreakerConfig;
import dev.shove.ConsumerGroup;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Pausing a registration at run time, and the circuit breaker that pauses it while its handlers keep failing. */
abstract class PauseContracts<B> extends Contracts<B> {

    PauseContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("a paused registration hands out nothing; resume hands out what arrived meanwhile")
    void pauseThenResume() {
        Topic<Msg> topic = plainTopic("pause");
        Recorder<Msg> rec = h().acking();
        ConsumerGroup<B, NoContext> group = h().consume(topic, rec);
        group.pause(topic);
        assertThat(group.isPaused(topic)).isTrue();
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.assertNoMoreCalls(0);
        group.resume(topic);
        assertThat(group.isPaused(topic)).isFalse();
        assertThat(rec.awaitCalls(3))
                .extracting(Recorder.Call::message)
                .containsExactlyInAnyOrder(Msg.of(0), Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("pausing lets the running handler finish and settle (never redelivered); the next message waits")
    void pauseLetsRunningFinish() {
        Topic<Msg> topic = plainTopic("pause-running");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 1) {
                gate.pass();
            }
            return Outcome.ack();
        });
        ConsumerGroup<B, NoContext> group = h().consume(topic, config(c -> c.prefetch(1)), rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);
        group.pause(topic);
        h().publisher().publish(topic, Msg.of(2));
        gate.open();

        rec.assertNoMoreCalls(1);
        group.resume(topic);
        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.messages()).containsExactly(Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("a group stopped while paused returns what it held: the next group handles it")
    void stopWhilePaused() {
        Topic<Msg> topic = plainTopic("pause-stop");
        String groupName = h().name("paused-group");
        Recorder<Msg> first = h().acking();
        ConsumerGroup<B, NoContext> group = h().consume(topic, config(c -> c.groupName(groupName)), first);
        group.pause(topic);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));
        first.assertNoMoreCalls(0);
        assertThat(group.stop(Duration.ofSeconds(10)).exitCode()).isZero();

        Recorder<Msg> second = h().acking();
        h().consume(topic, config(c -> c.groupName(groupName)), second);
        assertThat(second.awaitCalls(2))
                .extracting(Recorder.Call::message)
                .containsExactlyInAnyOrder(Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("the circuit breaker pauses after N failures in a row, hands out nothing for openFor, then one"
            + " message probes; its success lets the rest flow")
    void circuitBreaker() {
        Duration openFor = tier().multipliedBy(4);
        Topic<Msg> topic = plainTopic("breaker");
        AtomicBoolean down = new AtomicBoolean(true);
        Set<Integer> acked = ConcurrentHashMap.newKeySet();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (down.get()) {
                if (meta.retryCount() == 0 && m.n() == 1) {
                    down.set(false); // the dependency is back for whatever runs after the second failure
                }
                return Outcome.retry();
            }
            acked.add(m.n());
            return Outcome.ack();
        });
        CircuitBreakerConfig breaker = CircuitBreakerConfig.builder()
                .consecutiveFailures(2)
                .openFor(openFor)
                .build();
        h().consume(topic, config(c -> c.prefetch(1).circuitBreaker(breaker)), rec);
        h().publisher().publish(topic, Msg.of(0));
        rec.awaitCalls(1);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(3);
        assertThat(millisBetween(calls.get(1).startNanos(), calls.get(2).startNanos()))
                .as("the third run waited out the open breaker")
                .isGreaterThanOrEqualTo(atLeastMillis(openFor));
        h().await("every message acknowledged after the probe", () -> acked.containsAll(Set.of(0, 1, 2)));
    }
}
