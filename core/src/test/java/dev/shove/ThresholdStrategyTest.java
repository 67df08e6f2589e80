package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("ThresholdStrategy")
class ThresholdStrategyTest {
    private static final ScalingStrategy DEFAULTS = ScalingStrategy.threshold(2.0, 0.5);

    /** Capacity = consumers x prefetch; prefetch is 10 throughout. */
    private static ScalingMetrics metrics(long ready, int consumers) {
        return new ScalingMetrics(ready, 0, consumers, 10);
    }

    @ParameterizedTest(name = "capacity {1}0, ready {0} -> {2}")
    @CsvSource({
        "50, 2, up", // 50 > 2.0 x 20
        "5, 2, down", // 5 < 0.5 x 20
        "15, 2, hold",
        "20, 1, hold", // exactly 2.0 x 10: strict >
        "21, 1, up",
        "10, 2, hold", // exactly 0.5 x 20: strict <
        "9, 2, down"
    })
    @DisplayName("with up 2.0 and down 0.5: up above 2 x capacity, down below 0.5 x capacity, strict comparisons")
    void defaults(long ready, int consumers, String direction) {
        assertThat(DEFAULTS.evaluate("g", metrics(ready, consumers)).direction())
                .isEqualTo(direction);
    }

    @Test
    @DisplayName("steps by exactly one consumer")
    void stepsByOne() {
        assertThat(DEFAULTS.evaluate("g", metrics(1_000_000, 1))).isEqualTo(ScalingDecision.scaleUp(1));
        assertThat(DEFAULTS.evaluate("g", metrics(0, 50))).isEqualTo(ScalingDecision.scaleDown(1));
    }

    @Test
    @DisplayName("custom multipliers up 1.5, down 0.3: capacity 10, ready 16 scales up")
    void customMultipliers() {
        ScalingStrategy s = ScalingStrategy.threshold(1.5, 0.3);

        assertThat(s.evaluate("g", metrics(16, 1))).isEqualTo(ScalingDecision.scaleUp(1));
        assertThat(s.evaluate("g", metrics(15, 1))).isEqualTo(ScalingDecision.hold());
        assertThat(s.evaluate("g", metrics(2, 1))).isEqualTo(ScalingDecision.scaleDown(1));
        assertThat(s.evaluate("g", metrics(3, 1))).isEqualTo(ScalingDecision.hold());
    }

    @Test
    @DisplayName("with no consumers, any ready message scales up and an empty queue holds")
    void zeroConsumers() {
        assertThat(DEFAULTS.evaluate("g", metrics(1, 0))).isEqualTo(ScalingDecision.scaleUp(1));
        assertThat(DEFAULTS.evaluate("g", metrics(0, 0))).isEqualTo(ScalingDecision.hold());
    }

    @Test
    @DisplayName("in-flight messages do not count as backlog")
    void inFlightIgnored() {
        assertThat(DEFAULTS.evaluate("g", new ScalingMetrics(15, 1_000, 2, 10))).isEqualTo(ScalingDecision.hold());
    }

    @Test
    @DisplayName("is stateless: the same metrics give the same decision, whatever the group")
    void stateless() {
        for (int i = 0; i < 3; i++) {
            assertThat(DEFAULTS.evaluate("a", metrics(50, 2))).isEqualTo(ScalingDecision.scaleUp(1));
            assertThat(DEFAULTS.evaluate("b", metrics(50, 2))).isEqualTo(ScalingDecision.scaleUp(1));
        }
    }

    @ParameterizedTest(name = "up={0} down={1}")
    @CsvSource({"1.0, 1.0", "0.5, 1.0", "2.0, -1", "NaN, 0.5"})
    @DisplayName("refuses multipliers that break 0 <= down < up")
    void invalid(double up, double down) {
        assertThatThrownBy(() -> ScalingStrategy.threshold(up, down))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 <= down");
    }
}
