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
 * @param pollInterval how often the queue depth is read (each wait rounded up to a 100 ms grid, at most a quarter of
 *     the interval, so that autoscalers started together wake together)
 * @param scaleUpMultiplier scale up when {@code ready > capacity × this}
 * @param scaleDownMultiplier scale down when {@code ready < capacity × this}; below the up multiplier
 * @param hysteresis how long a wish to scale must persist before it is acted on
 * @param cooldown the quiet time after each scaling action
 * @param strategy the decision rule; null means threshold(up, down) stabilized(hysteresis, cooldown)
 * @since 0.1.0
 */
public record AutoscalerConfig(
        Duration pollInterval,
        double scaleUpMultiplier,
        double scaleDownMultiplier,
        Duration hysteresis,
        Duration cooldown,
        @Nullable ScalingStrategy strategy) {

    /** The default {@code pollInterval}: 5 s. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(5);

    /** The default {@code scaleUpMultiplier}: scale up when ready messages exceed twice the capacity. */
    public static final double DEFAULT_SCALE_UP_MULTIPLIER = 2.0;

    /** The default {@code scaleDownMultiplier}: scale down when ready messages are below half the capacity. */
    public static final double DEFAULT_SCALE_DOWN_MULTIPLIER = 0.5;

    /** The default {@code hysteresis}: 10 s. */
    public static final Duration DEFAULT_HYSTERESIS = Duration.ofSeconds(10);

    /** The default {@code cooldown}: 30 s. */
    public static final Duration DEFAULT_COOLDOWN = Duration.ofSeconds(30);

    /**
     * Checks every setting.
     *
     * @param pollInterval positive
     * @param scaleUpMultiplier above {@code scaleDownMultiplier}
     * @param scaleDownMultiplier zero or more, below {@code scaleUpMultiplier}
     * @param hysteresis zero or more
     * @param cooldown zero or more
     * @param strategy the decision rule, or null for the default
     * @throws IllegalArgumentException naming the setting that is out of range
     */
    public AutoscalerConfig {
        Bounds.positive("autoscaler pollInterval", pollInterval);
        Bounds.nonNegative("autoscaler hysteresis", hysteresis);
        Bounds.nonNegative("autoscaler cooldown", cooldown);
        if (!(scaleDownMultiplier >= 0 && scaleDownMultiplier < scaleUpMultiplier)) {
            throw new IllegalArgumentException("autoscaler multipliers must satisfy 0 <= scaleDown (%s) < scaleUp (%s)"
                    .formatted(scaleDownMultiplier, scaleUpMultiplier));
        }
    }

    /** {@return the defaults listed in the class description} */
    public static AutoscalerConfig ofDefaults() {
        return builder().build();
    }

    /** {@return a new builder starting from the defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the strategy the autoscaler uses: the configured one, or the stabilized threshold strategy} */
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

        /**
         * How often the queue depth is read.
         *
         * @param pollInterval positive; default 5 s
         * @return this builder
         */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        /**
         * Scale up when ready messages exceed {@code capacity × multiplier}.
         *
         * @param multiplier above the scale-down multiplier; default {@value #DEFAULT_SCALE_UP_MULTIPLIER}
         * @return this builder
         */
        public Builder scaleUpMultiplier(double multiplier) {
            this.scaleUpMultiplier = multiplier;
            return this;
        }

        /**
         * Scale down when ready messages are below {@code capacity × multiplier}.
         *
         * @param multiplier zero or more, below the scale-up multiplier; default {@value
         *     #DEFAULT_SCALE_DOWN_MULTIPLIER}
         * @return this builder
         */
        public Builder scaleDownMultiplier(double multiplier) {
            this.scaleDownMultiplier = multiplier;
            return this;
        }

        /**
         * How long a wish to scale must persist before it is acted on.
         *
         * @param hysteresis zero or more; default 10 s
         * @return this builder
         */
        public Builder hysteresis(Duration hysteresis) {
            this.hysteresis = hysteresis;
            return this;
        }

        /**
         * The quiet time after each scaling action.
         *
         * @param cooldown zero or more; default 30 s
         * @return this builder
         */
        public Builder cooldown(Duration cooldown) {
            this.cooldown = cooldown;
            return this;
        }

        /**
         * Replaces the decision rule; the multipliers, hysteresis and cooldown are then unused.
         *
         * @param strategy the rule the autoscaler asks at each poll
         * @return this builder
         */
        public Builder strategy(ScalingStrategy strategy) {
            this.strategy = Objects.requireNonNull(strategy, "strategy");
            return this;
        }

        /**
         * {@return the settings}
         *
         * @throws IllegalArgumentException naming the setting that is out of range
         */
        public AutoscalerConfig build() {
            return new AutoscalerConfig(
                    pollInterval, scaleUpMultiplier, scaleDownMultiplier, hysteresis, cooldown, strategy);
        }
    }
}
