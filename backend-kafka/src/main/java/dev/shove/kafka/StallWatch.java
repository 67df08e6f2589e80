package dev.shove.kafka;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one consumer's partitions for a commit point that does not move while records wait behind it: warns once
 * per stall and publishes the count as the gauge {@code shove.kafka.partitions.stalled}. {@link #check} runs on the
 * poll thread; the gauge is read by any thread.
 */
final class StallWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StallWatch.class);

    private static final long STALL_CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String queue;
    private final String consumerId;
    private final String groupId;
    private final Duration threshold;
    private final MeterRegistry registry;
    private final Gauge stalledGauge;
    private volatile int stalled;

    // Poll thread only.
    private long lastStallCheckNanos = System.nanoTime();

    StallWatch(String queue, String consumerId, String groupId, Duration threshold, MeterRegistry registry) {
        this.queue = queue;
        this.consumerId = consumerId;
        this.groupId = groupId;
        this.threshold = threshold;
        this.registry = registry;
        this.stalledGauge = Gauge.builder("shove.kafka.partitions.stalled", this, s -> s.stalled)
                .description("partitions of this consumer whose commit point has not moved for stallThreshold while"
                        + " records were pending")
                .tag("topic", queue)
                .tag("consumer", consumerId)
                .register(registry);
    }

    /** Counts the stalled partitions among {@code owned}, at most every few seconds. */
    void check(Collection<PartitionState> owned) {
        long now = System.nanoTime();
        if (now - lastStallCheckNanos < STALL_CHECK_NANOS) {
            return;
        }
        lastStallCheckNanos = now;
        long threshold = this.threshold.toNanos();
        int count = 0;
        for (PartitionState state : owned) {
            long age = state.stalledNanos(now);
            if (age >= threshold) {
                count++;
                if (state.reportStall()) {
                    log.warn(
                            "partition {} of topic '{}' (consumer {}, group '{}') has not committed past offset {} for"
                                    + " {} s; {} record(s) wait behind it (a handler still running, or a key"
                                    + " waiting out a retry)",
                            state.partition.partition(),
                            queue,
                            consumerId,
                            groupId,
                            state.firstPending(),
                            TimeUnit.NANOSECONDS.toSeconds(age),
                            state.pending());
                }
            }
        }
        stalled = count;
    }

    /** Removes the gauge. */
    @Override
    public void close() {
        registry.remove(stalledGauge);
    }
}
