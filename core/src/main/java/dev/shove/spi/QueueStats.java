package dev.shove.spi;

/**
 * A snapshot of a queue's depth, for the autoscaler.
 *
 * @param ready messages waiting to be delivered
 * @param inFlight messages delivered and not yet settled, as far as the broker knows (0 where it cannot tell)
 */
public record QueueStats(long ready, long inFlight) {
    public QueueStats {
        if (ready < 0 || inFlight < 0) {
            throw new IllegalArgumentException(
                    "queue stats cannot be negative: ready=" + ready + " inFlight=" + inFlight);
        }
    }
}
