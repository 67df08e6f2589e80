package dev.shove.test;

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
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A consumer group made through the kit: the broker's own group, with the kit's {@link CallRecorder} as its first
 * (outermost) interceptor, batch handlers recorded too, and each registration noted so that journeys know which
 * groups' calls were recorded. Everything else is the group's own.
 */
final class RecordingGroup<B, C> implements ConsumerGroup<B, C> {
    private final ConsumerGroup<B, C> group;
    private final CallRecorder recorder;
    private final Ledger ledger;

    private RecordingGroup(ConsumerGroup<B, C> group, CallRecorder recorder, Ledger ledger) {
        this.group = group;
        this.recorder = recorder;
        this.ledger = ledger;
    }

    /** {@code group} with the recorder added; call on a fresh group, before any other interceptor. */
    static <B, C> ConsumerGroup<B, C> of(ConsumerGroup<B, C> group, CallRecorder recorder, Ledger ledger) {
        return new RecordingGroup<>(group.withInterceptor(recorder), recorder, ledger);
    }

    @Override
    public <C2> ConsumerGroup<B, C2> withContext(C2 context) {
        // the new group keeps the interceptors of this one, the recorder first among them
        return new RecordingGroup<>(group.withContext(context), recorder, ledger);
    }

    @Override
    public ConsumerGroup<B, C> withDefaultHandlerTimeout(Duration timeout) {
        group.withDefaultHandlerTimeout(timeout);
        return this;
    }

    @Override
    public ConsumerGroup<B, C> withInterceptor(HandlerInterceptor interceptor) {
        group.withInterceptor(interceptor);
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
        ledger.registered(topic.name(), config.groupNameFor(topic));
        group.register(topic, config, handlerFactory);
        return this;
    }

    @Override
    public <T> ConsumerGroup<B, C> registerBatch(
            Topic<T> topic,
            ConsumerGroupConfig config,
            BatchOptions batch,
            Supplier<? extends BatchMessageHandler<T, ? super C>> handlerFactory) {
        String name = config.groupNameFor(topic);
        ledger.registered(topic.name(), name);
        group.registerBatch(topic, config, batch, recorder.<T, C>batch(topic, name, handlerFactory));
        return this;
    }

    @Override
    public void pause(Topic<?> topic) {
        group.pause(topic);
    }

    @Override
    public void resume(Topic<?> topic) {
        group.resume(topic);
    }

    @Override
    public boolean isPaused(Topic<?> topic) {
        return group.isPaused(topic);
    }

    @Override
    public GroupHealth health() {
        return group.health();
    }

    @Override
    public boolean scaleUp(Topic<?> topic) {
        return group.scaleUp(topic);
    }

    @Override
    public boolean scaleDown(Topic<?> topic) {
        return group.scaleDown(topic);
    }

    @Override
    public int activeConsumers(Topic<?> topic) {
        return group.activeConsumers(topic);
    }

    @Override
    public void start() {
        group.start();
    }

    @Override
    public SupervisorOutcome stop(Duration drainTimeout) {
        return group.stop(drainTimeout);
    }

    @Override
    public SupervisorOutcome runUntil(CompletionStage<?> signal, Duration drainTimeout) {
        return group.runUntil(signal, drainTimeout);
    }

    @Override
    public void close() {
        group.close();
    }

    @Override
    public String toString() {
        return group.toString();
    }
}
