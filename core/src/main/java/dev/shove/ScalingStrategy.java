package dev.shove;

import java.time.Duration;

/**
 * Decides, from a registration's {@link ScalingMetrics}, whether to add or remove consumers. Called by the autoscaler
 * once per poll per registration, from one thread at a time; a strategy may keep state per {@code group}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ScalingStrategy {

    /**
     * Decides for one registration at one poll.
     *
     * @param group the registration being scaled (the consumer group's name)
     * @param metrics its current depth and capacity
     * @return how many consumers to add or remove; {@link ScalingDecision#hold()} for none
     */
    ScalingDecision evaluate(String group, ScalingMetrics metrics);

    /**
     * Scale up by one when {@code ready > capacity × up}, down by one when {@code ready < capacity × down}, else hold
     * (strict comparisons; with no consumers, any ready message scales up).
     *
     * @param up the scale-up multiplier, above {@code down}
     * @param down the scale-down multiplier, zero or more
     * @return a stateless strategy
     */
    static ScalingStrategy threshold(double up, double down) {
        return new ThresholdStrategy(up, down);
    }

    /**
     * Acts on {@code inner}'s wish only once it has persisted for {@code hysteresis}, and never within {@code
     * cooldown} of the previous action. State is kept per group.
     *
     * @param inner the strategy whose wishes are stabilized
     * @param hysteresis how long a wish must persist, zero or more
     * @param cooldown the quiet time after each action, zero or more
     * @return a strategy that keeps state per group
     */
    static ScalingStrategy stabilized(ScalingStrategy inner, Duration hysteresis, Duration cooldown) {
        return new StabilizedStrategy(inner, hysteresis, cooldown, System::nanoTime);
    }
}
