package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("Outcome")
class OutcomeTest {

    @Test
    @DisplayName("the plain outcomes have their kind, no delay, no reason, no continuation")
    void plainOutcomes() {
        assertThat(List.of(Outcome.ack(), Outcome.retry(), Outcome.reject(), Outcome.defer()))
                .extracting(Outcome::kind)
                .containsExactly(Outcome.Kind.ACK, Outcome.Kind.RETRY, Outcome.Kind.REJECT, Outcome.Kind.DEFER);
        for (Outcome o : List.of(Outcome.ack(), Outcome.retry(), Outcome.reject(), Outcome.defer())) {
            assertThat(o.delay()).isEmpty();
            assertThat(o.reason()).isEmpty();
            assertThat(o.continuation()).isEmpty();
        }
    }

    @Test
    @DisplayName("the plain outcomes are shared constants")
    void plainOutcomesAreConstants() {
        assertThat(Outcome.ack()).isSameAs(Outcome.ack());
        assertThat(Outcome.retry()).isSameAs(Outcome.retry());
        assertThat(Outcome.reject()).isSameAs(Outcome.reject());
        assertThat(Outcome.defer()).isSameAs(Outcome.defer());
    }

    @Test
    @DisplayName("exactly one isX() is true for each kind")
    void predicates() {
        assertThat(Outcome.ack().isAck()).isTrue();
        assertThat(Outcome.retry().isRetry()).isTrue();
        assertThat(Outcome.reject("x").isReject()).isTrue();
        assertThat(Outcome.defer(Duration.ofSeconds(1)).isDefer()).isTrue();
        Outcome ack = Outcome.ack();
        assertThat(List.of(ack.isAck(), ack.isRetry(), ack.isReject(), ack.isDefer()))
                .containsExactly(true, false, false, false);
        Outcome defer = Outcome.defer();
        assertThat(List.of(defer.isAck(), defer.isRetry(), defer.isReject(), defer.isDefer()))
                .containsExactly(false, false, false, true);
    }

    @Test
    @DisplayName("retry(d) and defer(d) carry the delay")
    void delays() {
        assertThat(Outcome.retry(Duration.ofSeconds(7)).delay()).contains(Duration.ofSeconds(7));
        assertThat(Outcome.defer(Duration.ofMillis(1)).delay()).contains(Duration.ofMillis(1));
        assertThat(Outcome.retry(Duration.ofSeconds(7)).kind()).isEqualTo(Outcome.Kind.RETRY);
        assertThat(Outcome.defer(Duration.ofSeconds(7)).kind()).isEqualTo(Outcome.Kind.DEFER);
    }

    @ParameterizedTest(name = "{0} ms")
    @ValueSource(longs = {0, -1, -60_000})
    @DisplayName("a zero or negative delay is refused, naming the delay")
    void nonPositiveDelay(long millis) {
        Duration d = Duration.ofMillis(millis);
        assertThatThrownBy(() -> Outcome.retry(d))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "a retry or defer delay must be positive and at most 7 days, was " + DurationText.of(d));
        assertThatThrownBy(() -> Outcome.defer(d)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("a null delay or reason is refused")
    void nulls() {
        assertThatThrownBy(() -> Outcome.retry(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Outcome.defer(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Outcome.reject(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Outcome.ack().andThen(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("reject(reason) carries the reason")
    void reason() {
        assertThat(Outcome.reject("unknown customer").reason()).contains("unknown customer");
    }

    @Test
    @DisplayName("equal when kind, delay and reason are equal; continuations are not compared")
    void equality() {
        assertThat(Outcome.retry(Duration.ofSeconds(3))).isEqualTo(Outcome.retry(Duration.ofSeconds(3)));
        assertThat(Outcome.retry(Duration.ofSeconds(3))).hasSameHashCodeAs(Outcome.retry(Duration.ofSeconds(3)));
        assertThat(Outcome.reject("a")).isEqualTo(Outcome.reject("a")).isNotEqualTo(Outcome.reject("b"));
        assertThat(Outcome.reject("a")).isNotEqualTo(Outcome.reject());
        assertThat(Outcome.retry(Duration.ofSeconds(3))).isNotEqualTo(Outcome.defer(Duration.ofSeconds(3)));
        assertThat(Outcome.retry(Duration.ofSeconds(3))).isNotEqualTo(Outcome.retry());
        assertThat(Outcome.ack().andThen(() -> {})).isEqualTo(Outcome.ack());
    }

    @Test
    @DisplayName("toString shows the kind, the delay and the reason")
    void text() {
        assertThat(Outcome.ack()).hasToString("ack");
        assertThat(Outcome.retry(Duration.ofSeconds(5))).hasToString("retry(PT5S)");
        assertThat(Outcome.reject("bad")).hasToString("reject(\"bad\")");
        assertThat(Outcome.defer()).hasToString("defer");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Outcome.Kind.class)
    @DisplayName("the metric tag of a kind is its lower-case name")
    void tags(Outcome.Kind kind) {
        assertThat(kind.tag()).isEqualTo(kind.name().toLowerCase(java.util.Locale.ROOT));
    }

    @Test
    @DisplayName("andThen keeps kind, delay and reason, and leaves the original without a continuation")
    void andThenKeepsTheOutcome() {
        Outcome base = Outcome.retry(Duration.ofSeconds(2));
        Outcome withContinuation = base.andThen(() -> {});

        assertThat(withContinuation.kind()).isEqualTo(Outcome.Kind.RETRY);
        assertThat(withContinuation.delay()).contains(Duration.ofSeconds(2));
        assertThat(withContinuation.continuation()).isPresent();
        assertThat(base.continuation()).isEmpty();
        assertThat(Outcome.ack().continuation()).isEmpty();
    }

    @Test
    @DisplayName("a second andThen runs both continuations, in order")
    void andThenChains() {
        List<String> ran = new ArrayList<>();
        Outcome o = Outcome.ack().andThen(() -> ran.add("first")).andThen(() -> ran.add("second"));

        o.continuation().orElseThrow().run();

        assertThat(ran).containsExactly("first", "second");
    }

    @Test
    @DisplayName("when the first continuation throws, the second still runs and the failure surfaces")
    void andThenSecondRunsAfterFailure() {
        List<String> ran = new ArrayList<>();
        Outcome o = Outcome.ack()
                .andThen(() -> {
                    throw new IllegalStateException("boom");
                })
                .andThen(() -> ran.add("second"));

        assertThatThrownBy(() -> o.continuation().orElseThrow().run()).hasMessage("boom");
        assertThat(ran).containsExactly("second");
    }

    @Test
    @DisplayName("building an outcome with a continuation does not run it")
    void continuationNotRunEagerly() {
        List<String> ran = new ArrayList<>();

        Outcome.ack().andThen(() -> ran.add("x"));

        assertThat(ran).isEmpty();
    }
}
