package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Outcome;
import dev.shove.Topic;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How many handlers one consumer runs at once ({@code prefetch}), and exact routing under concurrency. */
abstract class ConcurrencyContracts<B> extends Contracts<B> {

    ConcurrencyContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("prefetch 1: a consumer never runs two handlers at once")
    void prefetchOne() {
        Topic<Msg> topic = plainTopic("prefetch-one");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            Thread.sleep(5);
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(1)), rec);
        for (int i = 0; i < 8; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitCalls(8);
        assertThat(rec.maxRunning()).isEqualTo(1);
    }

    @Test
    @DisplayName("prefetch N: a consumer runs N handlers at once")
    void prefetchNConcurrent() {
        Topic<Msg> topic = plainTopic("prefetch-n");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(3)), rec);
        for (int i = 0; i < 6; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        h().await("3 handlers blocked at once", () -> rec.running() == 3);
        gate.open();
        rec.awaitCalls(6);
    }

    @Test
    @DisplayName("prefetch N: a consumer never runs more than N handlers at once")
    void prefetchNBound() {
        Topic<Msg> topic = plainTopic("prefetch-bound");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(3)), rec);
        for (int i = 0; i < 8; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }
        h().await("3 handlers blocked at once", () -> rec.running() == 3);

        h().assertStays("no more than 3 handlers at once", () -> rec.running() <= 3 && gate.arrived() == 3);
        gate.open();
        rec.awaitCalls(8);
        assertThat(rec.maxRunning()).isEqualTo(3);
    }

    @Test
    @DisplayName("mixed outcomes under concurrency route exactly: 7 acks and 3 dead letters out of 10")
    void mixedOutcomes() {
        Topic<Msg> topic = plainTopic("mixed");
        Recorder<Msg> rec =
                h().recorder((m, meta, attempt) -> m.n() % 3 == 0 && m.n() > 0 ? Outcome.reject() : Outcome.ack());
        h().consume(topic, config(c -> c.prefetch(5)), rec);
        for (int i = 0; i < 10; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitDeaths(3);
        rec.assertNoMoreCalls(10);
        rec.assertNoMoreDeaths(3);
        assertThat(rec.deaths()).extracting(d -> d.message().n()).containsExactlyInAnyOrder(3, 6, 9);
        assertThat(h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack"))
                .isEqualTo(7);
        assertThat(h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "reject"))
                .isEqualTo(3);
    }

    @Test
    @DisplayName("a blocked handler does not hold up the consumer's other messages")
    void blockedHandlerDoesNotHoldOthers() {
        Topic<Msg> topic = plainTopic("blocked-one");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 0) {
                gate.pass();
            }
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(2)), rec);
        h().publisher().publish(topic, Msg.of(0));
        h().await("message 0 blocked", () -> gate.arrived() == 1);
        for (int i = 1; i < 6; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        h().await("messages 1..5 handled", () -> rec.calls(m -> m.n() > 0).size() == 5);
        assertThat(rec.running()).isEqualTo(1);
        gate.open();
    }

    @Test
    @DisplayName("every message of a burst is handled exactly once")
    void burstExactlyOnce() {
        Topic<Msg> topic = plainTopic("burst");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.prefetch(8)), rec);
        List<Msg> all = IntStream.range(0, 200).mapToObj(Msg::of).toList();
        h().publisher().publishBatch(topic, all);

        rec.awaitCalls(200);
        rec.assertNoMoreCalls(200);
        assertThat(rec.messages()).containsExactlyInAnyOrderElementsOf(all);
    }
}
