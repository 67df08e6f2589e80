package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.AutoscalerConfig;
import dev.shove.BackendGroupSettings;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Consumer groups: min..max consumers, manual and automatic scaling, registration rules, shared load. */
abstract class GroupContracts<B> extends Contracts<B> {

    GroupContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private ConsumerGroupConfig manual(int min, int max) {
        return h().groupConfig(min, max).noAutoscaler().build();
    }

    /** An autoscaler that reacts at once: poll every 50 ms, no hysteresis, no cooldown. */
    private static AutoscalerConfig fastAutoscaler() {
        return AutoscalerConfig.builder()
                .pollInterval(Duration.ofMillis(50))
                .hysteresis(Duration.ZERO)
                .cooldown(Duration.ZERO)
                .build();
    }

    @Test
    @DisplayName("start runs the minimum number of consumers, each with its own handler from the factory")
    void startsMinimum() {
        Topic<Msg> topic = plainTopic("group-min");
        AtomicInteger handlers = new AtomicInteger();
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(topic, manual(2, 4), () -> {
            handlers.incrementAndGet();
            return rec;
        });
        assertThat(group.activeConsumers(topic)).isZero();
        group.start();

        assertThat(group.activeConsumers(topic)).isEqualTo(2);
        // one handler per main consumer, plus one for the dead-letter consumer
        assertThat(handlers).hasValue(3);
    }

