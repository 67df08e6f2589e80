package dev.shove;

/**
 * What a {@link ScalingStrategy} wants: add consumers, remove consumers, or hold. Scaling stops at the group's min and
 * max; removal only takes idle consumers.
 *
 * @param delta consumers to add (positive) or remove (negative); 0 holds
 * @since 0.1.0
 */
public record ScalingDecision(int delta) {
    private static final ScalingDecision HOLD = new ScalingDecision(0);

    /** {@return the decision to change nothing} */
    public static ScalingDecision hold() {
        return HOLD;
    }

    /**
     * {@return the decision to add {@code consumers} consumers (up to the registration's maximum)}
     *
     * @param consumers at least 1
     * @throws IllegalArgumentException when {@code consumers} is less than 1
     */
    public static ScalingDecision scaleUp(int consumers) {
        if (consumers < 1) {
            throw new IllegalArgumentException("scaleUp needs at least 1 consumer, was " + consumers);
        }
        return new ScalingDecision(consumers);
    }

    /**
     * {@return the decision to stop {@code consumers} idle consumers (down to the registration's minimum)}
     *
     * @param consumers at least 1
     * @throws IllegalArgumentException when {@code consumers} is less than 1
     */
    public static ScalingDecision scaleDown(int consumers) {
        if (consumers < 1) {
            throw new IllegalArgumentException("scaleDown needs at least 1 consumer, was " + consumers);
        }
        return new ScalingDecision(-consumers);
    }

    /**
     * {@return {@code up}, {@code down} or {@code hold}: the {@code direction} tag of {@code
     * shove.autoscaler.decisions}}
     */
    public String direction() {
        return delta > 0 ? "up" : delta < 0 ? "down" : "hold";
    }
}
