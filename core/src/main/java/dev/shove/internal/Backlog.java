package dev.shove.internal;

import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Transport;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One registration's backlog as the broker reports it ({@link Transport#stats}), read at most once per interval and
 * shared by the autoscaler and the backlog gauges, so both see the same numbers. A gauge read (a scrape) never waits
 * on the broker: it returns the last figures and, when they are older than the interval, starts one refresh in the
 * background. Nothing is read while nobody asks (but for one read as a registration starts, when a meter registry was
 * given, so the gauges have figures for the first scrape), so idle registrations without meters or autoscaler cost
 * nothing.
 * Thread-safe.
 */
final class Backlog {
    private static final Logger log = LoggerFactory.getLogger(Backlog.class);

    /** How old figures may be before a gauge read refreshes them. */
    static final Duration REFRESH_AFTER = Duration.ofSeconds(5);

    private final Topic<?> topic;
    private final String group;
    private final Transport transport;
    private final Consumer<QueueStats> onRead;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile @Nullable QueueStats latest;
    private volatile long readAtNanos;

    /**
     * The backlog of one registration.
     *
     * @param onRead told the figures of every successful read, on the reading thread
     */
    Backlog(Topic<?> topic, String group, Transport transport, Consumer<QueueStats> onRead) {
        this.topic = topic;
        this.group = group;
        this.transport = transport;
        this.onRead = onRead;
    }

    /** The figures, read from the broker now unless the last read is younger than {@code maxAge}. */
    QueueStats read(Duration maxAge) {
        QueueStats stats = latest;
        if (stats != null && System.nanoTime() - readAtNanos < maxAge.toNanos()) {
            return stats;
        }
        stats = transport.stats(topic, group);
        latest = stats;
        readAtNanos = System.nanoTime();
        onRead.accept(stats);
        return stats;
    }

    /**
     * The last figures without waiting, or null before the first read succeeded; starts one refresh in the background
     * when there are none yet, or they are older than {@link #REFRESH_AFTER}.
     */
    @Nullable
    QueueStats cached() {
        QueueStats stats = latest;
        if ((stats == null || System.nanoTime() - readAtNanos >= REFRESH_AFTER.toNanos())
                && refreshing.compareAndSet(false, true)) {
            Thread.ofVirtual().name("shove-backlog-" + topic.name()).start(() -> {
                try {
                    read(Duration.ZERO);
                } catch (RuntimeException e) {
                    log.debug("reading the backlog of topic '{}' failed: {}", topic.name(), e.toString());
                } finally {
                    refreshing.set(false);
                }
            });
        }
        return stats;
    }

    /** What the backlog gauges of one registration show; one view at a time per topic and group. */
    interface View {
        /** Broker figures, or null before the first read; asks for fresh ones in the background when due. */
        @Nullable
        QueueStats stats();

        /** Retries waiting in place in this process. */
        long waiting();

        /** How long the oldest retry waiting in place has waited, in ms; 0 when none waits. */
        long oldestWaitMillis();
    }
}
