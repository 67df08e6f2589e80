package dev.shove;

import java.util.List;

/**
 * The names of the meters shove registers in the {@link io.micrometer.core.instrument.MeterRegistry} given to {@link
 * Broker#builder}, so dashboards and alerts can refer to them by constant. Prometheus renders a dotted name with
 * underscores and counters with {@code _total}: {@value #CONSUMED} becomes {@code shove_messages_consumed_total}.
 *
 * <p>Tags: consumer meters carry {@code topic} and {@code consumer_group}; {@link #CONSUMED} and the processing timer
 * add {@code outcome} ({@code ack}, {@code retry}, {@code reject}, {@code defer}); {@link #FAILED}, {@link #DISCARDED}
 * and {@link #DEAD_LETTERED} add {@code reason}; publish meters carry {@code topic} and {@code outcome} ({@code
 * success}, {@code error}); {@link #PAUSED} and {@link #CIRCUIT_STATE} carry {@code topic} and {@code
 * consumer_group}, as do the {@code shove.backlog.*} gauges; {@link #BACKEND_ERRORS} carries {@code backend} and {@code kind}; {@link
 * #INVALID_HEADERS} carries {@code header} and {@code problem} ({@code unreadable}, {@code
 * out_of_range}).
 *
 * @since 0.1.0
 */
public final class ShoveMeters {
    /** Counter: messages handled, by the handler's outcome. */
    public static final String CONSUMED = "shove.messages.consumed";
    /** Counter: messages that failed before or around the handler (decode, oversize, handler error, timeout). */
    public static final String FAILED = "shove.messages.failed";
    /** Counter: messages dropped for good, logged at WARN (no dead-letter queue to keep them). */
    public static final String DISCARDED = "shove.messages.discarded";
    /** Counter: messages sent to the dead-letter queue. */
    public static final String DEAD_LETTERED = "shove.messages.dead.lettered";
    /** Counter: messages published, by whether the broker accepted them. */
    public static final String PUBLISHED = "shove.messages.published";
    /** Timer: handler run time, by outcome. */
    public static final String PROCESSING_DURATION = "shove.message.processing.duration";
    /** Timer: time to publish one message or batch until the broker accepted it. */
    public static final String PUBLISH_DURATION = "shove.message.publish.duration";
    /** Distribution summary: payload size of received messages, in bytes. */
    public static final String SIZE = "shove.message.size";
    /** Gauge: handlers running now. */
    public static final String INFLIGHT = "shove.messages.inflight";
    /** Counter: autoscaler decisions per poll, by {@code direction} ({@code up}, {@code down}, {@code hold}). */
    public static final String AUTOSCALER_DECISIONS = "shove.autoscaler.decisions";
    /** Counter: errors reported by a backend (connection losses, failed settlements). */
    public static final String BACKEND_ERRORS = "shove.backend.errors";
    /**
     * Counter: {@code shove-} headers read from the wire that could not be used as they were (another producer wrote
     * them, or they were corrupted): a value that cannot be read is treated as absent, one out of range is clamped.
     */
    public static final String INVALID_HEADERS = "shove.headers.invalid";
    /**
     * Gauge: messages waiting on the broker for the registration: queue depth, or consumer lag on a log. The same
     * figure the autoscaler reads; NaN until first read.
     */
    public static final String BACKLOG_READY = "shove.backlog.ready";
    /** Gauge: messages the broker has delivered and not yet seen settled (0 where it cannot tell). */
    public static final String BACKLOG_UNACKED = "shove.backlog.unacked";
    /** Gauge: retry copies waiting out their delay in the topic's hold tiers; NaN where the backend cannot tell. */
    public static final String BACKLOG_HELD = "shove.backlog.held";
    /** Gauge: retries waiting in place in this process (sequenced topics keep their key's place while they wait). */
    public static final String BACKLOG_WAITING = "shove.backlog.waiting";
    /** Gauge: seconds the oldest retry waiting in place in this process has waited; 0 when none waits. */
    public static final String BACKLOG_OLDEST_WAIT = "shove.backlog.oldest.wait";
    /** Gauge: keys of a {@code FAIL_ALL} sequenced topic whose later messages are dead-lettered unhandled. */
    public static final String POISONED_KEYS = "shove.sequence.poisoned.keys";
    /** Gauge: 1 while the application has paused the registration ({@code group.pause(topic)}), else 0. */
    public static final String PAUSED = "shove.registration.paused";
    /** Gauge, for registrations with a circuit breaker: 0 closed, 1 open (paused), 2 half-open (one probe). */
    public static final String CIRCUIT_STATE = "shove.circuit.state";

    /** Every meter name above. */
    public static final List<String> ALL = List.of(
            CONSUMED,
            FAILED,
            DISCARDED,
            DEAD_LETTERED,
            PUBLISHED,
            PROCESSING_DURATION,
            PUBLISH_DURATION,
            SIZE,
            INFLIGHT,
            AUTOSCALER_DECISIONS,
            BACKEND_ERRORS,
            INVALID_HEADERS,
            PAUSED,
            CIRCUIT_STATE,
            POISONED_KEYS,
            BACKLOG_READY,
            BACKLOG_UNACKED,
            BACKLOG_HELD,
            BACKLOG_WAITING,
            BACKLOG_OLDEST_WAIT);

    private ShoveMeters() {}
}
