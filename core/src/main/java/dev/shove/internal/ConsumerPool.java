package dev.shove.internal;

import dev.shove.AutoscalerConfig;
import dev.shove.BackendGroupSettings;
import dev.shove.BatchMessageHandler;
import dev.shove.DeadLetterHandling;
import dev.shove.DeadMessageMetadata;
import dev.shove.HandlerInterceptor;
import dev.shove.MessageHandler;
import dev.shove.RegistrationHealth;
import dev.shove.ScalingDecision;
import dev.shove.ScalingMetrics;
import dev.shove.ScalingStrategy;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import dev.shove.spi.SubscriptionRequest;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumers of one registration (a topic on a group or supervisor): between min and max main consumers, plus one
 * dead-letter consumer when the topic has a DLQ; their lifecycle, scaling and the autoscaler loop. Every consumer
 * runs the registration's one {@link DeliveryPipeline} with a flow of its own (its own handler instance).
 */
final class ConsumerPool<T, C> {
    private static final Logger log = LoggerFactory.getLogger(ConsumerPool.class);

    final Topic<T> topic;
    private final String group;
    private final String metricGroup;
    private final int min;
    private final int max;
    private final DeliveryPipeline<T, C> pipeline;
    private final HandlerSpec<T, C> handlers;
    private final List<HandlerInterceptor> interceptors;
    private final @Nullable AutoscalerConfig autoscaler;
    private final DeadLetterHandling deadLetterHandling;
    private final @Nullable BackendGroupSettings backendSettings;
    private final EngineContext engineContext;
    private final Backlog backlog;
    private final Backlog.View backlogView;
    private final List<ConsumerEngine> consumers = new CopyOnWriteArrayList<>();
    private final List<ConsumerEngine> stopped = new CopyOnWriteArrayList<>();
    private @Nullable ConsumerEngine deadLetters;
    private @Nullable DeadLetterFeed deadLetterFeed;
    private @Nullable Thread autoscalerThread;
    private int sequence;
    private boolean started;
    private volatile boolean stopping;

    ConsumerPool(
            DeliveryPipeline<T, C> pipeline,
            String group,
            String metricGroup,
            int min,
            int max,
            @Nullable AutoscalerConfig autoscaler,
            DeadLetterHandling deadLetterHandling,
            @Nullable BackendGroupSettings backendSettings,
            HandlerSpec<T, C> handlers,
            List<HandlerInterceptor> interceptors,
            EngineContext engineContext) {
        this.pipeline = pipeline;
        this.topic = pipeline.topic;
        this.group = group;
        this.metricGroup = metricGroup;
        this.min = min;
        this.max = max;
        this.autoscaler = autoscaler;
        this.deadLetterHandling = topic.dlq().isPresent() ? deadLetterHandling : DeadLetterHandling.NONE;
        this.backendSettings = backendSettings;
        this.handlers = handlers;
        this.interceptors = interceptors;
        this.engineContext = engineContext;
        this.backlog = new Backlog(topic, group, engineContext.services().transport(), this::backlogRead);
        this.backlogView = new Backlog.View() {
            @Override
            public @Nullable QueueStats stats() {
                return backlog.cached();
            }

            @Override
            public long waiting() {
                return consumers.stream()
                        .mapToLong(ConsumerEngine::waitingCount)
                        .sum();
            }

            @Override
            public long oldestWaitMillis() {
                return consumers.stream()
                        .mapToLong(ConsumerEngine::oldestWaitMillis)
                        .max()
                        .orElse(0);
            }
        };
    }

    /** Hands the broker's figures of a backlog read to this registration's backlog gauges. */
    private void backlogRead(QueueStats stats) {
        engineContext.services().metrics().backlog(topic.name(), metricGroup).figures(backlogView, stats);
    }

    synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        engineContext.services().metrics().backlog(topic.name(), metricGroup).attach(backlogView);
        if (engineContext.services().context().observed()) {
            backlogView.stats(); // the first read starts now, so the broker's figures are there for the first scrape
        }
        if (deadLetterHandling == DeadLetterHandling.KEEP) {
            var caps = engineContext.services().capabilities();
            deadLetterFeed = new DeadLetterFeed(
                    topic.name(),
                    topic.dlq().orElseThrow(),
                    pipeline.options.prefetch(),
                    caps.deliveryCount(),
                    caps.timestamps());
        }
        for (int i = 0; i < min; i++) {
            addConsumer();
        }
        if (deadLetterHandling != DeadLetterHandling.NONE) {
            SubscriptionRequest request = new SubscriptionRequest(
                    topic,
                    SubscriptionRequest.Source.DEAD_LETTER,
                    group,
                    topic.name() + "-dlq-" + group,
                    pipeline.options.prefetch(),
                    null,
                    handlerTimeout(),
                    backendSettings);
            ConsumerEngine engine = new ConsumerEngine(
                    request.consumerId(),
                    engineContext,
                    request,
                    new DeadLetterFlow<>(pipeline, deadHandler(), deadLetterFeed != null),
                    pipeline.options.prefetch(),
                    pipeline.timeoutNanos,
                    false,
                    null,
                    pipeline.deadMeters,
                    new Valve(topic.name() + "-dlq", null, null, null)); // dead letters are not paused
            if (deadLetterFeed != null) {
                engine.consumeFrom(deadLetterFeed);
            }
            engine.start();
            deadLetters = engine;
        }
        if (autoscaler != null) {
            AutoscalerConfig config = autoscaler;
            autoscalerThread =
                    Thread.ofVirtual().name("shove-autoscaler-" + topic.name()).start(() -> autoscale(config));
        }
        log.info(
                "consumer group '{}' started on topic '{}' with {} consumer(s) (min {}, max {}){}",
                group,
                topic.name(),
                consumers.size(),
                min,
                max,
                autoscaler != null ? ", autoscaling" : "");
    }

    private <H> H fromFactory(Supplier<? extends H> factory) {
        return Objects.requireNonNull(
                factory.get(), () -> "the handler factory of topic '" + topic.name() + "' returned null");
    }

    /** The dead-letter handler: the handleDead of a handler made for the purpose. */
    private DeadLetterFlow.DeadHandler<T, C> deadHandler() {
        return switch (handlers) {
            case HandlerSpec.Single<T, C> single -> {
                MessageHandler<T, ? super C> h = fromFactory(single.factory());
                yield deadHandler(h::handleDead, h::handleUnreadableDead);
            }
            case HandlerSpec.Batch<T, C> batch -> {
                BatchMessageHandler<T, ? super C> h = fromFactory(batch.factory());
                yield deadHandler(h::handleDead, h::handleUnreadableDead);
            }
        };
    }

    @FunctionalInterface
    private interface Dead<T, C> {
        void accept(T message, DeadMessageMetadata metadata, C context) throws Exception;
    }

    @FunctionalInterface
    private interface UnreadableDead<C> {
        void accept(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception;
    }

    private static <T, C> DeadLetterFlow.DeadHandler<T, C> deadHandler(
            Dead<T, ? super C> dead, UnreadableDead<? super C> unreadable) {
        return new DeadLetterFlow.DeadHandler<>() {
            @Override
            public void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception {
                dead.accept(message, metadata, context);
            }

            @Override
            public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
                unreadable.accept(payload, metadata, context);
            }
        };
    }

    private Flow mainFlow() {
        return switch (handlers) {
            case HandlerSpec.Single<T, C> single -> {
                List<HandlerInterceptor> chain = new ArrayList<>(interceptors.size() + 1);
                chain.add(new MetricsInterceptor(pipeline.meters)); // outermost: counts what the whole chain decided
                chain.addAll(interceptors);
                yield new MainFlow<>(
                        pipeline, new InterceptorChain<T, C>(topic, group, chain, fromFactory(single.factory())));
            }
            case HandlerSpec.Batch<T, C> batch -> new BatchFlow<>(pipeline, fromFactory(batch.factory()));
        };
    }

    private int window() {
        if (handlers instanceof HandlerSpec.Batch<T, C> batch) {
            return pipeline.options.prefetch() * batch.options().maxBatchSize();
        }
        int prefetch = pipeline.options.prefetch();
        return topic.isSequenced() ? prefetch + pipeline.options.laneBuffer() : prefetch;
    }

    private @Nullable Duration handlerTimeout() {
        return pipeline.timeoutNanos > 0 ? Duration.ofNanos(pipeline.timeoutNanos) : null;
    }

    /** Adds and starts one main consumer; the caller holds the lock. */
    private void addConsumer() {
        String id = topic.name() + "-" + sequence++;
        SubscriptionRequest request = new SubscriptionRequest(
                topic,
                SubscriptionRequest.Source.MAIN,
                group,
                id,
                window(),
                pipeline.options.startAt().orElse(null),
                handlerTimeout(),
                backendSettings);
        ConsumerEngine engine = new ConsumerEngine(
                id,
                engineContext,
                request,
                mainFlow(),
                pipeline.options.prefetch(),
                pipeline.timeoutNanos,
                topic.isSequenced(),
                handlers instanceof HandlerSpec.Batch<T, C> batch ? batch.options() : null,
                pipeline.meters,
                pipeline.valve);
        if (deadLetterFeed != null) {
            engine.feedDeadLettersTo(deadLetterFeed);
        }
        engine.start();
        consumers.add(engine);
    }

    /** Stops handing out messages to handlers; in-flight ones finish, received ones wait. */
    void pause() {
        pipeline.valve.pause();
        log.info("topic '{}' of consumer group '{}' paused", topic.name(), group);
    }

    /** Hands out messages again after {@link #pause()}. */
    void resume() {
        pipeline.valve.resume();
        log.info("topic '{}' of consumer group '{}' resumed", topic.name(), group);
    }

    boolean isPaused() {
        return pipeline.valve.isPaused();
    }

    /** This registration's health; {@code running}: whether its group runs (else it has not started, or stopped). */
    RegistrationHealth health(boolean running) {
        RegistrationHealth.Status status;
        if (!started) {
            status = RegistrationHealth.Status.NOT_STARTED;
        } else if (stopping || !running) {
            status = RegistrationHealth.Status.STOPPED;
        } else if (pipeline.valve.isPaused()) {
            status = RegistrationHealth.Status.PAUSED;
        } else if (pipeline.valve.breaker() != Valve.Breaker.CLOSED) {
            status = RegistrationHealth.Status.CIRCUIT_OPEN;
        } else {
            status = RegistrationHealth.Status.RUNNING;
        }
        long stallNanos =
                pipeline.timeoutNanos > 0 ? pipeline.timeoutNanos : RegistrationHealth.STALL_WITHOUT_TIMEOUT.toNanos();
        long lastReceived = 0;
        int failed = 0;
        List<RegistrationHealth.StalledHandler> stalled = new ArrayList<>();
        for (ConsumerEngine c : consumers) {
            lastReceived = Math.max(lastReceived, c.lastReceivedMillis());
            stalled.addAll(c.stalled(stallNanos));
            failed += c.failure() != null ? 1 : 0;
        }
        for (ConsumerEngine c : stopped) {
            failed += c.failure() != null ? 1 : 0;
        }
        return new RegistrationHealth(
                topic.name(),
                group,
                status,
                activeConsumers(),
                min,
                failed,
                lastReceived > 0 ? Instant.ofEpochMilli(lastReceived) : null,
                stalled);
    }

    synchronized boolean scaleUp() {
        pruneFailed();
        if (!started || stopping) {
            return false;
        }
        if (consumers.size() >= max) {
            log.debug("scaleUp of topic '{}' rejected: at max capacity ({})", topic.name(), max);
            return false;
        }
        addConsumer();
        log.info("scaled up topic '{}' to {} consumer(s)", topic.name(), consumers.size());
        return true;
    }

    boolean scaleDown() {
        ConsumerEngine victim = null;
        synchronized (this) {
            pruneFailed();
            if (!started || stopping) {
                return false;
            }
            if (consumers.size() <= min) {
                log.debug("scaleDown of topic '{}' rejected: at min capacity ({})", topic.name(), min);
                return false;
            }
            for (int i = consumers.size() - 1; i >= 0; i--) {
                if (consumers.get(i).isIdle()) {
                    victim = consumers.remove(i);
                    break;
                }
            }
            if (victim == null) {
                log.debug(
                        "scaleDown of topic '{}' rejected: all {} consumers are busy", topic.name(), consumers.size());
                return false;
            }
            stopped.add(victim);
        }
        victim.stop(System.nanoTime() + Duration.ofSeconds(30).toNanos());
        log.info("scaled down topic '{}' to {} consumer(s)", topic.name(), activeConsumers());
        return true;
    }

    int activeConsumers() {
        int n = 0;
        for (ConsumerEngine c : consumers) {
            if (c.failure() == null && !c.isStopped()) {
                n++;
            }
        }
        return n;
    }

    private void pruneFailed() {
        for (ConsumerEngine c : consumers) {
            if (c.failure() != null) {
                consumers.remove(c);
                stopped.add(c);
            }
        }
    }

    private void autoscale(AutoscalerConfig config) {
        ScalingStrategy strategy = config.effectiveStrategy();
        Metrics metrics = engineContext.services().metrics();
        // one counter per direction, looked up once: a poll of an idle registration should cost next to nothing
        Map<String, Counter> decisions = new HashMap<>(4);
        while (!stopping) {
            try {
                long interval = config.pollInterval().toNanos();
                Thread.sleep(Duration.ofNanos(untilNextPoll(System.nanoTime(), interval)));
            } catch (InterruptedException e) {
                return;
            }
            if (stopping) {
                return;
            }
            try {
                QueueStats stats = backlog.read(config.pollInterval().dividedBy(2));
                long running = 0;
                for (ConsumerEngine c : consumers) {
                    running += c.running();
                }
                ScalingMetrics m = new ScalingMetrics(
                        stats.ready(),
                        Math.max(stats.inFlight(), running),
                        activeConsumers(),
                        pipeline.options.prefetch());
                ScalingDecision decision = strategy.evaluate(group, m);
                decisions
                        .computeIfAbsent(decision.direction(), d -> metrics.autoscalerDecision(metricGroup, d))
                        .increment();
                for (int i = 0; i < decision.delta() && scaleUp(); i++) {
                    // one step at a time, stopping at max
                }
                for (int i = 0; i < -decision.delta() && scaleDown(); i++) {
                    // one step at a time, stopping at min or when no consumer is idle
                }
            } catch (RuntimeException e) {
                if (stopping) {
                    return; // the read was interrupted by the stop: nothing went wrong
                }
                log.warn("autoscaler of topic '{}' could not read the queue depth: {}", topic.name(), e.toString());
            }
        }
    }

    /** The grain the autoscalers' wake-ups are rounded up to (at most a quarter of the poll interval). */
    static final long POLL_GRAIN_NANOS = Duration.ofMillis(100).toNanos();

    /**
     * How long an autoscaler sleeps before its next poll: the poll interval, rounded up so that the poll falls on the
     * grain's grid. Autoscalers that started within one grain of each other then wake at the same instant, so the
     * virtual-thread scheduler wakes a carrier once for all of them rather than once each (1,000 idle registrations
     * polled every 5 s: a few wake-ups a second instead of 200), while registrations started apart keep their phases.
     */
    static long untilNextPoll(long nowNanos, long intervalNanos) {
        long grain = Math.max(1, Math.min(POLL_GRAIN_NANOS, intervalNanos / 4));
        long due = nowNanos + intervalNanos;
        long aligned = Math.floorDiv(due, grain) * grain;
        if (aligned < due) {
            aligned += grain;
        }
        return aligned - nowNanos;
    }

    /** Stops every consumer of this registration by the deadline and tallies how they ended. */
    SupervisorOutcome stop(long deadlineNanos) {
        List<ConsumerEngine> all;
        @Nullable ConsumerEngine deadLetterEngine;
        synchronized (this) {
            stopping = true;
            engineContext
                    .services()
                    .metrics()
                    .backlog(topic.name(), metricGroup)
                    .detach(backlogView);
            all = new ArrayList<>(consumers);
            deadLetterEngine = deadLetters;
        }
        Thread scaler = autoscalerThread;
        if (scaler != null) {
            scaler.interrupt();
        }
        boolean anyTimedOut;
        if (deadLetterFeed != null && deadLetterEngine != null) {
            // the main consumers first: the dead letters they store while draining still reach handleDead
            anyTimedOut = stopAll(all, deadlineNanos);
            anyTimedOut |= stopAll(List.of(deadLetterEngine), deadlineNanos);
            all.add(deadLetterEngine);
        } else {
            if (deadLetterEngine != null) {
                all.add(deadLetterEngine);
            }
            anyTimedOut = stopAll(all, deadlineNanos);
        }
        int errors = 0;
        for (ConsumerEngine c : all) {
            if (c.failure() != null) {
                errors++;
            }
        }
        for (ConsumerEngine c : stopped) {
            if (c.failure() != null) {
                errors++;
            }
        }
        return new SupervisorOutcome(errors, 0, anyTimedOut);
    }

    /** Stops {@code all} side by side by the deadline; true if any of them timed out. */
    private static boolean stopAll(List<ConsumerEngine> all, long deadlineNanos) {
        List<Thread> stoppers = new ArrayList<>();
        boolean[] timedOut = new boolean[all.size()];
        for (int i = 0; i < all.size(); i++) {
            int index = i;
            ConsumerEngine engine = all.get(i);
            stoppers.add(Thread.ofVirtual()
                    .name("shove-stop-" + engine.consumerId)
                    .start(() -> timedOut[index] = engine.stop(deadlineNanos)));
        }
        boolean anyTimedOut = false;
        for (int i = 0; i < stoppers.size(); i++) {
            try {
                stoppers.get(i).join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                anyTimedOut = true;
                break;
            }
            anyTimedOut |= timedOut[i];
        }
        return anyTimedOut;
    }
}
