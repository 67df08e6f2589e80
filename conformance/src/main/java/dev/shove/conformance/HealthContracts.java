package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ConsumerGroup;
import dev.shove.GroupHealth;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.RegistrationHealth;
import dev.shove.Topic;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** group.health(): what a liveness or readiness probe and an operator read. */
abstract class HealthContracts<B> extends Contracts<B> {

    HealthContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private static RegistrationHealth only(GroupHealth health) {
        assertThat(health.registrations()).hasSize(1);
        return health.registrations().getFirst();
    }

    @Test
    @DisplayName("before start a registration is NOT_STARTED and the group alive but not ready; running, it is"
            + " RUNNING, ready, with its consumers and the time of its last receive; stopped, STOPPED")
    void lifecycle() {
        Topic<Msg> topic = plainTopic("health");
        Recorder<Msg> rec = h().acking();
        ConsumerGroup<B, NoContext> group = h().group();
        group.register(topic, config(c -> c.consumers(2)), () -> rec);

        GroupHealth before = group.health();
        assertThat(only(before).status()).isEqualTo(RegistrationHealth.Status.NOT_STARTED);
        assertThat(before.isLive()).isTrue();
        assertThat(before.isReady()).isFalse();

        Instant started = Instant.now().minusMillis(1);
        group.start();
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);
        GroupHealth running = group.health();
        RegistrationHealth registration = only(running);
        assertThat(running.isReady()).isTrue();
        assertThat(running.isLive()).isTrue();
        assertThat(running.connection().connected()).isTrue();
        assertThat(registration.topic()).isEqualTo(topic.name());
        assertThat(registration.status()).isEqualTo(RegistrationHealth.Status.RUNNING);
        assertThat(registration.consumers()).isEqualTo(2);
        assertThat(registration.minConsumers()).isEqualTo(2);
        assertThat(registration.failedConsumers()).isZero();
        assertThat(registration.lastReceived())
                .hasValueSatisfying(t -> assertThat(t).isAfter(started));
        assertThat(registration.stalledHandlers()).isEmpty();

        group.stop(Duration.ofSeconds(5));
        GroupHealth stopped = group.health();
        assertThat(only(stopped).status()).isEqualTo(RegistrationHealth.Status.STOPPED);
        assertThat(stopped.isReady()).isFalse();
        assertThat(stopped.isLive()).isTrue();
    }

    @Test
    @DisplayName("a paused registration reports PAUSED and stays ready")
    void paused() {
        Topic<Msg> topic = plainTopic("health-paused");
        ConsumerGroup<B, NoContext> group = h().consume(topic, h().<Msg>acking());
        group.pause(topic);

        GroupHealth health = group.health();
        assertThat(only(health).status()).isEqualTo(RegistrationHealth.Status.PAUSED);
        assertThat(health.isReady()).isTrue();
    }

    @Test
    @DisplayName("a handler still running past its timeout (it ignores the interrupt) is reported as stalled")
    void stalledHandler() {
        Topic<Msg> topic = plainTopic("health-stalled");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                gate.passIgnoringInterrupts();
            }
            return Outcome.ack();
        });
        Duration timeout = tier().multipliedBy(2);
        ConsumerGroup<B, NoContext> group = h().consume(topic, config(c -> c.handlerTimeout(timeout)), rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);
        String messageId = rec.calls().getFirst().messageId();

        h().await(
                        "the stalled handler in health()",
                        () -> only(group.health()).stalledHandlers().stream()
                                .anyMatch(s -> s.messageId().equals(messageId)
                                        && s.runningFor().compareTo(timeout) > 0));
        gate.open();
        h().await(
                        "no stalled handler once it returns",
                        () -> only(group.health()).stalledHandlers().isEmpty());
    }
}
