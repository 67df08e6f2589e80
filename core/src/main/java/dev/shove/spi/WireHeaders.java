package dev.shove.spi;

import dev.shove.ShoveHeaders;
import dev.shove.ShoveMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one reader of shove's own headers as they arrive from the wire. Any producer can write a {@code shove-} header
 * (another library, an old version, a hand-made message), so every value is read with bounds: a value that cannot be
 * read is treated as absent, one out of range is clamped, and both are logged at DEBUG and counted in {@link
 * ShoveMeters#INVALID_HEADERS}. The engine and every transport read these headers here and nowhere else.
 *
 * <ul>
 *   <li>{@link ShoveHeaders#RETRY_COUNT}: 0 to {@link #MAX_RETRY_COUNT}; absent means 0.
 *   <li>{@link ShoveHeaders#NOT_BEFORE}: epoch milliseconds, clamped to at most {@link Bounds#MAX_DELAY} after now;
 *       absent means due now.
 *   <li>{@link ShoveHeaders#DEATH_COUNT}: 0 to {@link #MAX_DEATH_COUNT}; absent means 0.
 *   <li>{@link ShoveHeaders#REPLAY_COUNT}: 0 to {@link #MAX_DEATH_COUNT}; absent means 0.
 * </ul>
 *
 * <p>One per broker, from {@link TransportContext#wireHeaders()}. Thread-safe.
 *
 * @since 0.1.0
 */
public final class WireHeaders {
    private static final Logger log = LoggerFactory.getLogger(WireHeaders.class);

    /** The highest retry count read from a header; more is clamped (far beyond any retry budget). */
    public static final int MAX_RETRY_COUNT = 1_000_000;

    /** The highest death count read from a header; more is clamped. */
    public static final int MAX_DEATH_COUNT = 1_000_000;

    private final MeterRegistry registry;

    /**
     * A reader counting into {@code registry}.
     *
     * @param registry where headers that were out of range or unparsable are counted
     */
    public WireHeaders(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * {@return the retries a message has spent, from {@link ShoveHeaders#RETRY_COUNT}: 0 to {@link
     * #MAX_RETRY_COUNT}}
     *
     * @param headers the message's headers
     */
    public int retryCount(Map<String, String> headers) {
        return (int) bounded(headers.get(ShoveHeaders.RETRY_COUNT), ShoveHeaders.RETRY_COUNT, 0, MAX_RETRY_COUNT, 0);
    }

    /**
     * {@return how many times a message was replayed from its dead-letter queue, from {@link
     * ShoveHeaders#REPLAY_COUNT}: 0 to {@link #MAX_DEATH_COUNT}}
     *
     * @param headers the message's headers
     */
    public int replayCount(Map<String, String> headers) {
        return (int) bounded(headers.get(ShoveHeaders.REPLAY_COUNT), ShoveHeaders.REPLAY_COUNT, 0, MAX_DEATH_COUNT, 0);
    }

    /**
     * {@return how many times a message was dead-lettered, from {@link ShoveHeaders#DEATH_COUNT}: 0 to {@link
     * #MAX_DEATH_COUNT}}
     *
     * @param headers the message's headers
     */
    public int deathCount(Map<String, String> headers) {
        return (int) bounded(headers.get(ShoveHeaders.DEATH_COUNT), ShoveHeaders.DEATH_COUNT, 0, MAX_DEATH_COUNT, 0);
    }

    /**
     * When a copy becomes due, from {@link ShoveHeaders#NOT_BEFORE}, in epoch milliseconds: at least {@code nowMs}
     * (a time in the past, or no header, means due now) and at most {@code nowMs} + {@link Bounds#MAX_DELAY}.
     *
     * @param headers the copy's headers
     * @param nowMs the current time in epoch milliseconds
     * @return when the copy becomes due, in epoch milliseconds
     */
    public long notBefore(Map<String, String> headers, long nowMs) {
        return notBefore(headers.get(ShoveHeaders.NOT_BEFORE), nowMs);
    }

    /**
     * Like {@link #notBefore(Map, long)}, from the header's value.
     *
     * @param value the header's value, or {@code null} when the header is absent
     * @param nowMs the current time in epoch milliseconds
     * @return when the copy becomes due, in epoch milliseconds
     */
    public long notBefore(@Nullable String value, long nowMs) {
        return bounded(value, ShoveHeaders.NOT_BEFORE, nowMs, nowMs + Bounds.MAX_DELAY.toMillis(), nowMs);
    }

    /**
     * {@return how many milliseconds a copy must still wait from {@code nowMs}, from {@link ShoveHeaders#NOT_BEFORE};
     * 0 when due}
     *
     * @param headers the copy's headers
     * @param nowMs the current time in epoch milliseconds
     */
    public long remainingMillis(Map<String, String> headers, long nowMs) {
        return notBefore(headers, nowMs) - nowMs;
    }

    private long bounded(@Nullable String text, String header, long min, long max, long absent) {
        if (text == null) {
            return absent;
        }
        long value;
        try {
            value = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            invalid(header, "unreadable", text);
            return absent;
        }
        if (value < min) {
            // a due time in the past is simply due; any other value below its range is not shove's
            if (!header.equals(ShoveHeaders.NOT_BEFORE)) {
                invalid(header, "out_of_range", text);
            }
            return min;
        }
        if (value > max) {
            invalid(header, "out_of_range", text);
            return max;
        }
        return value;
    }

    private void invalid(String header, String problem, @Nullable String text) {
        log.debug("header {} has the value '{}', which is {}; using a bounded value", header, text, problem);
        Counter.builder(ShoveMeters.INVALID_HEADERS)
                .description("shove- headers from the wire that could not be used as they were")
                .tag("header", header)
                .tag("problem", problem)
                .register(registry)
                .increment();
    }
}
