package dev.shove;

import java.time.Duration;
import java.util.Objects;

/**
 * One retry delay tier of a topic: messages retried at this tier wait {@code delay} in the broker object named
 * {@code queue} ({@code {topic}-hold-{delay}}, e.g. {@code orders-hold-5s}) before they return to the topic.
 *
 * @param delay how long a message waits in this tier; positive, whole milliseconds
 * @param queue the broker-side name of the tier
 * @since 0.1.0
 */
public record HoldTier(Duration delay, String queue) {
    /**
     * Checks the components; see the class description.
     *
     * @param delay how long a message waits in this tier; positive, whole milliseconds
     * @param queue the broker-side name of the tier
     */
    public HoldTier {
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(queue, "queue");
    }
}
