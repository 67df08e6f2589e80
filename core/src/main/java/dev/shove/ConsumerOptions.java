package dev.shove;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * The per-registration consumer settings shared by every backend. Immutable: each {@code with...} returns a copy.
 * Start from {@link #defaults()}.
 *
 * <ul>
 *   <li>{@code prefetch} {@value #DEFAULT_PREFETCH}: messages handled at once per consumer (and, for an unsequenced
 *       topic, received ahead).
 *   <li>{@code maxRetries} {@value #DEFAULT_MAX_RETRIES}: the handler runs at most {@code maxRetries + 1} times per
 *       message; a retry at {@code retryCount == maxRetries} dead-letters the message.
 *   <li>handler timeout: inherited from the group ({@link ConsumerGroup#withDefaultHandlerTimeout}), else {@link
 *       #DEFAULT_HANDLER_TIMEOUT}; {@link #withoutHandlerTimeout()} disables it.
 *   <li>handler timeout outcome {@link Outcome#retry()}: what a timed-out handler counts as.
 *   <li>{@code maxMessageSize} {@value #DEFAULT_MAX_MESSAGE_SIZE} bytes: larger payloads are dead-lettered unread.
 *   <li>{@code laneBuffer} {@value #DEFAULT_LANE_BUFFER}: on a sequenced topic, how many received messages a consumer
 *       holds for keys that are busy (a key whose earlier message is running or waiting out a retry).
 * </ul>
 */
public final class ConsumerOptions {
    public static final int DEFAULT_PREFETCH = 10;
    public static final int DEFAULT_MAX_RETRIES = 10;
    public static final Duration DEFAULT_HANDLER_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 10 * 1024 * 1024;
    public static final int DEFAULT_LANE_BUFFER = 100;

    private static final ConsumerOptions DEFAULTS = new ConsumerOptions(
            DEFAULT_PREFETCH, DEFAULT_MAX_RETRIES, null, false, null, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_LANE_BUFFER);

    private final int prefetch;
    private final int maxRetries;
    private final @Nullable Duration handlerTimeout;
    private final boolean handlerTimeoutDisabled;
    private final @Nullable Outcome handlerTimeoutOutcome;
    private final int maxMessageSize;
    private final int laneBuffer;

    private ConsumerOptions(
            int prefetch,
            int maxRetries,
            @Nullable Duration handlerTimeout,
            boolean handlerTimeoutDisabled,
            @Nullable Outcome handlerTimeoutOutcome,
            int maxMessageSize,
            int laneBuffer) {
        this.prefetch = prefetch;
        this.maxRetries = maxRetries;
        this.handlerTimeout = handlerTimeout;
        this.handlerTimeoutDisabled = handlerTimeoutDisabled;
        this.handlerTimeoutOutcome = handlerTimeoutOutcome;
        this.maxMessageSize = maxMessageSize;
        this.laneBuffer = laneBuffer;
    }

    /** The defaults listed above. */
    public static ConsumerOptions defaults() {
        return DEFAULTS;
    }

    public int prefetch() {
        return prefetch;
    }

    public int maxRetries() {
        return maxRetries;
    }

    /** The handler timeout set here; empty when inherited or disabled (see {@link #isHandlerTimeoutDisabled()}). */
    public Optional<Duration> handlerTimeout() {
        return Optional.ofNullable(handlerTimeout);
    }

    public boolean isHandlerTimeoutDisabled() {
        return handlerTimeoutDisabled;
    }

    /** What a timed-out handler counts as; {@link Outcome#retry()} unless set. */
    public Outcome handlerTimeoutOutcome() {
        return handlerTimeoutOutcome == null ? Outcome.retry() : handlerTimeoutOutcome;
    }

    /** The payload size limit in bytes; empty when disabled. */
    public OptionalInt maxMessageSize() {
        return maxMessageSize > 0 ? OptionalInt.of(maxMessageSize) : OptionalInt.empty();
    }

    public int laneBuffer() {
        return laneBuffer;
    }

    /** Handle up to {@code prefetch} messages at once per consumer (at least 1). */
    public ConsumerOptions withPrefetch(int prefetch) {
        if (prefetch < 1) {
            throw new IllegalArgumentException("prefetch must be at least 1, was " + prefetch);
        }
        return new ConsumerOptions(
                prefetch,
                maxRetries,
                handlerTimeout,
                handlerTimeoutDisabled,
                handlerTimeoutOutcome,
                maxMessageSize,
                laneBuffer);
    }

    /** Run the handler at most {@code maxRetries + 1} times per message (0 means no retries at all). */
    public ConsumerOptions withMaxRetries(int maxRetries) {
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must not be negative, was " + maxRetries);
        }
        return new ConsumerOptions(
                prefetch,
                maxRetries,
                handlerTimeout,
                handlerTimeoutDisabled,
                handlerTimeoutOutcome,
                maxMessageSize,
                laneBuffer);
    }

    /** Interrupt a handler that runs longer than {@code timeout} and apply the timeout outcome. */
    public ConsumerOptions withHandlerTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("handler timeout must be positive, was " + timeout);
        }
        return new ConsumerOptions(
                prefetch, maxRetries, timeout, false, handlerTimeoutOutcome, maxMessageSize, laneBuffer);
    }

    /** Never time a handler out. A stuck handler then holds its slot until shutdown's drain deadline. */
    public ConsumerOptions withoutHandlerTimeout() {
        return new ConsumerOptions(prefetch, maxRetries, null, true, handlerTimeoutOutcome, maxMessageSize, laneBuffer);
    }

    /**
     * What a timed-out handler counts as, e.g. {@link Outcome#defer()} when a timeout means "too slow right now"
     * rather than "bad message" (it then never spends the retry budget, and is redelivered indefinitely).
     */
    public ConsumerOptions withHandlerTimeoutOutcome(Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome.continuation().isPresent()) {
            throw new IllegalArgumentException("a handler timeout outcome cannot carry a continuation");
        }
        return new ConsumerOptions(
                prefetch, maxRetries, handlerTimeout, handlerTimeoutDisabled, outcome, maxMessageSize, laneBuffer);
    }

    /** Dead-letter payloads larger than {@code bytes} without decoding them. */
    public ConsumerOptions withMaxMessageSize(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("maxMessageSize must be at least 1 byte, was " + bytes);
        }
        return new ConsumerOptions(
                prefetch, maxRetries, handlerTimeout, handlerTimeoutDisabled, handlerTimeoutOutcome, bytes, laneBuffer);
    }

    /** Accept payloads of any size. */
    public ConsumerOptions withoutMessageSizeLimit() {
        return new ConsumerOptions(
                prefetch, maxRetries, handlerTimeout, handlerTimeoutDisabled, handlerTimeoutOutcome, 0, laneBuffer);
    }

    /** On a sequenced topic, hold up to {@code messages} received messages for busy keys per consumer. */
    public ConsumerOptions withLaneBuffer(int messages) {
        if (messages < 0) {
            throw new IllegalArgumentException("laneBuffer must not be negative, was " + messages);
        }
        return new ConsumerOptions(
                prefetch,
                maxRetries,
                handlerTimeout,
                handlerTimeoutDisabled,
                handlerTimeoutOutcome,
                maxMessageSize,
                messages);
    }

    /**
     * The effective handler timeout: this setting, else {@code groupDefault}, else {@link #DEFAULT_HANDLER_TIMEOUT};
     * empty when disabled.
     */
    public Optional<Duration> resolveHandlerTimeout(@Nullable Duration groupDefault) {
        if (handlerTimeoutDisabled) {
            return Optional.empty();
        }
        if (handlerTimeout != null) {
            return Optional.of(handlerTimeout);
        }
        return Optional.of(groupDefault != null ? groupDefault : DEFAULT_HANDLER_TIMEOUT);
    }

    @Override
    public String toString() {
        return "ConsumerOptions[prefetch=" + prefetch + ", maxRetries=" + maxRetries + ", handlerTimeout="
                + (handlerTimeoutDisabled ? "disabled" : handlerTimeout == null ? "inherited" : handlerTimeout)
                + ", handlerTimeoutOutcome=" + handlerTimeoutOutcome() + ", maxMessageSize="
                + (maxMessageSize > 0 ? maxMessageSize : "unlimited") + ", laneBuffer=" + laneBuffer + "]";
    }
}
