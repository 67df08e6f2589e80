package dev.shove;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Runs exactly one consumer per registered topic, with one handler instance: the simple harness for services that
 * do not need consumer groups or scaling. Obtained from {@link Broker#consumerSupervisor()}. Its consumers report
 * {@code consumer_group="default"} in metrics. Thread-safe.
 *
 * <pre>{@code
 * var supervisor = broker.consumerSupervisor().withContext(state);
 * supervisor.register(ORDERS, new OrderHandler());
 * System.exit(supervisor.runUntil(ShutdownSignal.onJvmShutdown(), Duration.ofSeconds(30)).exitCode());
 * }</pre>
 *
 * @param <B> the backend marker
 * @param <C> the context type passed to every handler
 */
public interface ConsumerSupervisor<B, C> extends AutoCloseable {

    /** This supervisor with a shared context; call before registering anything. */
    <C2> ConsumerSupervisor<B, C2> withContext(C2 context);

    /** The handler timeout of registrations that set none (else {@link ConsumerOptions#DEFAULT_HANDLER_TIMEOUT}). */
    ConsumerSupervisor<B, C> withDefaultHandlerTimeout(Duration timeout);

    /** Adds an interceptor around the handlers of every topic registered afterwards; see {@link HandlerInterceptor}. */
    ConsumerSupervisor<B, C> withInterceptor(HandlerInterceptor interceptor);

    /** Declares the topic and registers one consumer for it with {@link ConsumerOptions#ofDefaults()}. */
    <T> ConsumerSupervisor<B, C> register(Topic<T> topic, MessageHandler<T, ? super C> handler);

    /** Declares the topic and registers one consumer for it. */
    <T> ConsumerSupervisor<B, C> register(
            Topic<T> topic, ConsumerOptions options, MessageHandler<T, ? super C> handler);

    /** Declares the topic and registers one consumer with a batch handler for it. */
    <T> ConsumerSupervisor<B, C> registerBatch(
            Topic<T> topic, ConsumerOptions options, BatchOptions batch, BatchMessageHandler<T, ? super C> handler);

    /** See {@link ConsumerGroup#pause(Topic)}. */
    void pause(Topic<?> topic);

    /** See {@link ConsumerGroup#resume(Topic)}. */
    void resume(Topic<?> topic);

    /** See {@link ConsumerGroup#isPaused(Topic)}. */
    boolean isPaused(Topic<?> topic);

    /** See {@link ConsumerGroup#health()}. */
    GroupHealth health();

    /** See {@link ConsumerGroup#start()}. */
    void start();

    /** See {@link ConsumerGroup#stop(Duration)}. */
    SupervisorOutcome stop(Duration drainTimeout);

    /** See {@link ConsumerGroup#runUntil(CompletionStage, Duration)}. */
    SupervisorOutcome runUntil(CompletionStage<?> signal, Duration drainTimeout);

    @Override
    void close();
}
