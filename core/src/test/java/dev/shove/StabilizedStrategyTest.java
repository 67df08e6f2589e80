package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The damping rules of {@link StabilizedStrategy}, driven by a fake clock and a scripted inner strategy. Each test
 * names the rule; the clock starts at an arbitrary origin (as {@link System#nanoTime()} does).
 */
@DisplayName("StabilizedStrategy")
class StabilizedStrategyTest {
    private static final ScalingMetrics ANY = new ScalingMetrics(0, 0, 1, 10);
    private static final ScalingDecision UP = ScalingDecision.scaleUp(1);
    private static final ScalingDecision DOWN = ScalingDecision.scaleDown(1);
    private static final ScalingDecision HOLD = ScalingDecision.hold();

    private long now;
    private final Deque<ScalingDecision> script = new ArrayDeque<>();
    private final ScalingStrategy scripted = (group, metrics) -> script.isEmpty() ? HOLD : script.poll();

    @BeforeEach
    void origin() {
        now = 1_000_000_000L;
    }

    private StabilizedStrategy stabilized(Duration hysteresis, Duration cooldown) {
        return new StabilizedStrategy(scripted, hysteresis, cooldown, () -> now);
    }

    /** Advances the fake clock, then evaluates with the inner strategy wishing {@code wish}. */
    private ScalingDecision after(StabilizedStrategy s, Duration elapsed, ScalingDecision wish) {
        return after(s, "g", elapsed, wish);
    }

    private ScalingDecision after(StabilizedStrategy s, String group, Duration elapsed, ScalingDecision wish) {
        now += elapsed.toNanos();
        script.add(wish);
        return s.evaluate(group, ANY);
    }

    @Test
    @DisplayName("a first wish to scale holds and starts the hysteresis timer")
    void firstWishHolds() {
        StabilizedStrategy s = stabilized(Duration.ofSeconds(60), Duration.ZERO);

        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(59), UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(1), UP)).isEqualTo(UP);
    }

    @Test
    @DisplayName("with zero hysteresis the wish is acted on at once")
    void zeroHysteresis() {
        StabilizedStrategy s = stabilized(Duration.ZERO, Duration.ZERO);

        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(UP);
        assertThat(after(s, Duration.ZERO, DOWN)).isEqualTo(DOWN);
    }

    @Test
    @DisplayName("passes the inner decision through unchanged (e.g. scaleUp(2))")
    void passesInnerDecision() {
        StabilizedStrategy s = stabilized(Duration.ZERO, Duration.ZERO);

        assertThat(after(s, Duration.ZERO, ScalingDecision.scaleUp(2))).isEqualTo(ScalingDecision.scaleUp(2));
    }

    @Test
    @DisplayName("a scale-down wish is damped the same way")
    void downIsDamped() {
        StabilizedStrategy s = stabilized(Duration.ofSeconds(10), Duration.ZERO);

        assertThat(after(s, Duration.ZERO, DOWN)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(9), DOWN)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(1), DOWN)).isEqualTo(DOWN);
    }

    @Test
    @DisplayName("after acting, the cooldown holds every wish, then lets the next one through")
    void cooldown() {
        StabilizedStrategy s = stabilized(Duration.ZERO, Duration.ofSeconds(60));

        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(UP);
        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(59), UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(1), UP)).isEqualTo(UP);
    }

    @Test
    @DisplayName("the cooldown also holds a wish in the other direction")
    void cooldownBothDirections() {
        StabilizedStrategy s = stabilized(Duration.ZERO, Duration.ofSeconds(30));

        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(UP);
        assertThat(after(s, Duration.ofSeconds(10), DOWN)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(20), DOWN)).isEqualTo(DOWN);
    }

    @Test
    @DisplayName("after acting, the hysteresis starts over once the cooldown has passed")
    void hysteresisRestartsAfterAction() {
        StabilizedStrategy s = stabilized(Duration.ofSeconds(10), Duration.ofSeconds(5));

        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(10), UP)).isEqualTo(UP);
        assertThat(after(s, Duration.ofSeconds(5), UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(9), UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(1), UP)).isEqualTo(UP);
    }

    @Test
    @DisplayName("a hold resets the timer: up, hold, up waits the full hysteresis again")
    void holdResetsTimer() {
        StabilizedStrategy s = stabilized(Duration.ofSeconds(10), Duration.ZERO);

        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(6), HOLD)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(6), UP))
                .as("12 s after the first wish, but a hold came between")
                .isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(9), UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(1), UP)).isEqualTo(UP);
    }

    @Test
    @DisplayName("a change of direction clears the other timer: down then up waits the full hysteresis for up")
    void directionChangeResetsTimer() {
        StabilizedStrategy s = stabilized(Duration.ofSeconds(10), Duration.ZERO);

        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(8), DOWN)).isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(8), UP))
                .as("16 s after the first up, but a down came between")
                .isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(2), DOWN))
                .as("the down timer was cleared by the up")
                .isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(10), DOWN)).isEqualTo(DOWN);
    }

    @Test
    @DisplayName("state is per group: one group's cooldown does not hold another group")
    void perGroupCooldown() {
        StabilizedStrategy s = stabilized(Duration.ZERO, Duration.ofSeconds(60));

        assertThat(after(s, "a", Duration.ZERO, UP)).isEqualTo(UP);
        assertThat(after(s, "a", Duration.ofSeconds(1), UP)).isEqualTo(HOLD);
        assertThat(after(s, "b", Duration.ZERO, UP)).isEqualTo(UP);
    }

    @Test
    @DisplayName("state is per group: one group's hysteresis timer does not count for another")
    void perGroupHysteresis() {
        StabilizedStrategy s = stabilized(Duration.ofSeconds(10), Duration.ZERO);

        assertThat(after(s, "a", Duration.ZERO, UP)).isEqualTo(HOLD);
        assertThat(after(s, "b", Duration.ofSeconds(10), UP)).isEqualTo(HOLD);
        assertThat(after(s, "a", Duration.ZERO, UP)).isEqualTo(UP);
        assertThat(after(s, "b", Duration.ofSeconds(10), UP)).isEqualTo(UP);
    }

    @Test
    @DisplayName("during the cooldown the inner strategy is not asked")
    void innerNotAskedDuringCooldown() {
        StabilizedStrategy s = stabilized(Duration.ZERO, Duration.ofSeconds(60));
        assertThat(after(s, Duration.ZERO, UP)).isEqualTo(UP);

        script.add(DOWN);
        assertThat(s.evaluate("g", ANY)).isEqualTo(HOLD);

        assertThat(script).containsExactly(DOWN);
    }

    @ParameterizedTest(name = "clock origin {0}")
    @ValueSource(
            longs = {0L, -1L, -5_000_000_000_000L, Long.MIN_VALUE + 1_000_000_000_000L, Long.MAX_VALUE - 30_000_000_000L
            })
    @DisplayName("works at any clock origin: System.nanoTime() may be zero, negative or near overflow")
    void anyClockOrigin(long origin) {
        now = origin;
        StabilizedStrategy s = stabilized(Duration.ofSeconds(10), Duration.ofSeconds(30));

        assertThat(after(s, Duration.ZERO, UP)).as("first wish").isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(5), UP)).as("within hysteresis").isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(5), UP)).as("hysteresis passed").isEqualTo(UP);
        assertThat(after(s, Duration.ZERO, DOWN)).as("cooldown").isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(29), DOWN))
                .as("still cooling down")
                .isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(1), DOWN))
                .as("cooldown over, first down wish")
                .isEqualTo(HOLD);
        assertThat(after(s, Duration.ofSeconds(10), DOWN))
                .as("down hysteresis passed")
                .isEqualTo(DOWN);
    }
}
