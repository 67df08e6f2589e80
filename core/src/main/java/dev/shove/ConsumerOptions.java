package dev.shove;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The per-registration consumer settings shared by every backend. Immutable: each {@code with...} returns a copy.
 * Start from {@link #defaults()}.
 *
 * <ul>
 *   <li>{@code prefetch} {@value #DEFAULT_PREFETCH}: messages (or batches) handled at once per consumer.
 *   <li>{@code maxRetries} {@value #DEFAULT_MAX_RETRIES}: the handler runs at most {@code maxRetries + 1} times per
 *       message; a retry at {@code retryCount == maxRetries} dead-letters the message.
 *   <li>handler timeout: inherited from the group ({@link ConsumerGroup#withDefaultHandlerTimeout}), else {@link
 *       #DEFAULT_HANDLER_TIMEOUT}; {@link #withoutHandlerTimeout()} disables it.
 *   <li>handler timeout outcome {@link Outcome#retry()}: what a timed-out handler counts as.
 *   <li>{@code maxMessageSize} {@value #DEFAULT_MAX_MESSAGE_SIZE} bytes: larger payloads are dead-lettered unread.
 *   <li>{@code laneBuffer} {@value #DEFAULT_LANE_BUFFER}: on a sequenced topic, how many received messages a consumer
 *       holds for keys that are busy (a key whose earlier message is running or waiting out a retry).
 *   <li>decode-failure policy {@link DecodeFailurePolicy#REJECT}; no required headers; no interceptors; the broker's
 *       default start position; no seeking.
 * </ul>
 */
public final class ConsumerOptions {
    public static final int DEFAULT_PREFETCH = 10;
    public static final int DEFAULT_MAX_RETRIES = 10;
    public static final Duration DEFAULT_HANDLER_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 10 * 1024 * 1024;
    public static final int DEFAULT_LANE_BUFFER = 100;

    private static final ConsumerOptions DEFAULTS = new ConsumerOptions(new Fields());

    /** The mutable twin used to derive copies; never escapes this class. */
    private static final class Fields {
        int prefetch = DEFAULT_PREFETCH;
        int maxRetries = DEFAULT_MAX_RETRIES;

        @Nullable
        Duration handlerTimeout;

        boolean handlerTimeoutDisabled;

        @Nullable
        Outcome handlerTimeoutOutcome;

        int maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
        int laneBuffer = DEFAULT_LANE_BUFFER;
        DecodeFailurePolicy decodeFailurePolicy = DecodeFailurePolicy.REJECT;
        Set<String> requiredHeaders = Set.of();

        @Nullable
        Class<? extends Record> headerContract;

        List<HandlerInterceptor> interceptors = List.of();

        @Nullable
        Position startAt;

        boolean seeking;

        Fields() {}

        Fields(ConsumerOptions o) {
            prefetch = o.prefetch;
            maxRetries = o.maxRetries;
            handlerTimeout = o.handlerTimeout;
            handlerTimeoutDisabled = o.handlerTimeoutDisabled;
            handlerTimeoutOutcome = o.handlerTimeoutOutcome;
            maxMessageSize = o.maxMessageSize;
            laneBuffer = o.laneBuffer;
            decodeFailurePolicy = o.decodeFailurePolicy;
            requiredHeaders = o.requiredHeaders;
            headerContract = o.headerContract;
            interceptors = o.interceptors;
            startAt = o.startAt;
            seeking = o.seeking;
        }
    }

    private final int prefetch;
    private final int maxRetries;
    private final @Nullable Duration handlerTimeout;
    private final boolean handlerTimeoutDisabled;
    private final @Nullable Outcome handlerTimeoutOutcome;
    private final int maxMessageSize;
    private final int laneBuffer;
    private final DecodeFailurePolicy decodeFailurePolicy;
    private final Set<String> requiredHeaders;
    private final @Nullable Class<? extends Record> headerContract;
    private final List<HandlerInterceptor> interceptors;
    private final @Nullable Position startAt;
    private final boolean seeking;

    private ConsumerOptions(Fields f) {
        this.prefetch = f.prefetch;
        this.maxRetries = f.maxRetries;
        this.handlerTimeout = f.handlerTimeout;
        this.handlerTimeoutDisabled = f.handlerTimeoutDisabled;
        this.handlerTimeoutOutcome = f.handlerTimeoutOutcome;
        this.maxMessageSize = f.maxMessageSize;
        this.laneBuffer = f.laneBuffer;
        this.decodeFailurePolicy = f.decodeFailurePolicy;
        this.requiredHeaders = f.requiredHeaders;
        this.headerContract = f.headerContract;
        this.interceptors = f.interceptors;
        this.startAt = f.startAt;
        this.seeking = f.seeking;
    }

    private ConsumerOptions with(Consumer<Fields> change) {
        Fields f = new Fields(this);
        change.accept(f);
        return new ConsumerOptions(f);
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

    public DecodeFailurePolicy decodeFailurePolicy() {
        return decodeFailurePolicy;
    }

    /** Headers every message must carry; a message without one is settled by the decode-failure policy. */
    public Set<String> requiredHeaders() {
        return requiredHeaders;
    }

    /** The record type every message's headers must parse into, if any (see {@link #withHeaderContract}). */
    public Optional<Class<? extends Record>> headerContract() {
        return Optional.ofNullable(headerContract);
    }

    /** This registration's interceptors, outermost first. */
    public List<HandlerInterceptor> interceptors() {
        return interceptors;
    }

    /** Where a log-like subscription starts, forced on every start; empty for the broker's default. */
    public Optional<Position> startAt() {
        return Optional.ofNullable(startAt);
    }

    /** Whether handlers may move the subscription with {@link Outcome#andSeek(Position)}. */
    public boolean isSeeking() {
        return seeking;
    }

    /** Handle up to {@code prefetch} messages at once per consumer (at least 1). */
    public ConsumerOptions withPrefetch(int prefetch) {
        if (prefetch < 1) {
            throw new IllegalArgumentException("prefetch must be at least 1, was " + prefetch);
        }
        return with(f -> f.prefetch = prefetch);
    }

    /** Run the handler at most {@code maxRetries + 1} times per message (0 means no retries at all). */
    public ConsumerOptions withMaxRetries(int maxRetries) {
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must not be negative, was " + maxRetries);
        }
        return with(f -> f.maxRetries = maxRetries);
    }

    /** Interrupt a handler that runs longer than {@code timeout} and apply the timeout outcome. */
    public ConsumerOptions withHandlerTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("handler timeout must be positive, was " + timeout);
        }
        return with(f -> {
            f.handlerTimeout = timeout;
            f.handlerTimeoutDisabled = false;
        });
    }

    /** Never time a handler out. A stuck handler then holds its slot until shutdown's drain deadline. */
    public ConsumerOptions withoutHandlerTimeout() {
        return with(f -> {
            f.handlerTimeout = null;
            f.handlerTimeoutDisabled = true;
        });
    }

    /**
     * What a timed-out handler counts as, e.g. {@link Outcome#defer()} when a timeout means "too slow right now"
     * rather than "bad message" (it then never spends the retry budget, and is redelivered indefinitely).
     */
    public ConsumerOptions withHandlerTimeoutOutcome(Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome.continuation().isPresent()
                || !outcome.replies().isEmpty()
                || outcome.seek().isPresent()) {
            throw new IllegalArgumentException(
                    "a handler timeout outcome cannot carry a continuation, replies or a seek: " + outcome);
        }
        return with(f -> f.handlerTimeoutOutcome = outcome);
    }

    /** Dead-letter payloads larger than {@code bytes} without decoding them. */
    public ConsumerOptions withMaxMessageSize(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("maxMessageSize must be at least 1 byte, was " + bytes);
        }
        return with(f -> f.maxMessageSize = bytes);
    }

    /** Accept payloads of any size. */
    public ConsumerOptions withoutMessageSizeLimit() {
        return with(f -> f.maxMessageSize = 0);
    }

    /** On a sequenced topic, hold up to {@code messages} received messages for busy keys per consumer. */
    public ConsumerOptions withLaneBuffer(int messages) {
        if (messages < 0) {
            throw new IllegalArgumentException("laneBuffer must not be negative, was " + messages);
        }
        return with(f -> f.laneBuffer = messages);
    }

    /** What to do with messages that cannot be read (see {@link DecodeFailurePolicy}). */
    public ConsumerOptions withDecodeFailurePolicy(DecodeFailurePolicy policy) {
        Objects.requireNonNull(policy, "policy");
        return with(f -> f.decodeFailurePolicy = policy);
    }

    /** Require these headers on every message; a message missing one is settled by the decode-failure policy. */
    public ConsumerOptions withRequiredHeaders(String... headers) {
        Set<String> all = new LinkedHashSet<>(requiredHeaders);
        for (String h : headers) {
            all.add(Objects.requireNonNull(h, "header"));
        }
        return with(f -> f.requiredHeaders = Set.copyOf(all));
    }

    /**
     * Require every message's headers to parse into {@code contract}, a record whose components name headers
     * (components of type {@code Optional} may be missing; the others must be present and parse: numbers, booleans,
     * enums, strings). A message that does not fit is settled by the decode-failure policy; the handler reads the
     * parsed headers with {@link MessageMetadata#headersAs(Class)}.
     */
    public ConsumerOptions withHeaderContract(Class<? extends Record> contract) {
        Objects.requireNonNull(contract, "contract");
        return with(f -> f.headerContract = contract);
    }

    /** Adds an interceptor around this registration's handler (after, so inside, those added before). */
    public ConsumerOptions withInterceptor(HandlerInterceptor interceptor) {
        Objects.requireNonNull(interceptor, "interceptor");
        List<HandlerInterceptor> all = new ArrayList<>(interceptors);
        all.add(interceptor);
        return with(f -> f.interceptors = List.copyOf(all));
    }

    /**
     * Starts the subscription at {@code position} on every start (replay a log into a fresh group, or skip to the
     * newest). Needs a log-like backend; registering on another fails at once.
     */
    public ConsumerOptions withStartAt(Position position) {
        Objects.requireNonNull(position, "position");
        return with(f -> f.startAt = position);
    }

    /**
     * Lets handlers move the subscription with {@link Outcome#andSeek(Position)}. Needs a log-like backend;
     * registering on another fails at once.
     */
    public ConsumerOptions withSeeking() {
        return with(f -> f.seeking = true);
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
                + (maxMessageSize > 0 ? maxMessageSize : "unlimited") + ", laneBuffer=" + laneBuffer
                + ", decodeFailurePolicy=" + decodeFailurePolicy
                + (requiredHeaders.isEmpty() ? "" : ", requiredHeaders=" + requiredHeaders)
                + (headerContract == null ? "" : ", headerContract=" + headerContract.getSimpleName())
                + (interceptors.isEmpty() ? "" : ", interceptors=" + interceptors.size())
                + (startAt == null ? "" : ", startAt=" + startAt)
                + (seeking ? ", seeking" : "") + "]";
    }
}
