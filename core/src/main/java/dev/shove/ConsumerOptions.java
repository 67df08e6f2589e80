package dev.shove;

import dev.shove.spi.Bounds;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one registration's consumers, the same on every backend. Immutable and thread-safe; build one with
 * {@link #builder()}, or take {@link #ofDefaults()}. A {@link ConsumerGroupConfig} carries these settings too (its
 * builder has the same methods), so a group registration rarely names this class.
 *
 * <pre>{@code
 * ConsumerOptions options = ConsumerOptions.builder()
 *         .prefetch(20)
 *         .handlerTimeout(Duration.ofSeconds(60))
 *         .handlerTimeoutOutcome(Outcome.defer())
 *         .build();
 * }</pre>
 *
 * <p>Defaults:
 *
 * <ul>
 *   <li>{@code prefetch} {@value #DEFAULT_PREFETCH}: messages (or batches) handled at once per consumer.
 *   <li>{@code maxRetries} {@value #DEFAULT_MAX_RETRIES}: the handler runs at most {@code maxRetries + 1} times per
 *       message; a retry at {@code retryCount == maxRetries} dead-letters the message.
 *   <li>handler timeout: inherited from the group ({@link ConsumerGroup#withDefaultHandlerTimeout}), else {@link
 *       #DEFAULT_HANDLER_TIMEOUT}; {@link Builder#noHandlerTimeout()} disables it.
 *   <li>handler timeout outcome {@link Outcome#retry()}: what a timed-out handler counts as.
 *   <li>{@code maxMessageSize} {@value #DEFAULT_MAX_MESSAGE_SIZE} bytes: larger payloads are dead-lettered unread.
 *   <li>{@code laneBuffer} {@value #DEFAULT_LANE_BUFFER}: on a sequenced topic, how many received messages a consumer
 *       holds for keys that are busy (a key whose earlier message is running or waiting out a retry).
 *   <li>decode-failure policy {@link DecodeFailurePolicy#REJECT}; no required headers; no header contract; no
 *       interceptors; the broker's default start position; no seeking.
 * </ul>
 *
 * @since 0.1.0
 */
public final class ConsumerOptions {
    /** The default {@code prefetch}: messages (or batches) handled at once per consumer. */
    public static final int DEFAULT_PREFETCH = 10;

    /** The default {@code maxRetries}: the handler runs at most eleven times per message. */
    public static final int DEFAULT_MAX_RETRIES = 10;

    /** The handler timeout when neither the registration nor the group sets one. */
    public static final Duration DEFAULT_HANDLER_TIMEOUT = Duration.ofSeconds(30);

    /** The default payload size limit in bytes (10 MiB); larger payloads are dead-lettered unread. */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 10 * 1024 * 1024;

    /** The default {@code laneBuffer}: received messages held for busy keys on a sequenced topic. */
    public static final int DEFAULT_LANE_BUFFER = 100;

    /** The largest {@code prefetch}. */
    public static final int MAX_PREFETCH = 100_000;

    /** The largest {@code maxRetries}. */
    public static final int MAX_RETRIES = 100_000;

    /** The largest {@code laneBuffer}. */
    public static final int MAX_LANE_BUFFER = 1_000_000;

    private static final ConsumerOptions DEFAULTS = builder().build();

    private final int prefetch;
    private final int maxRetries;
    private final @Nullable Duration handlerTimeout;
    private final boolean handlerTimeoutDisabled;
    private final Outcome handlerTimeoutOutcome;
    private final int maxMessageSize;
    private final int laneBuffer;
    private final DecodeFailurePolicy decodeFailurePolicy;
    private final Set<String> requiredHeaders;
    private final @Nullable Class<? extends Record> headerContract;
    private final List<HandlerInterceptor> interceptors;
    private final @Nullable Position startAt;
    private final boolean seeking;
    private final Map<Class<? extends Throwable>, Outcome> exceptionOutcomes;
    private final @Nullable CircuitBreakerConfig circuitBreaker;

    private ConsumerOptions(Settings<?> s) {
        this.prefetch = s.prefetch;
        this.maxRetries = s.maxRetries;
        this.handlerTimeout = s.handlerTimeout;
        this.handlerTimeoutDisabled = s.handlerTimeoutDisabled;
        this.handlerTimeoutOutcome = s.handlerTimeoutOutcome;
        this.maxMessageSize = s.maxMessageSize;
        this.laneBuffer = s.laneBuffer;
        this.decodeFailurePolicy = s.decodeFailurePolicy;
        this.requiredHeaders = s.requiredHeaders;
        this.headerContract = s.headerContract;
        this.interceptors = s.interceptors;
        this.startAt = s.startAt;
        this.seeking = s.seeking;
        this.exceptionOutcomes = Map.copyOf(s.exceptionOutcomes);
        this.circuitBreaker = s.circuitBreaker;
    }

    /** {@return the default options, listed in the class description (one shared instance)} */
    public static ConsumerOptions ofDefaults() {
        return DEFAULTS;
    }

    /** {@return a new builder starting from the defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a new builder starting from these options; changing it leaves these options as they are} */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.from(this);
        return b;
    }

    /** {@return how many messages (or batches) each consumer handles at once, 1 to {@value #MAX_PREFETCH}} */
    public int prefetch() {
        return prefetch;
    }

    /** {@return how many times a message is retried before it is dead-lettered, 0 to {@value #MAX_RETRIES}} */
    public int maxRetries() {
        return maxRetries;
    }

    /**
     * {@return the handler timeout set here; empty when inherited from the group or disabled (see {@link
     * #isHandlerTimeoutDisabled()})}
     */
    public Optional<Duration> handlerTimeout() {
        return Optional.ofNullable(handlerTimeout);
    }

    /** {@return whether handlers run without a timeout ({@link Builder#noHandlerTimeout()})} */
    public boolean isHandlerTimeoutDisabled() {
        return handlerTimeoutDisabled;
    }

    /** {@return what a timed-out handler counts as; {@link Outcome#retry()} unless set} */
    public Outcome handlerTimeoutOutcome() {
        return handlerTimeoutOutcome;
    }

    /** {@return the payload size limit in bytes; empty when disabled} */
    public OptionalInt maxMessageSize() {
        return maxMessageSize > 0 ? OptionalInt.of(maxMessageSize) : OptionalInt.empty();
    }

    /**
     * {@return how many received messages a consumer holds for busy keys on a sequenced topic, 0 to {@value
     * #MAX_LANE_BUFFER}}
     */
    public int laneBuffer() {
        return laneBuffer;
    }

    /** {@return what happens to a message that cannot be read; {@link DecodeFailurePolicy#REJECT} unless set} */
    public DecodeFailurePolicy decodeFailurePolicy() {
        return decodeFailurePolicy;
    }

    /**
     * {@return the headers every message must carry (empty for none); a message without one is settled by the
     * decode-failure policy}
     */
    public Set<String> requiredHeaders() {
        return requiredHeaders;
    }

    /**
     * {@return the record type every message's headers must parse into, if any (see {@link
     * Builder#headerContract})}
     */
    public Optional<Class<? extends Record>> headerContract() {
        return Optional.ofNullable(headerContract);
    }

    /** {@return this registration's interceptors, outermost first; empty for none} */
    public List<HandlerInterceptor> interceptors() {
        return interceptors;
    }

    /** {@return where a log-like subscription starts, forced on every start; empty for the broker's default} */
    public Optional<Position> startAt() {
        return Optional.ofNullable(startAt);
    }

    /** {@return whether handlers may move the subscription with {@link Outcome#andSeek(Position)}} */
    public boolean isSeeking() {
        return seeking;
    }

    /** {@return the circuit breaker that pauses the registration while its handlers keep failing, if one is set} */
    public Optional<CircuitBreakerConfig> circuitBreaker() {
        return Optional.ofNullable(circuitBreaker);
    }

    /**
     * The outcome a handler that threw {@code error} counts as: the one given for its class or its nearest superclass
     * with {@link Builder#exceptionOutcome}; empty for {@link Outcome#retry()}, the default.
     *
     * @param error what the handler threw
     * @return the outcome configured for the closest class of {@code error}; empty when none matches
     */
    public Optional<Outcome> exceptionOutcome(Throwable error) {
        if (exceptionOutcomes.isEmpty()) {
            return Optional.empty();
        }
        for (Class<?> c = error.getClass(); c != null; c = c.getSuperclass()) {
            Outcome outcome = exceptionOutcomes.get(c);
            if (outcome != null) {
                return Optional.of(outcome);
            }
        }
        return Optional.empty();
    }

    /**
     * The effective handler timeout: this setting, else {@code groupDefault}, else {@link #DEFAULT_HANDLER_TIMEOUT};
     * empty when disabled.
     *
     * @param groupDefault the group's default handler timeout, or {@code null} when the group sets none
     * @return the timeout to apply to each handler call; empty when handlers run without one
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
                + ", handlerTimeoutOutcome=" + handlerTimeoutOutcome + ", maxMessageSize="
                + (maxMessageSize > 0 ? maxMessageSize : "unlimited") + ", laneBuffer=" + laneBuffer
                + ", decodeFailurePolicy=" + decodeFailurePolicy
                + (requiredHeaders.isEmpty() ? "" : ", requiredHeaders=" + requiredHeaders)
                + (headerContract == null ? "" : ", headerContract=" + headerContract.getSimpleName())
                + (interceptors.isEmpty() ? "" : ", interceptors=" + interceptors.size())
                + (startAt == null ? "" : ", startAt=" + startAt)
                + (seeking ? ", seeking" : "")
                + (exceptionOutcomes.isEmpty() ? "" : ", exceptionOutcomes=" + exceptionOutcomes.size())
                + (circuitBreaker == null ? "" : ", circuitBreaker=" + circuitBreaker) + "]";
    }

    /**
     * Builds {@link ConsumerOptions}; starts from the defaults. Not thread-safe. Each setter checks its value at once
     * and throws {@link IllegalArgumentException} naming the setting and the allowed range.
     *
     * @since 0.1.0
     */
    public static final class Builder extends Settings<Builder> {
        private Builder() {}

        /** {@return the options as set so far; the builder stays usable} */
        public ConsumerOptions build() {
            return new ConsumerOptions(this);
        }
    }

    /**
     * The consumer settings and their setters, shared by {@link Builder} and {@link ConsumerGroupConfig.Builder}, so
     * each setting is defined once. Each setter checks its value at once and says what to change.
     *
     * @param <S> the concrete builder
     */
    abstract static class Settings<S extends Settings<S>> {
        int prefetch = DEFAULT_PREFETCH;
        int maxRetries = DEFAULT_MAX_RETRIES;

        @Nullable
        Duration handlerTimeout;

        boolean handlerTimeoutDisabled;
        Outcome handlerTimeoutOutcome = Outcome.retry();
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
        Map<Class<? extends Throwable>, Outcome> exceptionOutcomes = new LinkedHashMap<>();

        @Nullable
        CircuitBreakerConfig circuitBreaker;

        Settings() {}

        @SuppressWarnings("unchecked")
        private S self() {
            return (S) this;
        }

        /** Takes every consumer setting from {@code options}. */
        final void from(ConsumerOptions o) {
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
            exceptionOutcomes = new LinkedHashMap<>(o.exceptionOutcomes);
            circuitBreaker = o.circuitBreaker;
        }

        /** The consumer settings as set so far. */
        final ConsumerOptions options() {
            return new ConsumerOptions(this);
        }

        /**
         * Handle up to {@code prefetch} messages (or batches) at once per consumer.
         *
         * @param prefetch 1 to {@value #MAX_PREFETCH}; default {@value #DEFAULT_PREFETCH}
         * @return this builder
         * @throws IllegalArgumentException if {@code prefetch} is out of range
         */
        public S prefetch(int prefetch) {
            this.prefetch = inRange("prefetch", prefetch, 1, MAX_PREFETCH);
            return self();
        }

        /**
         * Run the handler at most {@code maxRetries + 1} times per message; a retry at {@code retryCount ==
         * maxRetries} dead-letters the message.
         *
         * @param maxRetries 0 (no retries) to {@value #MAX_RETRIES}; default {@value #DEFAULT_MAX_RETRIES}
         * @return this builder
         * @throws IllegalArgumentException if {@code maxRetries} is out of range
         */
        public S maxRetries(int maxRetries) {
            this.maxRetries = inRange("maxRetries", maxRetries, 0, MAX_RETRIES);
            return self();
        }

        /**
         * Interrupt a handler that runs longer than {@code timeout} (positive, at most {@link Bounds#MAX_TIMEOUT}) and
         * apply the timeout outcome.
         *
         * @param timeout how long one handler call may run
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is zero, negative or longer than {@link
         *     Bounds#MAX_TIMEOUT}
         */
        public S handlerTimeout(Duration timeout) {
            this.handlerTimeout = Bounds.positive("handler timeout", timeout);
            this.handlerTimeoutDisabled = false;
            return self();
        }

        /**
         * Never time a handler out. A stuck handler then holds its slot until shutdown's drain deadline.
         *
         * @return this builder
         */
        public S noHandlerTimeout() {
            this.handlerTimeout = null;
            this.handlerTimeoutDisabled = true;
            return self();
        }

        /**
         * What a timed-out handler counts as, e.g. {@link Outcome#defer()} when a timeout means "too slow right now"
         * rather than "bad message" (it then never spends the retry budget, and is redelivered indefinitely). A plain
         * outcome: no continuation, replies or seek.
         *
         * @param outcome a plain retry, defer, reject or ack
         * @return this builder
         * @throws IllegalArgumentException if {@code outcome} carries a continuation, replies or a seek
         */
        public S handlerTimeoutOutcome(Outcome outcome) {
            Objects.requireNonNull(outcome, "outcome");
            if (outcome.continuation().isPresent()
                    || !outcome.replies().isEmpty()
                    || outcome.seek().isPresent()) {
                throw new IllegalArgumentException(
                        "a handler timeout outcome cannot carry a continuation, replies or a seek: " + outcome);
            }
            this.handlerTimeoutOutcome = outcome;
            return self();
        }

        /**
         * Dead-letter payloads larger than {@code bytes} without decoding them.
         *
         * @param bytes at least 1; default {@value #DEFAULT_MAX_MESSAGE_SIZE}
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is less than 1
         */
        public S maxMessageSize(int bytes) {
            this.maxMessageSize = inRange("maxMessageSize", bytes, 1, Integer.MAX_VALUE);
            return self();
        }

        /**
         * Accept payloads of any size.
         *
         * @return this builder
         */
        public S noMessageSizeLimit() {
            this.maxMessageSize = 0;
            return self();
        }

        /**
         * On a sequenced topic, hold up to {@code messages} received messages for busy keys per consumer: 0 to
         * {@value #MAX_LANE_BUFFER}.
         *
         * @param messages 0 (a busy key blocks the consumer's intake) to {@value #MAX_LANE_BUFFER}; default {@value
         *     #DEFAULT_LANE_BUFFER}
         * @return this builder
         * @throws IllegalArgumentException if {@code messages} is out of range
         */
        public S laneBuffer(int messages) {
            this.laneBuffer = inRange("laneBuffer", messages, 0, MAX_LANE_BUFFER);
            return self();
        }

        /**
         * What to do with messages that cannot be read (see {@link DecodeFailurePolicy}).
         *
         * @param policy default {@link DecodeFailurePolicy#REJECT}
         * @return this builder
         */
        public S decodeFailurePolicy(DecodeFailurePolicy policy) {
            this.decodeFailurePolicy = Objects.requireNonNull(policy, "policy");
            return self();
        }

        /**
         * Require these headers on every message (replacing any set before); a message missing one is settled by the
         * decode-failure policy.
         *
         * @param headers header names; none clears the requirement
         * @return this builder
         */
        public S requiredHeaders(String... headers) {
            Set<String> all = new LinkedHashSet<>();
            for (String h : headers) {
                all.add(Objects.requireNonNull(h, "header"));
            }
            this.requiredHeaders = Set.copyOf(all);
            return self();
        }

        /**
         * Require every message's headers to parse into {@code contract}, a record whose components name headers
         * (components of type {@code Optional} may be missing; the others must be present and parse: numbers,
         * booleans, enums, strings). A message that does not fit is settled by the decode-failure policy; the handler
         * reads the parsed headers with {@link MessageMetadata#headersAs(Class)}.
         *
         * @param contract a record type whose components name headers
         * @return this builder
         */
        public S headerContract(Class<? extends Record> contract) {
            this.headerContract = Objects.requireNonNull(contract, "contract");
            return self();
        }

        /**
         * The interceptors around this registration's handler, outermost first (replacing any set before); group
         * interceptors run outside them.
         *
         * @param interceptors outermost first; none clears them
         * @return this builder
         */
        public S interceptors(HandlerInterceptor... interceptors) {
            for (HandlerInterceptor i : interceptors) {
                Objects.requireNonNull(i, "interceptor");
            }
            this.interceptors = List.of(interceptors);
            return self();
        }

        /**
         * Starts the subscription at {@code position} on every start (replay a log into a fresh group, or skip to the
         * newest). Needs a log-like backend; registering on another fails at once.
         *
         * @param position where every start of the subscription begins
         * @return this builder
         */
        public S startAt(Position position) {
            this.startAt = Objects.requireNonNull(position, "position");
            return self();
        }

        /**
         * Lets handlers move the subscription with {@link Outcome#andSeek(Position)}. Needs a log-like backend;
         * registering on another fails at once.
         *
         * @return this builder
         */
        public S seeking() {
            this.seeking = true;
            return self();
        }

        /**
         * What a handler that throws {@code type} (or a subclass, unless a closer class has its own) counts as,
         * instead of {@link Outcome#retry()}: {@link Outcome#reject()} for exceptions that mean the message can never
         * succeed (straight to the dead-letter queue, no retry budget spent), {@code Outcome.retry(delay)} for ones
         * that mean "try again later", or a {@code defer}. A plain outcome: not {@code ack} (catch the exception in
         * the handler to ignore it), and no continuation, replies or seek. A dead letter caused by an exception
         * carries its class, message and stack trace either way ({@link DeadMessageMetadata#exceptionClass()}).
         *
         * @param type the exception class; its subclasses match too unless a closer class is configured
         * @param outcome a plain retry, defer or reject
         * @return this builder
         * @throws IllegalArgumentException if {@code outcome} is an ack or carries a continuation, replies or a seek
         */
        public S exceptionOutcome(Class<? extends Throwable> type, Outcome outcome) {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(outcome, "outcome");
            if (outcome.isAck()
                    || outcome.continuation().isPresent()
                    || !outcome.replies().isEmpty()
                    || outcome.seek().isPresent()) {
                throw new IllegalArgumentException(("the outcome for %s must be a plain retry, defer or reject, was %s;"
                                + " to ignore the exception, catch it in the handler")
                        .formatted(type.getName(), outcome));
            }
            exceptionOutcomes.put(type, outcome);
            return self();
        }

        /**
         * Pauses the registration while its handlers keep failing, and probes with one message before it flows
         * again (see {@link CircuitBreakerConfig}), so a dependency that is down does not burn every message's retry
         * budget.
         *
         * @param config when the breaker opens and how it probes
         * @return this builder
         */
        public S circuitBreaker(CircuitBreakerConfig config) {
            this.circuitBreaker = Objects.requireNonNull(config, "config");
            return self();
        }

        static int inRange(String setting, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(
                        "%s must be between %d and %d, was %d".formatted(setting, min, max, value));
            }
            return value;
        }
    }
}
