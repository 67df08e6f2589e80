package dev.shove.spi;

import dev.shove.Topic;
import java.time.Duration;
import java.util.Optional;

/**
 * How long a broker must keep the messages of a topic that holds retries, so that none expires before it is due: the
 * one rule a backend with a retention limit (a stream's max age, a queue's retention period) checks when it declares
 * the topic, and refuses to declare it otherwise, naming its own setting.
 *
 * @since 0.1.0
 */
public final class HoldRetention {
    private HoldRetention() {}

    /**
     * {@return the delay of the topic's longest hold tier, zero when it has none} Tiers run from shortest to longest.
     *
     * @param topic the topic
     */
    public static Duration longestTier(Topic<?> topic) {
        return topic.holdTiers().isEmpty()
                ? Duration.ZERO
                : topic.holdTiers().getLast().delay();
    }

    /**
     * {@return the shortest retention that keeps every retry of the topic until it is due: twice its longest hold
     * tier, so that a copy outlives its delay by as long again for a consumer that comes late; empty for a topic that
     * holds nothing (a broadcast topic, or one without tiers)}
     *
     * @param topic the topic
     */
    public static Optional<Duration> minimum(Topic<?> topic) {
        if (topic.isBroadcast() || topic.holdTiers().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(longestTier(topic).multipliedBy(2));
    }
}
