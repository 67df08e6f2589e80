package dev.shove;

import java.time.Duration;
import java.util.Objects;

/**
 * One retry delay tier of a topic: messages retried at this tier wait {@code delay} in the broker object named
 * {@code queue} ({@code {topic}-hold-{delay}}, e.g. {@code orders-hold-5s}) before they return to the topic.
 *
 * @param delay how long a message waits in this tier; positive, whole milliseconds
 * @param queue the broker-side name of the tier
 */
public record HoldTier(Duration delay, String queue) {
    public HoldTier {
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(queue, "queue");
    }
}
