package dev.shove.spi;

/**
 * A snapshot of a topic's backlog on the broker, for the autoscaler and the backlog meters.
 *
 * @param ready messages waiting to be delivered: queue depth, or consumer lag on a log
 * @param inFlight messages delivered and not yet settled, as far as the broker knows (0 where it cannot tell)
 * @param held retry copies waiting out their delay in the topic's hold tiers; -1 where the backend cannot tell
 * @since 0.1.0
 */
public record QueueStats(long ready, long inFlight, long held) {
    /**
     * Checks the components; see the class description.
     *
     * @param ready messages waiting to be delivered: queue depth, or consumer lag on a log
     * @param inFlight messages delivered and not yet settled, as far as the broker knows (0 where it cannot tell)
     * @param held retry copies waiting out their delay in the topic's hold tiers; -1 where the backend cannot tell
     */
    public QueueStats {
        if (ready < 0 || inFlight < 0 || held < -1) {
            throw new IllegalArgumentException(
                    "queue stats cannot be negative: ready=" + ready + " inFlight=" + inFlight + " held=" + held);
        }
    }

    /**
     * Stats of a backend that cannot count what waits in its hold tiers: {@code held} is -1.
     *
     * @param ready messages waiting to be delivered
     * @param inFlight messages delivered and not yet settled
     */
    public QueueStats(long ready, long inFlight) {
        this(ready, inFlight, -1);
    }
}
