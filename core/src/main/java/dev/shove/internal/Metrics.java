package dev.shove.internal;

import static dev.shove.ShoveMeters.AUTOSCALER_DECISIONS;
import static dev.shove.ShoveMeters.BACKEND_ERRORS;
import static dev.shove.ShoveMeters.BACKLOG_HELD;
import static dev.shove.ShoveMeters.BACKLOG_OLDEST_WAIT;
import static dev.shove.ShoveMeters.BACKLOG_READY;
import static dev.shove.ShoveMeters.BACKLOG_UNACKED;
import static dev.shove.ShoveMeters.BACKLOG_WAITING;
import static dev.shove.ShoveMeters.CONSUMED;
import static dev.shove.ShoveMeters.DEAD_LETTERED;
import static dev.shove.ShoveMeters.DISCARDED;
import static dev.shove.ShoveMeters.FAILED;
import static dev.shove.ShoveMeters.INFLIGHT;
import static dev.shove.ShoveMeters.PROCESSING_DURATION;
import static dev.shove.ShoveMeters.PUBLISHED;
import static dev.shove.ShoveMeters.PUBLISH_DURATION;
import static dev.shove.ShoveMeters.SIZE;

import dev.shove.Outcome;
import dev.shove.spi.QueueStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * shove's meters, with the names dashboards expect (Prometheus renders {@code shove.messages.consumed} as {@code
 * shove_messages_consumed_total}). Meters are resolved once per topic and group, so the delivery path only
 * increments.
 */
final class Metrics {

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, PublishMeters> publish = new ConcurrentHashMap<>();

    /**
     * One in-flight gauge per (topic, group), shared by every registration with that id: a registry returns the gauge
     * registered first for an id, bound to the first {@link Inflight}, so a group started again on the same topic (or
     * a second group of the same name) must count into that same one.
     */
    private final ConcurrentHashMap<List<String>, Inflight> inflight = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<List<String>, AtomicInteger> states = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<List<String>, BacklogGauges> backlogs = new ConcurrentHashMap<>();

    Metrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public MeterRegistry registry() {
        return registry;
    }

    public PublishMeters publish(String topic) {
        return publish.computeIfAbsent(topic, t -> new PublishMeters(registry, t));
    }

    public ConsumerMeters consumer(String topic, String group) {
        Inflight running = inflight.computeIfAbsent(List.of(topic, group), id -> {
            Inflight counts = new Inflight();
            Gauge.builder(INFLIGHT, counts, Inflight::sum)
                    .description("Handlers running now")
                    .tag("topic", topic)
                    .tag("consumer_group", group)
                    .strongReference(true)
                    .register(registry);
            return counts;
        });
        return new ConsumerMeters(registry, topic, group, running);
    }

    /**
     * The handlers running now in one (topic, group): the sum of its consumers' own counts of handlers in progress,
     * which each consumer keeps anyway (its drain and its watchdog read it), so that a message costs no second count.
     * A stopped consumer's count leaves once it is back at zero: a handler abandoned at the drain deadline still runs,
     * and is still counted, until it returns.
     */
    static final class Inflight {
        /** Each consumer's count, and whether that consumer has stopped. */
        private final ConcurrentHashMap<AtomicInteger, Boolean> counts = new ConcurrentHashMap<>();

        AtomicInteger newCount() {
            counts.entrySet().removeIf(Inflight::spent);
            AtomicInteger count = new AtomicInteger();
            counts.put(count, false);
            return count;
        }

        void stopped(AtomicInteger count) {
            counts.replace(count, true);
        }

        double sum() {
            counts.entrySet().removeIf(Inflight::spent);
            long sum = 0;
            for (AtomicInteger count : counts.keySet()) {
                sum += count.get();
            }
            return sum;
        }

        private static boolean spent(Map.Entry<AtomicInteger, Boolean> e) {
            return e.getValue() && e.getKey().get() == 0;
        }
    }

    /**
     * The number behind a state gauge of one registration ({@code topic}, {@code group}): shared by every registration
     * with that id, like the in-flight gauge, since a registry keeps the gauge registered first.
     */
    AtomicInteger state(String name, String description, String topic, String group) {
        return states.computeIfAbsent(List.of(name, topic, group), id -> {
            AtomicInteger value = new AtomicInteger();
            Gauge.builder(name, value, AtomicInteger::get)
                    .description(description)
                    .tag("topic", topic)
                    .tag("consumer_group", group)
                    .strongReference(true)
                    .register(registry);
            return value;
        });
    }

