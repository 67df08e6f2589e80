package dev.shove;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Consumes topics with groups of consumers that scale between a minimum and a maximum. Obtained from {@link
 * Broker#consumerGroup()}; give it shared state once with {@link #withContext}, register each topic with its handler
 * factory, then run it.
 *
 * <pre>{@code
 * var group = broker.consumerGroup().withContext(state);
 * group.register(ORDERS, OrderHandler::new);                                // one consumer, defaults
 * group.register(INVOICES, ConsumerGroupConfig.of(1, 4), InvoiceHandler::new); // 1..4 consumers, autoscaled
 * SupervisorOutcome outcome = group.runUntil(ShutdownSignal.onJvmShutdown(), Duration.ofSeconds(30));
 * }</pre>
 *
 * <p>Registration declares the topic. Consumers start when the group starts (min of each registration), a built-in
 * autoscaler moves each registration between min and max, and a topic with a dead-letter queue also gets one
 * consumer that passes dead letters to {@link MessageHandler#handleDead}. Sequenced topics register the same way. A
 * broadcast topic gets exactly one consumer per registration, which receives every message. Thread-safe.
 *
 * @param <B> the backend marker
 * @param <C> the context type passed to every handler
 * @since 0.1.0
 */
public interface ConsumerGroup<B, C> extends AutoCloseable {

    /**
     * This group with a shared context given to every handler (a database pool, clients, configuration). Call before
     * registering anything.
     *
     * @param context what every handler of this group receives; shared, so it must be thread-safe
     * @param <C2> the context's type
     * @return the group with that context; use it instead of this one
     * @throws IllegalStateException when topics are already registered
     */
    <C2> ConsumerGroup<B, C2> withContext(C2 context);

    /**
     * The handler timeout of registrations that set none (else {@link ConsumerOptions#DEFAULT_HANDLER_TIMEOUT}).
     *
     * @param timeout positive
     * @return this group
     */
    ConsumerGroup<B, C> withDefaultHandlerTimeout(Duration timeout);

    /**
     * Adds an interceptor around the handlers of every topic registered afterwards, outside the registrations' own
     * interceptors. Group interceptors run in the order added, outermost first.
     *
     * @param interceptor the interceptor to add
     * @return this group
     */
    ConsumerGroup<B, C> withInterceptor(HandlerInterceptor interceptor);

    /**
     * Declares the topic and registers a handler factory for it with {@link ConsumerGroupConfig#ofDefaults()}: one
     * consumer, default options.
     *
     * @param topic the topic to consume
     * @param handlerFactory makes one handler per consumer
     * @param <T> the message type
     * @return this group
     * @throws IllegalStateException when the topic is already registered in this group
     * @throws TopologyException when the topic cannot be declared
     */
    <T> ConsumerGroup<B, C> register(Topic<T> topic, Supplier<? extends MessageHandler<T, ? super C>> handlerFactory);

    /**
     * Declares the topic and registers a handler factory for it; the factory is called once per consumer. If the
     * group is running, the registration's minimum consumers start at once.
     *
     * @param topic the topic to consume
     * @param config consumers, scaling and consumer options of this registration
     * @param handlerFactory makes one handler per consumer
     * @param <T> the message type
     * @return this group
     * @throws IllegalStateException when the topic is already registered in this group
     * @throws TopologyException when the topic cannot be declared
     */
    <T> ConsumerGroup<B, C> register(
            Topic<T> topic,
            ConsumerGroupConfig config,
            Supplier<? extends MessageHandler<T, ? super C>> handlerFactory);

    /**
     * Declares the topic and registers a batch handler factory for it; each consumer handles up to {@code prefetch}
     * batches at once. Sequenced topics cannot take batch handlers.
     *
     * @param topic the topic to consume; not sequenced
     * @param config consumers, scaling and consumer options of this registration
     * @param batch how batches are formed (size and wait)
     * @param handlerFactory makes one batch handler per consumer
     * @param <T> the message type
     * @return this group
     * @throws IllegalArgumentException for a sequenced topic
     */
    <T> ConsumerGroup<B, C> registerBatch(
            Topic<T> topic,
            ConsumerGroupConfig config,
            BatchOptions batch,
            Supplier<? extends BatchMessageHandler<T, ? super C>> handlerFactory);

    /**
     * Pauses a registration at run time: no more messages are handed to its handlers; those running finish and settle
     * as usual; what its consumers have received waits, unsettled, and nothing is redelivered early. Its dead letters
     * still reach {@code handleDead}. Idempotent. A stop while paused returns what waits to the broker.
     *
     * @param topic a topic registered in this group
     * @throws IllegalArgumentException when the topic is not registered here
     */
    void pause(Topic<?> topic);

    /**
     * Hands out messages again after {@link #pause}; idempotent.
     *
     * @param topic a topic registered in this group
     * @throws IllegalArgumentException when the topic is not registered here
     */
    void resume(Topic<?> topic);

    /**
     * {@return whether the registration is paused by {@link #pause} (a circuit breaker's pauses are not counted
     * here)}
     *
     * @param topic a topic registered in this group
     * @throws IllegalArgumentException when the topic is not registered here
     */
    boolean isPaused(Topic<?> topic);

    /**
     * This group's health, for liveness and readiness probes and for operators: per registration, whether it runs,
     * its consumers, when it last received a message and which handlers stall; and the broker connection. Cheap: no
     * broker round trip.
     *
     * @return a snapshot taken now
     */
    GroupHealth health();

    /**
     * Adds one consumer to a registration.
     *
     * @param topic a topic registered in this group
     * @return true if a consumer was added; false when the registration already runs its maximum
     */
    boolean scaleUp(Topic<?> topic);

    /**
     * Stops one idle consumer of a registration (it finishes nothing, it was idle).
     *
     * @param topic a topic registered in this group
     * @return true if a consumer was stopped; false at the minimum or when all are busy
     */
    boolean scaleDown(Topic<?> topic);

    /**
     * {@return how many consumers a registration runs now}
     *
     * @param topic a topic registered in this group
     */
    int activeConsumers(Topic<?> topic);

    /** Starts every registration's minimum consumers, the dead-letter consumers and the autoscaler; returns at once. */
    void start();

    /**
     * Stops intake, lets in-flight handlers finish and their outcomes settle, returns unstarted messages to the
     * broker, and waits for pending continuations, all within {@code drainTimeout}. Handlers still running at the
     * deadline are interrupted and their messages are returned for redelivery, never acknowledged.
     *
     * @param drainTimeout how long in-flight work may take to finish
     * @return how the group ended: consumer errors, internal crashes, and whether the drain timed out
     */
    SupervisorOutcome stop(Duration drainTimeout);

    /**
     * Starts the group, blocks until {@code signal} completes, then {@link #stop stops} it. Pass {@link
     * ShutdownSignal#onJvmShutdown()} to drain on SIGTERM.
     *
     * @param signal completes when the group should stop
     * @param drainTimeout how long in-flight work may take to finish once the signal came
     * @return the outcome of the stop
     */
    SupervisorOutcome runUntil(CompletionStage<?> signal, Duration drainTimeout);

    /** Stops the group with the default drain timeout of 30 s if it is running. Idempotent. */
    @Override
    void close();
}
