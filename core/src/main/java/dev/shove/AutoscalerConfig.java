package dev.shove;

import dev.shove.spi.Bounds;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the built-in autoscaler. It polls each scaling registration every {@code pollInterval} and asks its
 * {@link ScalingStrategy}; the default strategy is {@link ScalingStrategy#threshold threshold} with these multipliers,
 * {@link ScalingStrategy#stabilized stabilized} by the hysteresis and cooldown.
 *
 * <p>Defaults: poll every 5 s; scale up when ready messages exceed 2.0 × capacity (consumers × prefetch), down below
 * 0.5 × capacity; a decision must hold for 10 s (hysteresis) and 30 s must pass between two scalings (cooldown).
 *
 * @param pollInterval how often the queue depth is read
 * @param scaleUpMultiplier scale up when {@code ready > capacity × this}
 * @param scaleDownMultiplier scale down when {@code ready < capacity × this}; below the up multiplier
 * @param hysteresis how long a wish to scale must persist before it is acted on
 * @param cooldown the quiet time after each scaling action
 * @param strategy the decision rule; null means threshold(up, down) stabilized(hysteresis, cooldown)
 */
public record AutoscalerConfig(
        Duration pollInterval,
        double scaleUpMultiplier,
        double scaleDownMultiplier,
        Duration hysteresis,
        Duration cooldown,
        @Nullable ScalingStrategy strategy) {

    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(5);
    public static final double DEFAULT_SCALE_UP_MULTIPLIER = 2.0;
    public static final double DEFAULT_SCALE_DOWN_MULTIPLIER = 0.5;
    public static final Duration DEFAULT_HYSTERESIS = Duration.ofSeconds(10);
    public static final Duration DEFAULT_COOLDOWN = Duration.ofSeconds(30);

    public AutoscalerConfig {
        Bounds.positive("autoscaler pollInterval", pollInterval);
        Bounds.nonNegative("autoscaler hysteresis", hysteresis);
        Bounds.nonNegative("autoscaler cooldown", cooldown);
        if (!(scaleDownMultiplier >= 0 && scaleDownMultiplier < scaleUpMultiplier)) {
            throw new IllegalArgumentException("autoscaler multipliers must satisfy 0 <= scaleDown (%s) < scaleUp (%s)"
                    .formatted(scaleDownMultiplier, scaleUpMultiplier));
        }
    }

    public static AutoscalerConfig ofDefaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The strategy the autoscaler uses: the configured one, or the stabilized threshold strategy. */
    public ScalingStrategy effectiveStrategy() {
        return strategy != null
                ? strategy
                : ScalingStrategy.stabilized(
                        ScalingStrategy.threshold(scaleUpMultiplier, scaleDownMultiplier), hysteresis, cooldown);
    }

    /** Builds an {@link AutoscalerConfig}; unset values keep their defaults. */
    public static final class Builder {
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private double scaleUpMultiplier = DEFAULT_SCALE_UP_MULTIPLIER;
        private double scaleDownMultiplier = DEFAULT_SCALE_DOWN_MULTIPLIER;
        private Duration hysteresis = DEFAULT_HYSTERESIS;
        private Duration cooldown = DEFAULT_COOLDOWN;
        private @Nullable ScalingStrategy strategy;

        private Builder() {}

        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        public Builder scaleUpMultiplier(double multiplier) {
            this.scaleUpMultiplier = multiplier;
            return this;
        }

        public Builder scaleDownMultiplier(double multiplier) {
            this.scaleDownMultiplier = multiplier;
            return this;
        }

        public Builder hysteresis(Duration hysteresis) {
            this.hysteresis = hysteresis;
            return this;
        }

        public Builder cooldown(Duration cooldown) {
            this.cooldown = cooldown;
            return this;
        }

        /** Replaces the decision rule; the multipliers, hysteresis and cooldown are then unused. */
        public Builder strategy(ScalingStrategy strategy) {
            this.strategy = Objects.requireNonNull(strategy, "strategy");
            return this;
        }

        public AutoscalerConfig build() {
            return new AutoscalerConfig(
                    pollInterval, scaleUpMultiplier, scaleDownMultiplier, hysteresis, cooldown, strategy);
        }
    }
}
