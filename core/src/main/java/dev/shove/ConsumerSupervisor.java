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
 * @since 0.1.0
 */
public interface ConsumerSupervisor<B, C> extends AutoCloseable {

    /**
     * This supervisor with a shared context; call before registering anything.
     *
     * @param context what every handler receives; shared, so it must be thread-safe
     * @param <C2> the context's type
     * @return the supervisor with that context; use it instead of this one
     * @throws IllegalStateException when topics are already registered
     */
    <C2> ConsumerSupervisor<B, C2> withContext(C2 context);

    /**
     * The handler timeout of registrations that set none (else {@link ConsumerOptions#DEFAULT_HANDLER_TIMEOUT}).
     *
     * @param timeout positive
     * @return this supervisor
     */
    ConsumerSupervisor<B, C> withDefaultHandlerTimeout(Duration timeout);

    /**
     * Adds an interceptor around the handlers of every topic registered afterwards; see {@link HandlerInterceptor}.
     *
     * @param interceptor the interceptor to add
     * @return this supervisor
     */
    ConsumerSupervisor<B, C> withInterceptor(HandlerInterceptor interceptor);

    /**
     * Declares the topic and registers one consumer for it with {@link ConsumerOptions#ofDefaults()}.
     *
     * @param topic the topic to consume
     * @param handler the one handler instance; it may run on several threads at once (up to {@code prefetch})
     * @param <T> the message type
     * @return this supervisor
     */
    <T> ConsumerSupervisor<B, C> register(Topic<T> topic, MessageHandler<T, ? super C> handler);

    /**
     * Declares the topic and registers one consumer for it.
     *
     * @param topic the topic to consume
     * @param options the consumer's settings
     * @param handler the one handler instance; it may run on several threads at once (up to {@code prefetch})
     * @param <T> the message type
     * @return this supervisor
     */
    <T> ConsumerSupervisor<B, C> register(
            Topic<T> topic, ConsumerOptions options, MessageHandler<T, ? super C> handler);

    /**
     * Declares the topic and registers one consumer with a batch handler for it.
     *
     * @param topic the topic to consume; not sequenced
     * @param options the consumer's settings
     * @param batch how batches are formed (size and wait)
     * @param handler the one batch handler instance
     * @param <T> the message type
     * @return this supervisor
     * @throws IllegalArgumentException for a sequenced topic
     */
    <T> ConsumerSupervisor<B, C> registerBatch(
            Topic<T> topic, ConsumerOptions options, BatchOptions batch, BatchMessageHandler<T, ? super C> handler);

    /**
     * Pauses a registration at run time; see {@link ConsumerGroup#pause(Topic)}.
     *
     * @param topic a topic registered here
     */
    void pause(Topic<?> topic);

    /**
     * Hands out messages again after {@link #pause}; see {@link ConsumerGroup#resume(Topic)}.
     *
     * @param topic a topic registered here
     */
    void resume(Topic<?> topic);

    /**
     * {@return whether the registration is paused by {@link #pause}}
     *
     * @param topic a topic registered here
     */
    boolean isPaused(Topic<?> topic);

    /** {@return this supervisor's health, as {@link ConsumerGroup#health()} describes it; no broker round trip} */
    GroupHealth health();

    /** See {@link ConsumerGroup#start()}. */
    void start();

    /**
     * Stops and drains; see {@link ConsumerGroup#stop(Duration)}.
     *
     * @param drainTimeout how long in-flight work may take to finish
     * @return how the supervisor ended: consumer errors, internal crashes, and whether the drain timed out
     */
    SupervisorOutcome stop(Duration drainTimeout);

    /**
     * Starts, blocks until {@code signal} completes, then stops; see {@link ConsumerGroup#runUntil(CompletionStage,
     * Duration)}.
     *
     * @param signal completes when the supervisor should stop
     * @param drainTimeout how long in-flight work may take to finish once the signal came
     * @return the outcome of the stop
     */
    SupervisorOutcome runUntil(CompletionStage<?> signal, Duration drainTimeout);

    @Override
    void close();
}
