package dev.shove;

/** Scales by one step when the backlog crosses a multiple of capacity. Stateless. */
final class ThresholdStrategy implements ScalingStrategy {
    private final double up;
    private final double down;

    ThresholdStrategy(double up, double down) {
        if (!(down >= 0 && down < up)) {
            throw new IllegalArgumentException(
                    "threshold multipliers must satisfy 0 <= down (%s) < up (%s)".formatted(down, up));
        }
        this.up = up;
        this.down = down;
    }

    @Override
    public ScalingDecision evaluate(String group, ScalingMetrics metrics) {
        double capacity = metrics.capacity();
        if (metrics.ready() > capacity * up) {
            return ScalingDecision.scaleUp(1);
        }
        if (metrics.ready() < capacity * down) {
            return ScalingDecision.scaleDown(1);
        }
        return ScalingDecision.hold();
    }
}
