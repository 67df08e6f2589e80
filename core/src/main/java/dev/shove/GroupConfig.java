package dev.shove;

import java.time.Duration;
import java.util.Objects;

/**
 * The base of every backend's consumer-group settings (e.g. {@code KafkaConsumerGroupConfig}): how many consumers
 * (min..max) and the {@link ConsumerOptions} they run with, plus whatever the backend adds. Immutable; each {@code
 * with...} returns a copy of the backend's own type.
 *
 * <p>Backend authors extend it and implement {@link #copy}:
 *
 * <pre>{@code
 * public final class InMemoryConsumerGroupConfig extends GroupConfig<InMemory, InMemoryConsumerGroupConfig> {
 *     public static InMemoryConsumerGroupConfig of(int min, int max) {
 *         return new InMemoryConsumerGroupConfig(min, max, ConsumerOptions.defaults());
 *     }
 *     private InMemoryConsumerGroupConfig(int min, int max, ConsumerOptions options) { super(min, max, options); }
 *     protected InMemoryConsumerGroupConfig copy(int min, int max, ConsumerOptions options) {
 *         return new InMemoryConsumerGroupConfig(min, max, options);
 *     }
 * }
 * }</pre>
 *
 * @param <B> the backend marker
 * @param <S> the concrete config type, returned by every {@code with...}
 */
public abstract class GroupConfig<B, S extends GroupConfig<B, S>> {
    private final int minConsumers;
    private final int maxConsumers;
    private final ConsumerOptions options;

    protected GroupConfig(int minConsumers, int maxConsumers, ConsumerOptions options) {
        if (minConsumers < 0) {
            throw new IllegalArgumentException("minConsumers must not be negative, was " + minConsumers);
        }
        if (maxConsumers < 1 || maxConsumers < minConsumers) {
            throw new IllegalArgumentException("maxConsumers must be at least 1 and at least minConsumers (%d), was %d"
                    .formatted(minConsumers, maxConsumers));
        }
        this.minConsumers = minConsumers;
        this.maxConsumers = maxConsumers;
        this.options = Objects.requireNonNull(options, "options");
    }

    /** A copy of this config with the given common settings and this config's backend-specific ones. */
    protected abstract S copy(int minConsumers, int maxConsumers, ConsumerOptions options);

    /** Consumers started when the group starts; the autoscaler never goes below it. */
    public int minConsumers() {
        return minConsumers;
    }

    /** The most consumers the autoscaler or {@code scaleUp} may run. */
    public int maxConsumers() {
        return maxConsumers;
    }

    public ConsumerOptions options() {
        return options;
    }

    public S withOptions(ConsumerOptions options) {
        return copy(minConsumers, maxConsumers, options);
    }

    /** See {@link ConsumerOptions#withPrefetch(int)}. */
    public S withPrefetch(int prefetch) {
        return withOptions(options.withPrefetch(prefetch));
    }

    /** See {@link ConsumerOptions#withMaxRetries(int)}. */
    public S withMaxRetries(int maxRetries) {
        return withOptions(options.withMaxRetries(maxRetries));
    }

    /** See {@link ConsumerOptions#withHandlerTimeout(Duration)}. */
    public S withHandlerTimeout(Duration timeout) {
        return withOptions(options.withHandlerTimeout(timeout));
    }

    /** See {@link ConsumerOptions#withoutHandlerTimeout()}. */
    public S withoutHandlerTimeout() {
        return withOptions(options.withoutHandlerTimeout());
    }

    /** See {@link ConsumerOptions#withHandlerTimeoutOutcome(Outcome)}. */
    public S withHandlerTimeoutOutcome(Outcome outcome) {
        return withOptions(options.withHandlerTimeoutOutcome(outcome));
    }

    /** See {@link ConsumerOptions#withMaxMessageSize(int)}. */
    public S withMaxMessageSize(int bytes) {
        return withOptions(options.withMaxMessageSize(bytes));
    }

    /** See {@link ConsumerOptions#withoutMessageSizeLimit()}. */
    public S withoutMessageSizeLimit() {
        return withOptions(options.withoutMessageSizeLimit());
    }

    /** See {@link ConsumerOptions#withLaneBuffer(int)}. */
    public S withLaneBuffer(int messages) {
        return withOptions(options.withLaneBuffer(messages));
    }

    /** See {@link ConsumerOptions#withDecodeFailurePolicy(DecodeFailurePolicy)}. */
    public S withDecodeFailurePolicy(DecodeFailurePolicy policy) {
        return withOptions(options.withDecodeFailurePolicy(policy));
    }

    /** See {@link ConsumerOptions#withRequiredHeaders(String...)}. */
    public S withRequiredHeaders(String... headers) {
        return withOptions(options.withRequiredHeaders(headers));
    }

    /** See {@link ConsumerOptions#withHeaderContract(Class)}. */
    public S withHeaderContract(Class<? extends Record> contract) {
        return withOptions(options.withHeaderContract(contract));
    }

    /** See {@link ConsumerOptions#withInterceptor(HandlerInterceptor)}. */
    public S withInterceptor(HandlerInterceptor interceptor) {
        return withOptions(options.withInterceptor(interceptor));
    }

    /** See {@link ConsumerOptions#withStartAt(Position)}. */
    public S withStartAt(Position position) {
        return withOptions(options.withStartAt(position));
    }

    /** See {@link ConsumerOptions#withSeeking()}. */
    public S withSeeking() {
        return withOptions(options.withSeeking());
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[consumers=" + minConsumers + ".." + maxConsumers + ", " + options + "]";
    }
}