    /**
     * The backlog gauges of one registration ({@code topic}, {@code group}): registered once per id, and pointed at
     * the newest registration with that id (a group started again, a second group of the same name), since a registry
     * keeps the gauges registered first.
     */
    BacklogGauges backlog(String topic, String group) {
        return backlogs.computeIfAbsent(List.of(topic, group), id -> new BacklogGauges(topic, group));
    }

    /**
     * The backlog gauges of one registration id. The two that count in this process ({@code waiting}, {@code
     * oldest.wait}) exist from the start. The broker's figures ({@code ready}, {@code unacked}, {@code held}) are
     * registered only once a read has brought them, and {@code held} only once the backend counted its hold tiers (it
     * answers -1 where it cannot): a gauge never shows NaN for a figure not known yet, or never known at all. Once
     * registered, they show the newest figures read, which outlive a stopped registration until the next one reads.
     * Reading any of them asks the registration for fresh figures (never waiting on the broker: see {@link
     * Backlog#cached}), so a scrape of the first two is what brings the others. Thread-safe.
     */
    final class BacklogGauges {
        private final String topic;
        private final String group;
        private final AtomicReference<Backlog.@Nullable View> view = new AtomicReference<>();
        private volatile @Nullable QueueStats known;
        private volatile boolean countsRegistered; // written under this
        private volatile boolean heldRegistered; // written under this

        private BacklogGauges(String topic, String group) {
            this.topic = topic;
            this.group = group;
            gauge(BACKLOG_WAITING, "Retries waiting in place in this process (sequenced topics)", g -> {
                Backlog.View v = g.refresh();
                return v == null ? 0 : v.waiting();
            });
            gauge(BACKLOG_OLDEST_WAIT, "Seconds the oldest retry waiting in place has waited", g -> {
                Backlog.View v = g.refresh();
                return v == null ? 0 : v.oldestWaitMillis() / 1000.0;
            });
        }

        /** Points the gauges at {@code registration}, the newest with this id. */
        void attach(Backlog.View registration) {
            view.set(registration);
        }

        /** Leaves the gauges to the next registration with this id, if {@code registration} is still theirs. */
        void detach(Backlog.View registration) {
            view.compareAndSet(registration, null);
        }

        /** The registration's newest figures from the broker; registers the gauges they make known. */
        void figures(Backlog.View registration, QueueStats stats) {
            if (view.get() != registration) {
                return; // a registration replaced or stopped: its figures are not the current one's
            }
            known = stats;
            if (countsRegistered && (heldRegistered || stats.held() < 0)) {
                return;
            }
            synchronized (this) {
                if (!countsRegistered) {
                    countsRegistered = true;
                    gauge(
                            BACKLOG_READY,
                            "Messages waiting on the broker (queue depth or lag)",
                            g -> g.figures().ready());
                    gauge(
                            BACKLOG_UNACKED,
                            "Messages delivered and not yet settled, as the broker knows",
                            g -> g.figures().inFlight());
                }
                if (!heldRegistered && stats.held() >= 0) {
                    heldRegistered = true;
                    gauge(
                            BACKLOG_HELD,
                            "Retry copies waiting out their delay in hold tiers",
                            g -> Math.max(0, g.figures().held()));
                }
            }
        }

        /** Asks the current registration for fresh figures (in the background); returns it, or null when none. */
        private Backlog.@Nullable View refresh() {
            Backlog.View v = view.get();
            if (v != null) {
                v.stats();
            }
            return v;
        }

        /** The newest figures, asking for fresher ones; only called by gauges registered once figures were known. */
        private QueueStats figures() {
            refresh();
            QueueStats stats = known;
            return stats == null ? new QueueStats(0, 0, 0) : stats;
        }

        private void gauge(String name, String description, ToDoubleFunction<BacklogGauges> value) {
            Gauge.builder(name, this, value)
                    .description(description)
                    .tag("topic", topic)
                    .tag("consumer_group", group)
                    .strongReference(true)
                    .register(registry);
        }
    }

    public Counter autoscalerDecision(String group, String direction) {
        return Counter.builder(AUTOSCALER_DECISIONS)
                .description("Autoscaler decisions per poll")
                .tag("consumer_group", group)
                .tag("direction", direction)
                .register(registry);
    }

