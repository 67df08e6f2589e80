package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The shared context given to a group or supervisor, and the rules for setting it. */
abstract class ContextContracts<B> extends Contracts<B> {

    /** A context value of the tests' own type. */
    record AppState(String name) {}

    ContextContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("withContext: handle receives the group's context")
    void contextReachesHandle() {
        Topic<Msg> topic = plainTopic("context");
        AppState state = new AppState("app");
        Recorder<Msg> rec = h().acking();
        var group = h().track(h().group().withContext(state));
        group.register(topic, config(), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitCalls(1).getFirst().context()).isSameAs(state);
    }

    @Test
    @DisplayName("withContext: handleDead receives the group's context")
    void contextReachesHandleDead() {
        Topic<Msg> topic = plainTopic("context-dead");
        AppState state = new AppState("app");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        var group = h().track(h().group().withContext(state));
        group.register(topic, config(), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitDeaths(1).getFirst().context()).isSameAs(state);
    }

    @Test
    @DisplayName("a group without a context passes NoContext.INSTANCE")
    void noContext() {
        Topic<Msg> topic = plainTopic("no-context");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitCalls(1).getFirst().context()).isSameAs(NoContext.INSTANCE);
    }

    @Test
    @DisplayName("withContext after a registration fails with IllegalStateException")
    void withContextAfterRegister() {
        Topic<Msg> topic = plainTopic("context-late");
        var group = h().group();
        group.register(topic, config(), () -> h().<Msg>acking());

        assertThatThrownBy(() -> group.withContext(new AppState("late"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("a supervisor's context reaches its handlers")
    void supervisorContext() {
        Topic<Msg> topic = plainTopic("supervisor-context");
        AppState state = new AppState("supervised");
        Recorder<Msg> rec = h().acking();
        var supervisor = h().track(h().supervisor().withContext(state));
        supervisor.register(topic, rec);
        supervisor.start();
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitCalls(1).getFirst().context()).isSameAs(state);
    }

    @Test
    @DisplayName("settings made before withContext carry over: the group's default handler timeout still applies")
    void withContextKeepsSettings() {
        Topic<Msg> topic = plainTopic("context-keeps");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                gate.pass();
            }
            return Outcome.ack();
        });
        var group = h().track(h().group()
                .withDefaultHandlerTimeout(tier().multipliedBy(2))
                .withContext(new AppState("app")));
        group.register(topic, config(), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        h().await("the handler to be interrupted by the group's default timeout", () -> gate.interrupted() == 1);
    }
}
