package dev.shove;

/**
 * What the autoscaler knows about one registration when it asks its {@link ScalingStrategy}.
 *
 * @param ready messages waiting in the queue
 * @param inFlight messages delivered and not yet settled
 * @param activeConsumers consumers running now
 * @param prefetch messages each consumer handles at once
 * @since 0.1.0
 */
public record ScalingMetrics(long ready, long inFlight, int activeConsumers, int prefetch) {
    /** {@return how many messages the running consumers handle at once: consumers × prefetch} */
    public long capacity() {
        return (long) activeConsumers * prefetch;
    }
}
