package dev.shove.internal;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOptions;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.GroupHealth;
import dev.shove.HandlerInterceptor;
import dev.shove.MessageHandler;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/** {@link ConsumerGroup} over a {@link ConsumerRuntime}. */
final class ConsumerGroupImpl<B, C> implements ConsumerGroup<B, C> {
    private final ConsumerRuntime<C> runtime;
    private final Function<Object, ConsumerRuntime<?>> runtimes;

    /**
     * @param runtimes makes a fresh runtime for a context (for {@link #withContext})
     */
    ConsumerGroupImpl(ConsumerRuntime<C> runtime, Function<Object, ConsumerRuntime<?>> runtimes) {
        this.runtime = runtime;
        this.runtimes = runtimes;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <C2> ConsumerGroup<B, C2> withContext(C2 context) {
        Objects.requireNonNull(context, "context");
        if (runtime.hasRegistrations()) {
            throw new IllegalStateException("withContext must be called before registering topics");
        }
        ConsumerRuntime<C2> next = (ConsumerRuntime<C2>) runtimes.apply(context);
        runtime.copySettingsTo(next);
        runtime.close();
        return new ConsumerGroupImpl<>(next, runtimes);
    }

    @Override
    public ConsumerGroup<B, C> withDefaultHandlerTimeout(Duration timeout) {
        runtime.defaultHandlerTimeout(timeout);
        return this;
    }

    @Override
    public <T> ConsumerGroup<B, C> register(
            Topic<T> topic, Supplier<? extends MessageHandler<T, ? super C>> handlerFactory) {
        return register(topic, ConsumerGroupConfig.ofDefaults(), handlerFactory);
    }

    @Override
    public <T> ConsumerGroup<B, C> register(
            Topic<T> topic,
            ConsumerGroupConfig config,
            Supplier<? extends MessageHandler<T, ? super C>> handlerFactory) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(handlerFactory, "handlerFactory");
        return register(topic, config, new HandlerSpec.Single<T, C>(handlerFactory));
    }

    @Override
    public ConsumerGroup<B, C> withInterceptor(HandlerInterceptor interceptor) {
        runtime.addInterceptor(interceptor);
        return this;
    }

    @Override
    public <T> ConsumerGroup<B, C> registerBatch(
            Topic<T> topic,
            ConsumerGroupConfig config,
            BatchOptions batch,
            Supplier<? extends BatchMessageHandler<T, ? super C>> handlerFactory) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(config, "config");
        return register(topic, config, new HandlerSpec.Batch<T, C>(handlerFactory, batch));
    }

    private <T> ConsumerGroup<B, C> register(Topic<T> topic, ConsumerGroupConfig config, HandlerSpec<T, C> spec) {
        String group = config.groupNameFor(topic);
        runtime.register(new ConsumerRuntime.Spec<>(
                topic,
                group,
                group,
                config.options(),
                config.minConsumers(),
                config.maxConsumers(),
                config.autoscaler().orElse(null),
                config.deadLetters(),
                config.backendSettings().orElse(null),
                spec));
        return this;
    }

    @Override
    public boolean scaleUp(Topic<?> topic) {
        return runtime.scaleUp(topic);
    }

    @Override
    public boolean scaleDown(Topic<?> topic) {
        return runtime.scaleDown(topic);
    }

    @Override
    public int activeConsumers(Topic<?> topic) {
        return runtime.activeConsumers(topic);
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
