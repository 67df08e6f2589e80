package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("AutoscalerConfig")
class AutoscalerConfigTest {

    @Test
    @DisplayName("defaults: poll 5 s, up 2.0, down 0.5, hysteresis 10 s, cooldown 30 s, no custom strategy")
    void defaults() {
        AutoscalerConfig c = AutoscalerConfig.ofDefaults();

        assertThat(c.pollInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.scaleUpMultiplier()).isEqualTo(2.0);
        assertThat(c.scaleDownMultiplier()).isEqualTo(0.5);
        assertThat(c.hysteresis()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.cooldown()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.strategy()).isNull();
    }

    @Test
    @DisplayName("the builder sets every value")
    void builder() {
        ScalingStrategy custom = (group, metrics) -> ScalingDecision.hold();
        AutoscalerConfig c = AutoscalerConfig.builder()
                .pollInterval(Duration.ofMillis(250))
                .scaleUpMultiplier(3)
                .scaleDownMultiplier(0)
                .hysteresis(Duration.ZERO)
                .cooldown(Duration.ofSeconds(1))
                .strategy(custom)
                .build();

        assertThat(c)
                .isEqualTo(new AutoscalerConfig(
                        Duration.ofMillis(250), 3, 0, Duration.ZERO, Duration.ofSeconds(1), custom));
    }

    @Test
    @DisplayName("a zero or negative poll interval is refused")
    void pollInterval() {
        assertThatThrownBy(() ->
                        AutoscalerConfig.builder().pollInterval(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pollInterval must be positive");
        assertThatThrownBy(() -> AutoscalerConfig.builder()
                        .pollInterval(Duration.ofSeconds(-1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("negative hysteresis or cooldown is refused; zero is allowed")
    void hysteresisAndCooldown() {
        assertThatThrownBy(() -> AutoscalerConfig.builder()
                        .hysteresis(Duration.ofMillis(-1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be zero or positive and at most 1 day");
        assertThatThrownBy(() -> AutoscalerConfig.builder()
                        .cooldown(Duration.ofMillis(-1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(AutoscalerConfig.builder()
                        .hysteresis(Duration.ZERO)
                        .cooldown(Duration.ZERO)
                        .build()
                        .cooldown())
                .isZero();
    }

    @ParameterizedTest(name = "up={0} down={1}")
    @CsvSource({"1.0, 1.0", "1.0, 2.0", "2.0, -0.1", "NaN, 0.5", "2.0, NaN"})
    @DisplayName("multipliers must satisfy 0 <= down < up")
    void multipliers(double up, double down) {
        assertThatThrownBy(() -> AutoscalerConfig.builder()
                        .scaleUpMultiplier(up)
                        .scaleDownMultiplier(down)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 <= scaleDown");
    }

    @Test
    @DisplayName("null durations are refused")
    void nulls() {
        assertThatThrownBy(() -> AutoscalerConfig.builder().pollInterval(null).build())
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> AutoscalerConfig.builder().hysteresis(null).build())
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> AutoscalerConfig.builder().cooldown(null).build())
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> AutoscalerConfig.builder().strategy(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("a custom strategy is used as is")
    void customStrategy() {
        ScalingStrategy custom = (group, metrics) -> ScalingDecision.scaleUp(2);

        assertThat(AutoscalerConfig.builder().strategy(custom).build().effectiveStrategy())
                .isSameAs(custom);
    }

    @Test
    @DisplayName("the default strategy damps a wish to scale by the hysteresis")
    void defaultStrategyIsStabilized() {
        ScalingStrategy strategy = AutoscalerConfig.ofDefaults().effectiveStrategy();

        // far above 2.0 x capacity, but the 10 s hysteresis has not passed yet
        assertThat(strategy.evaluate("g", new ScalingMetrics(1_000, 0, 1, 10))).isEqualTo(ScalingDecision.hold());
    }

    @Test
    @DisplayName("without hysteresis and cooldown the default strategy is the bare threshold rule")
    void undampedStrategyActsAtOnce() {
        ScalingStrategy strategy = AutoscalerConfig.builder()
                .hysteresis(Duration.ZERO)
                .cooldown(Duration.ZERO)
                .scaleUpMultiplier(1.5)
                .scaleDownMultiplier(0.3)
                .build()
                .effectiveStrategy();

        assertThat(strategy.evaluate("g", new ScalingMetrics(16, 0, 1, 10))).isEqualTo(ScalingDecision.scaleUp(1));
        assertThat(strategy.evaluate("g", new ScalingMetrics(2, 0, 1, 10))).isEqualTo(ScalingDecision.scaleDown(1));
        assertThat(strategy.evaluate("g", new ScalingMetrics(10, 0, 1, 10))).isEqualTo(ScalingDecision.hold());
    }
}
