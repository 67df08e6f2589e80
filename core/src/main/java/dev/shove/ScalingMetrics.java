package dev.shove;

/**
 * What the autoscaler knows about one registration when it asks its {@link ScalingStrategy}.
 *
 * @param ready messages waiting in the queue
 * @param inFlight messages delivered and not yet settled
 * @param activeConsumers consumers running now
 * @param prefetch messages each consumer handles at once
 */
public record ScalingMetrics(long ready, long inFlight, int activeConsumers, int prefetch) {
    /** How many messages the running consumers handle at once: consumers × prefetch. */
    public long capacity() {
        return (long) activeConsumers * prefetch;
    }
}
