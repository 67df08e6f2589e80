package dev.shove.internal;

import dev.shove.AutoscalerConfig;
import dev.shove.ConsumerOptions;
import dev.shove.MessageHandler;
import dev.shove.Outcome;
import dev.shove.ScalingDecision;
import dev.shove.ScalingMetrics;
import dev.shove.ScalingStrategy;
import dev.shove.SequenceFailure;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import dev.shove.spi.SubscriptionRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One topic registered on a group or supervisor: its settings, resolved once, and its consumers: between min and max
 * main consumers, plus one dead-letter consumer when the topic has a DLQ. Owns scaling and the autoscaler loop.
 */
final class Registration<T, C> {
    private static final Logger log = LoggerFactory.getLogger(Registration.class);

    final Topic<T> topic;
    final String group;
    final String metricGroup;
    final ConsumerOptions options;
    final int min;
    final int max;
    final C context;
    final DeliveryPolicy policy;
    final Metrics.ConsumerMeters meters;
    final Metrics.ConsumerMeters deadMeters;
    final long timeoutNanos;
    final Outcome timeoutOutcome;
    final int maxMessageSize;
    final boolean failAll;
    final Set<String> poisoned = ConcurrentHashMap.newKeySet();

    private final Supplier<? extends MessageHandler<T, ? super C>> handlers;
    private final @Nullable AutoscalerConfig autoscaler;
    private final boolean deadLetterConsumer;
    private final EngineContext engineContext;
    private final List<ConsumerEngine> consumers = new CopyOnWriteArrayList<>();
    private final List<ConsumerEngine> stopped = new CopyOnWriteArrayList<>();
    private @Nullable ConsumerEngine deadLetters;
    private @Nullable Thread autoscalerThread;
    private int sequence;
    private boolean started;
    private volatile boolean stopping;

    Registration(
            Topic<T> topic,
            String group,
            String metricGroup,
            ConsumerOptions options,
            int min,
            int max,
            @Nullable AutoscalerConfig autoscaler,
            boolean deadLetterConsumer,
            Supplier<? extends MessageHandler<T, ? super C>> handlers,
            C context,
            @Nullable Duration defaultHandlerTimeout,
            EngineContext engineContext) {
        this.topic = topic;
        this.group = group;
        this.metricGroup = metricGroup;
        this.options = options;
        this.min = min;
        this.max = max;
        this.autoscaler = autoscaler;
        this.deadLetterConsumer = deadLetterConsumer && topic.dlq().isPresent();
        this.handlers = handlers;
        this.context = context;
        this.engineContext = engineContext;
        BrokerServices services = engineContext.services();
        this.policy = new DeliveryPolicy(topic, options.maxRetries(), services.capabilities());
        this.meters = services.metrics().consumer(topic.name(), metricGroup);
        this.deadMeters = topic.dlq()
                .map(dlq -> services.metrics().consumer(dlq, metricGroup))
                .orElse(meters);
        this.timeoutNanos = options.resolveHandlerTimeout(defaultHandlerTimeout)
                .map(Duration::toNanos)
                .orElse(0L);
        this.timeoutOutcome = options.handlerTimeoutOutcome();
        this.maxMessageSize = options.maxMessageSize().orElse(0);
        this.failAll = topic.sequencing()
                .map(s -> s.onFailure() == SequenceFailure.FAIL_ALL)
                .orElse(false);
    }

    synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        for (int i = 0; i < min; i++) {
            addConsumer();
        }
        if (deadLetterConsumer) {
            MessageHandler<T, ? super C> handler = newHandler();
            SubscriptionRequest request = new SubscriptionRequest(
                    topic, SubscriptionRequest.Source.DEAD_LETTER, group, topic.name() + "-dlq-" + group, window());
            ConsumerEngine engine = new ConsumerEngine(
                    request.consumerId(),
                    engineContext,
                    request,
                    new DeadLetterFlow<>(this, handler),
                    options.prefetch(),
                    timeoutNanos,
                    false);
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

    private MessageHandler<T, ? super C> newHandler() {
        return Objects.requireNonNull(
                handlers.get(), () -> "the handler factory of topic '" + topic.name() + "' returned null");
    }

    private int window() {
        return topic.isSequenced() ? options.prefetch() + options.laneBuffer() : options.prefetch();
    }

    /** Adds and starts one main consumer; the caller holds the lock. */
    private void addConsumer() {
        String id = topic.name() + "-" + sequence++;
        SubscriptionRequest request =
                new SubscriptionRequest(topic, SubscriptionRequest.Source.MAIN, group, id, window());
        ConsumerEngine engine = new ConsumerEngine(
                id,
                engineContext,
                request,
                new MainFlow<>(this, newHandler()),
                options.prefetch(),
                timeoutNanos,
                topic.isSequenced());
        engine.start();
        consumers.add(engine);
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
                log.warn("scaleDown of topic '{}' rejected: all {} consumers are busy", topic.name(), consumers.size());
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
        while (!stopping) {
            try {
                Thread.sleep(config.pollInterval());
            } catch (InterruptedException e) {
                return;
            }
            if (stopping) {
                return;
            }
            try {
                QueueStats stats = engineContext.services().transport().stats(topic);
                long running =
                        consumers.stream().mapToLong(ConsumerEngine::running).sum();
                ScalingMetrics m = new ScalingMetrics(
                        stats.ready(), Math.max(stats.inFlight(), running), activeConsumers(), options.prefetch());
                ScalingDecision decision = strategy.evaluate(group, m);
                metrics.autoscalerDecision(metricGroup, decision.direction()).increment();
                for (int i = 0; i < decision.delta() && scaleUp(); i++) {
                    // one step at a time, stopping at max
                }
                for (int i = 0; i < -decision.delta() && scaleDown(); i++) {
                    // one step at a time, stopping at min or when no consumer is idle
                }
            } catch (RuntimeException e) {
                log.warn("autoscaler of topic '{}' could not read the queue depth: {}", topic.name(), e.toString());
            }
        }
    }

    /** Stops every consumer of this registration by the deadline and tallies how they ended. */
    SupervisorOutcome stop(long deadlineNanos) {
        List<ConsumerEngine> all;
        synchronized (this) {
            stopping = true;
            all = new ArrayList<>(consumers);
            if (deadLetters != null) {
                all.add(deadLetters);
            }
        }
        Thread scaler = autoscalerThread;
        if (scaler != null) {
            scaler.interrupt();
        }
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
}
