package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ScalingDecision and ScalingMetrics")
class ScalingDecisionTest {

    @Test
    @DisplayName("scaleUp, scaleDown and hold carry a signed delta and a direction tag")
    void decisions() {
        assertThat(ScalingDecision.scaleUp(2).delta()).isEqualTo(2);
        assertThat(ScalingDecision.scaleDown(3).delta()).isEqualTo(-3);
        assertThat(ScalingDecision.hold().delta()).isZero();
        assertThat(ScalingDecision.scaleUp(1).direction()).isEqualTo("up");
        assertThat(ScalingDecision.scaleDown(1).direction()).isEqualTo("down");
        assertThat(ScalingDecision.hold().direction()).isEqualTo("hold");
    }

    @Test
    @DisplayName("scaling by fewer than one consumer is refused")
    void atLeastOne() {
        assertThatThrownBy(() -> ScalingDecision.scaleUp(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scaleUp needs at least 1 consumer, was 0");
        assertThatThrownBy(() -> ScalingDecision.scaleDown(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scaleDown needs at least 1 consumer, was -1");
    }

    @Test
    @DisplayName("capacity is consumers x prefetch, without int overflow")
    void capacity() {
        assertThat(new ScalingMetrics(0, 0, 3, 10).capacity()).isEqualTo(30);
        assertThat(new ScalingMetrics(0, 0, 0, 10).capacity()).isZero();
        assertThat(new ScalingMetrics(0, 0, 1 << 20, 1 << 20).capacity()).isEqualTo(1L << 40);
    }
}