    @Test
    @DisplayName("register(topic, factory) runs one consumer with every default")
    void registerWithDefaults() {
        Topic<Msg> topic = plainTopic("group-defaults");
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(topic, () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        assertThat(group.activeConsumers(topic)).isEqualTo(1);
        assertThat(rec.awaitCalls(1).getFirst().message()).isEqualTo(Msg.of(1));
    }

    @Test
    @DisplayName("backend settings of another backend are refused at registration, naming both backends")
    void foreignBackendSettingsRefused() {
        Topic<Msg> topic = plainTopic("group-foreign-settings");
        BackendGroupSettings foreign = () -> "no-such-backend";
        var group = h().group();

        assertThatThrownBy(() -> group.register(
                        topic,
                        ConsumerGroupConfig.builder().backendSettings(foreign).build(),
                        () -> h().<Msg>acking()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no-such-backend")
                .hasMessageContaining("this broker is " + h().broker().backendName());
    }

    @Test
    @DisplayName("nothing is consumed before the group starts")
    void nothingBeforeStart() {
        Topic<Msg> topic = plainTopic("group-not-started");
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(topic, config(), () -> rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.assertNoMoreCalls(0);
        group.start();
        rec.awaitCalls(1);
    }

    @Test
    @DisplayName("scaleUp adds consumers up to max, then returns false")
    void scaleUpToMax() {
        Topic<Msg> topic = plainTopic("scale-up");
        var group = h().group();
        group.register(topic, manual(1, 3), () -> h().<Msg>acking());
        group.start();

        assertThat(group.scaleUp(topic)).isTrue();
        assertThat(group.activeConsumers(topic)).isEqualTo(2);
        assertThat(group.scaleUp(topic)).isTrue();
        assertThat(group.activeConsumers(topic)).isEqualTo(3);
        assertThat(group.scaleUp(topic)).isFalse();
        assertThat(group.activeConsumers(topic)).isEqualTo(3);
    }

    @Test
    @DisplayName("scaleDown removes idle consumers down to min, then returns false")
    void scaleDownToMin() {
        Topic<Msg> topic = plainTopic("scale-down");
        var group = h().group();
        group.register(topic, manual(1, 3), () -> h().<Msg>acking());
        group.start();
        group.scaleUp(topic);
        group.scaleUp(topic);

        assertThat(group.scaleDown(topic)).isTrue();
        assertThat(group.activeConsumers(topic)).isEqualTo(2);
        assertThat(group.scaleDown(topic)).isTrue();
        assertThat(group.activeConsumers(topic)).isEqualTo(1);
        assertThat(group.scaleDown(topic)).isFalse();
        assertThat(group.activeConsumers(topic)).isEqualTo(1);
    }

    @Test
    @DisplayName("scaleDown takes only idle consumers: with every consumer busy it returns false")
    void scaleDownOnlyIdle() {
        Topic<Msg> topic = plainTopic("scale-busy");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        var group = h().group();
        group.register(topic, h().groupConfig(0, 1).prefetch(1).noAutoscaler().build(), () -> rec);
        group.start();
        assertThat(group.scaleUp(topic)).isTrue();
        h().publisher().publish(topic, Msg.of(1));
        h().await("the only consumer to be busy", () -> rec.running() == 1);

        assertThat(group.scaleDown(topic)).isFalse();
        assertThat(group.activeConsumers(topic)).isEqualTo(1);
        gate.open();
        h().await("the consumer to become idle and be scaled down", () -> group.scaleDown(topic));
        assertThat(group.activeConsumers(topic)).isZero();
    }

    @Test
    @DisplayName("min 0: no consumer runs until scaleUp, then waiting messages flow")
    void minZero() {
        Topic<Msg> topic = plainTopic("min-zero");
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(topic, manual(0, 1), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        assertThat(group.activeConsumers(topic)).isZero();
        rec.assertNoMoreCalls(0);
        assertThat(group.scaleUp(topic)).isTrue();
        rec.awaitCalls(1);
    }

    @Test
    @DisplayName("the autoscaler adds consumers while a backlog waits")
    void autoscalerScalesUp() {
        Topic<Msg> topic = plainTopic("autoscale-up");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        var group = h().group();
        group.register(
                topic,
                h().groupConfig(1, 3).prefetch(1).autoscaler(fastAutoscaler()).build(),
                () -> rec);
        group.start();
        for (int i = 0; i < 20; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        h().await("the autoscaler to add consumers", () -> group.activeConsumers(topic) > 1);
        gate.open();
        rec.awaitCalls(20);
    }

    @Test
    @DisplayName("the autoscaler removes consumers again once the group is idle")
    void autoscalerScalesDown() {
        Topic<Msg> topic = plainTopic("autoscale-down");
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(
                topic,
                h().groupConfig(1, 3).prefetch(1).autoscaler(fastAutoscaler()).build(),
                () -> rec);
        group.start();
        group.scaleUp(topic);
        group.scaleUp(topic);
        h().publisher().publish(topic, Msg.of(1));

        h().await("the autoscaler to return to the minimum", () -> group.activeConsumers(topic) == 1);
        rec.awaitCalls(1);
    }

    @Test
    @DisplayName("registering a topic twice on one group fails with IllegalStateException")
    void registerTwice() {
        Topic<Msg> topic = plainTopic("register-twice");
        var group = h().group();
        group.register(topic, config(), () -> h().<Msg>acking());

        assertThatThrownBy(() -> group.register(topic, config(), () -> h().<Msg>acking()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(topic.name());
    }

    @Test
    @DisplayName("registering declares the topic: it can be published to without a separate declare")
    void registerDeclares() {
        Topic<Msg> topic = plainTopic("register-declares");
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(topic, config(), () -> rec);
        h().publisher().publish(topic, Msg.of(1));
        group.start();

        rec.awaitCalls(1);
    }

    @Test
    @DisplayName("registering on a running group starts its consumers at once")
    void registerWhileRunning() {
        Topic<Msg> first = plainTopic("running-a");
        Topic<Msg> second = plainTopic("running-b");
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(first, config(), () -> rec);
        group.start();
        group.register(second, manual(2, 2), () -> rec);

        assertThat(group.activeConsumers(second)).isEqualTo(2);
        h().publisher().publish(second, Msg.of(1));
        rec.awaitCalls(1);
    }

    @Test
    @DisplayName("competing consumers of one group share the load, each message handled exactly once")
    void competingConsumersShare() {
        assumeTrue(capabilities().competingConsumers(), "the backend does not share a queue between consumers");
        Topic<Msg> topic = plainTopic("competing");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            Thread.sleep(10);
            return Outcome.ack();
        });
        var group = h().group();
        group.register(topic, h().groupConfig(3, 3).prefetch(1).build(), rec.factory());
        group.start();
        for (int i = 0; i < 30; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitCalls(30);
        rec.assertNoMoreCalls(30);
        assertThat(rec.messages()).doesNotHaveDuplicates();
        assertThat(rec.calls().stream().map(Recorder.Call::consumer).distinct().count())
                .as("consumers that handled messages")
                .isGreaterThan(1);
    }

    @Test
    @DisplayName("a stopped group cannot be started again")
    void stoppedGroupCannotRestart() {
        Topic<Msg> topic = plainTopic("restart");
        var group = h().group();
        group.register(topic, config(), () -> h().<Msg>acking());
        group.start();
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        assertThatThrownBy(group::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("registering on a stopped group fails with IllegalStateException")
    void registerAfterStop() {
        var group = h().group();
        group.register(plainTopic("stopped-a"), config(), () -> h().<Msg>acking());
        group.start();
        group.stop(h().patience());

        assertThatThrownBy(() -> group.register(plainTopic("stopped-b"), config(), () -> h().<Msg>acking()))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("a handler factory that returns null fails the start with a message naming the topic")
    void nullHandlerFactory() {
        Topic<Msg> topic = plainTopic("null-factory");
        var group = h().group();
        group.register(topic, config(), () -> null);

        assertThatThrownBy(group::start).hasMessageContaining(topic.name());
    }

    @Test
    @DisplayName("a supervisor refuses to register the same topic twice")
    void supervisorRegisterTwice() {
        Topic<Msg> topic = plainTopic("supervisor-twice");
        var supervisor = h().supervisor();
        supervisor.register(topic, h().<Msg>acking());

        assertThatThrownBy(() -> supervisor.register(topic, h().<Msg>acking()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(topic.name());
    }
}