    /** Counts an error reported by a backend, e.g. a failed settlement. */
    public static void backendError(MeterRegistry registry, String backend, String kind) {
        Counter.builder(BACKEND_ERRORS)
                .description("Errors reported by the broker backend")
                .tag("backend", backend)
                .tag("kind", kind)
                .register(registry)
                .increment();
    }

    /** The meters of one topic's publishing. */
    public static final class PublishMeters {
        public final Counter success;
        public final Counter error;
        public final Timer successDuration;
        public final Timer errorDuration;

        PublishMeters(MeterRegistry registry, String topic) {
            success = publishedCounter(registry, topic, "success");
            error = publishedCounter(registry, topic, "error");
            successDuration = publishTimer(registry, topic, "success");
            errorDuration = publishTimer(registry, topic, "error");
        }

        private static Counter publishedCounter(MeterRegistry registry, String topic, String outcome) {
            return Counter.builder(PUBLISHED)
                    .description("Messages published, by whether the broker accepted them")
                    .tag("topic", topic)
                    .tag("outcome", outcome)
                    .register(registry);
        }

        private static Timer publishTimer(MeterRegistry registry, String topic, String outcome) {
            return Timer.builder(PUBLISH_DURATION)
                    .description("Time to publish one message or batch, until the broker accepted it")
                    .tag("topic", topic)
                    .tag("outcome", outcome)
                    .register(registry);
        }
    }

    /** The meters of one registration (topic × consumer group). */
    public static final class ConsumerMeters {
        private final MeterRegistry registry;
        private final String topic;
        private final String group;
        private final Counter[] consumed = new Counter[Outcome.Kind.values().length];
        private final Timer[] duration = new Timer[Outcome.Kind.values().length];
        private final ConcurrentHashMap<String, Counter> failed = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<String, Counter> discarded = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<String, Counter> deadLettered = new ConcurrentHashMap<>();
        private final DistributionSummary size;
        private final Inflight inflight;

        ConsumerMeters(MeterRegistry registry, String topic, String group, Inflight inflight) {
            this.registry = registry;
            this.topic = topic;
            this.group = group;
            this.inflight = inflight;
            for (Outcome.Kind kind : Outcome.Kind.values()) {
                consumed[kind.ordinal()] = Counter.builder(CONSUMED)
                        .description("Messages handled, by the handler's outcome")
                        .tag("topic", topic)
                        .tag("consumer_group", group)
                        .tag("outcome", kind.tag())
                        .register(registry);
                duration[kind.ordinal()] = Timer.builder(PROCESSING_DURATION)
                        .description("Handler run time, by outcome")
                        .tag("topic", topic)
                        .tag("consumer_group", group)
                        .tag("outcome", kind.tag())
                        .register(registry);
            }
            size = DistributionSummary.builder(SIZE)
                    .description("Payload size of received messages")
                    .baseUnit("bytes")
                    .tag("topic", topic)
                    .tag("consumer_group", group)
                    .register(registry);
        }

        public void consumed(Outcome.Kind kind, long nanos) {
            consumed[kind.ordinal()].increment();
            duration[kind.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
        }

        public void size(int bytes) {
            size.record(bytes);
        }

        public void failed(String reason) {
            tagged(failed, FAILED, "Messages that failed before or around the handler", reason)
                    .increment();
        }

        public void discarded(String reason) {
            tagged(discarded, DISCARDED, "Messages dropped for good (no DLQ to keep them)", reason)
                    .increment();
        }

        public void deadLettered(String reason) {
            tagged(deadLettered, DEAD_LETTERED, "Messages sent to the dead-letter queue", reason)
                    .increment();
        }

        /**
         * A new consumer's count of its handlers in progress, summed into the in-flight gauge: the consumer counts each
         * handler call into it while it runs, and says when it stopped ({@link #stoppedCounting}).
         */
        public AtomicInteger newRunningCount() {
            return inflight.newCount();
        }

        /** The consumer of {@code running} stopped: its count leaves the gauge once no handler of it runs. */
        public void stoppedCounting(AtomicInteger running) {
            inflight.stopped(running);
        }

        private Counter tagged(
                ConcurrentHashMap<String, Counter> cache, String name, String description, String reason) {
            Counter c = cache.get(reason);
            if (c == null) {
                c = cache.computeIfAbsent(
                        reason,
                        r -> Counter.builder(name)
                                .description(description)
                                .tag("topic", topic)
                                .tag("consumer_group", group)
                                .tag("reason", r)
                                .register(registry));
            }
            return c;
        }
    }
}
