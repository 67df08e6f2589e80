package dev.shove.internal;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOptions;
import dev.shove.ConsumerOptions;
import dev.shove.ConsumerSupervisor;
import dev.shove.DeadLetterHandling;
import dev.shove.GroupHealth;
import dev.shove.HandlerInterceptor;
import dev.shove.MessageHandler;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/** {@link ConsumerSupervisor} over a {@link ConsumerRuntime}: one consumer per topic, one shared handler. */
final class ConsumerSupervisorImpl<B, C> implements ConsumerSupervisor<B, C> {
    /** The {@code consumer_group} metric tag of supervisor consumers. */
    public static final String METRIC_GROUP = "default";

    private final ConsumerRuntime<C> runtime;
    private final Function<Object, ConsumerRuntime<?>> runtimes;

    ConsumerSupervisorImpl(ConsumerRuntime<C> runtime, Function<Object, ConsumerRuntime<?>> runtimes) {
        this.runtime = runtime;
        this.runtimes = runtimes;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <C2> ConsumerSupervisor<B, C2> withContext(C2 context) {
        Objects.requireNonNull(context, "context");
        if (runtime.hasRegistrations()) {
            throw new IllegalStateException("withContext must be called before registering topics");
        }
        ConsumerRuntime<C2> next = (ConsumerRuntime<C2>) runtimes.apply(context);
        runtime.copySettingsTo(next);
        runtime.close();
        return new ConsumerSupervisorImpl<>(next, runtimes);
    }

    @Override
    public ConsumerSupervisor<B, C> withDefaultHandlerTimeout(Duration timeout) {
        runtime.defaultHandlerTimeout(timeout);
        return this;
    }

    @Override
    public <T> ConsumerSupervisor<B, C> register(Topic<T> topic, MessageHandler<T, ? super C> handler) {
        return register(topic, ConsumerOptions.ofDefaults(), handler);
    }

    @Override
    public <T> ConsumerSupervisor<B, C> register(
            Topic<T> topic, ConsumerOptions options, MessageHandler<T, ? super C> handler) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(handler, "handler");
        return register(topic, options, new HandlerSpec.Single<T, C>(() -> handler));
    }

    @Override
    public ConsumerSupervisor<B, C> withInterceptor(HandlerInterceptor interceptor) {
        runtime.addInterceptor(interceptor);
        return this;
    }

    @Override
    public <T> ConsumerSupervisor<B, C> registerBatch(
            Topic<T> topic, ConsumerOptions options, BatchOptions batch, BatchMessageHandler<T, ? super C> handler) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(handler, "handler");
        return register(topic, options, new HandlerSpec.Batch<T, C>(() -> handler, batch));
    }

    private <T> ConsumerSupervisor<B, C> register(Topic<T> topic, ConsumerOptions options, HandlerSpec<T, C> spec) {
        runtime.register(new ConsumerRuntime.Spec<T, C>(
                topic, topic.name(), METRIC_GROUP, options, 1, 1, null, DeadLetterHandling.KEEP, null, spec));
        return this;
    }

    @Override
    public void pause(Topic<?> topic) {
        runtime.pause(topic);
    }

    @Override
    public void resume(Topic<?> topic) {
        runtime.resume(topic);
    }

    @Override
    public boolean isPaused(Topic<?> topic) {
        return runtime.isPaused(topic);
    }

    @Override
    public GroupHealth health() {
        return runtime.health();
    }

    @Override
    public void start() {
        runtime.start();
    }

    @Override
    public SupervisorOutcome stop(Duration drainTimeout) {
        return runtime.stop(drainTimeout);
    }

    @Override
    public SupervisorOutcome runUntil(CompletionStage<?> signal, Duration drainTimeout) {
        return runtime.runUntil(signal, drainTimeout);
    }

    @Override
    public void close() {
        runtime.close();
    }
}
