package dev.shove.internal;

import dev.shove.AutoscalerConfig;
import dev.shove.BatchMessageHandler;
import dev.shove.ConsumerOptions;
import dev.shove.DeadMessageMetadata;
import dev.shove.DecodeFailurePolicy;
import dev.shove.HandlerInterceptor;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.ScalingDecision;
import dev.shove.ScalingMetrics;
import dev.shove.ScalingStrategy;
import dev.shove.SequenceFailure;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Settlement;
import dev.shove.spi.SubscriptionRequest;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    private final HandlerSpec<T, C> handlers;
    final List<HandlerInterceptor> interceptors;
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
            HandlerSpec<T, C> handlers,
            List<HandlerInterceptor> interceptors,
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
        this.interceptors = interceptors;
        this.context = context;
        this.engineContext = engineContext;
        BrokerServices services = engineContext.services();
        this.policy =
                new DeliveryPolicy(topic, options.maxRetries(), services.capabilities(), options.decodeFailurePolicy());
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

    /** A message that cannot be read: its payload does not decode, or a required header is missing or bad. */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String detail) {
            super(detail, null, false, false);
        }
    }

    /** The checks before decoding: due time, poisoned key, retry budget, size. Null when the message may run. */
    DeliveryPolicy.@Nullable Decision beforeHandler(Job job) {
        byte[] payload = job.delivery.payload();
        meters.size(payload.length);
        long remaining = MainFlow.remainingMillis(job);
        if (remaining > 0) {
            return policy.notYetDue(Duration.ofMillis(remaining), job.retryCount);
        }
        if (failAll && poisoned.contains(MainFlow.laneKey(job))) {
            return policy.poisoned(job.retryCount);
        }
        if (job.retryCount > policy.maxRetries()) {
            return policy.overBudget(job.retryCount);
        }
        if (maxMessageSize > 0 && payload.length > maxMessageSize) {
            meters.failed("oversize");
            return policy.oversize(payload.length, maxMessageSize, job.retryCount);
        }
        return null;
    }

    /** The decision for a message that cannot be read; logged here when the policy retries it (others log later). */
    DeliveryPolicy.Decision unreadable(Job job, Unreadable e) {
        if (options.decodeFailurePolicy() == DecodeFailurePolicy.RETRY) {
            log.warn(
                    "message {} of topic '{}' cannot be read ({}); retrying it (decode-failure policy RETRY)",
                    job.messageId(),
                    topic.name(),
                    e.getMessage());
        }
        return policy.decodeFailure(String.valueOf(e.getMessage()), job.retryCount);
    }

    /** Decodes the payload and checks the required headers. */
    T decode(Job job) throws Unreadable {
        T message;
        try {
            message = topic.codec().decode(job.delivery.payload());
        } catch (Exception | StackOverflowError e) {
            meters.failed("decode");
            throw new Unreadable(topic.codec().name() + ": " + MainFlow.firstLine(e));
        }
        Map<String, String> headers = job.delivery.headers();
        for (String required : options.requiredHeaders()) {
            if (!headers.containsKey(required)) {
                meters.failed("decode");
                throw new Unreadable("required header '" + required + "' is missing");
            }
        }
        Class<? extends Record> contract = options.headerContract().orElse(null);
        if (contract != null) {
            try {
                HeaderContracts.parse(headers, contract);
            } catch (IllegalArgumentException e) {
                meters.failed("decode");
                throw new Unreadable(String.valueOf(e.getMessage()));
            }
        }
        return message;
    }

    MessageMetadata metadata(Job job) {
        return MainFlow.metadata(topic.name(), job);
    }

    /** The outcome of a handler call: what it returned, or retry when it threw or returned null. */
    Outcome outcomeOf(Job job, @Nullable Object result, @Nullable Throwable error) {
        if (error != null) {
            meters.failed("handler_error");
            log.warn(
                    "handler for topic '{}' failed on message {} (retryCount {}); treating it as retry",
                    topic.name(),
                    job.messageId(),
                    job.retryCount,
                    error);
            return Outcome.retry();
        }
        if (result instanceof Outcome o) {
            return o;
        }
        meters.failed("handler_error");
        log.warn(
                "handler for topic '{}' returned null for message {}; treating it as retry",
                topic.name(),
                job.messageId());
        return Outcome.retry();
    }

    /** Logs and counts a decision, poisons the key of a failed FAIL_ALL message, and carries the decision out. */
    void finish(
            ConsumerEngine engine,
            Job job,
            DeliveryPolicy.Decision decision,
            @Nullable Runnable continuation,
            ConsumerEngine.@Nullable Worker worker) {
        switch (decision) {
            case DeliveryPolicy.DeadLetter d -> {
                meters.deadLettered(d.metricReason());
                log.warn(
                        "message {} of topic '{}' goes to dead-letter queue '{}': {} (retryCount {})",
                        job.messageId(),
                        topic.name(),
                        topic.dlq().orElseThrow(),
                        d.reason(),
                        d.retryCount());
                poisonIfFailAll(job);
            }
            case DeliveryPolicy.Discard d -> {
                meters.discarded(d.metricReason());
                log.warn("message {} of topic '{}' is discarded: {}", job.messageId(), topic.name(), d.reason());
                poisonIfFailAll(job);
            }
            case DeliveryPolicy.Skip s -> {
                meters.discarded("decode");
                log.warn("message {} of topic '{}' is skipped: {}", job.messageId(), topic.name(), s.reason());
            }
            default -> {}
        }
        engine.apply(job, decision, continuation, worker);
    }

    private void poisonIfFailAll(Job job) {
        if (failAll && poisoned.add(MainFlow.laneKey(job))) {
            log.warn(
                    "key '{}' of sequenced topic '{}' is poisoned (FAIL_ALL): its later messages go to the"
                            + " dead-letter queue unhandled until this consumer group stops",
                    MainFlow.laneKey(job),
                    topic.name());
        }
    }

    /**
     * An ack carrying replies: the replies are published before the ack. On a transactional backend they travel in
     * the settlement and commit with the ack; elsewhere they are published first and a failure retries the message.
     */
    void ackWithReplies(ConsumerEngine engine, Job job, Outcome outcome, ConsumerEngine.Worker worker) {
        Runnable continuation = outcome.continuation().orElse(null);
        List<Settlement.Copy.ToTopic> replies;
        try {
            replies = prepareReplies(outcome.replies());
        } catch (RuntimeException e) {
            log.warn(
                    "replies of message {} on topic '{}' cannot be prepared ({}); retrying the message",
                    job.messageId(),
                    topic.name(),
                    e.toString());
            finish(engine, job, policy.decide(Outcome.retry(), job.retryCount), null, worker);
            return;
        }
        if (engineContext.services().capabilities().transactions()) {
            // The replies are published by the settlement itself; count them as publishes once it is done.
            job.confirmation = failure -> countReplies(replies, failure == null);
            engine.applySettlement(
                    job, new Settlement(List.copyOf(replies), Settlement.Action.ACK), continuation, worker);
            return;
        }
        Throwable failure = publishReplies(replies);
        if (failure != null) {
            log.warn(
                    "publishing the replies of message {} on topic '{}' failed ({}); retrying the message",
                    job.messageId(),
                    topic.name(),
                    failure.toString());
            finish(engine, job, policy.decide(Outcome.retry(), job.retryCount), null, worker);
            return;
        }
        finish(engine, job, DeliveryPolicy.ACK, continuation, worker);
    }

    /** Encodes replies (declaring their topics once). */
    List<Settlement.Copy.ToTopic> prepareReplies(List<Outcome.Reply<?>> replies) {
        List<Settlement.Copy.ToTopic> prepared = new ArrayList<>(replies.size());
        for (Outcome.Reply<?> reply : replies) {
            engineContext.declareReplyTopic(reply.topic());
            prepared.add(new Settlement.Copy.ToTopic(reply.topic(), PublisherImpl.prepareReply(reply)));
        }
        return prepared;
    }

    private void countReplies(List<Settlement.Copy.ToTopic> replies, boolean accepted) {
        Metrics metrics = engineContext.services().metrics();
        for (Settlement.Copy.ToTopic reply : replies) {
            Metrics.PublishMeters meters = metrics.publish(reply.topic().name());
            (accepted ? meters.success : meters.error).increment();
        }
    }

    /** Publishes prepared replies and waits for the broker; returns the first failure, or null. */
    @Nullable
    Throwable publishReplies(List<Settlement.Copy.ToTopic> replies) {
        BrokerServices services = engineContext.services();
        List<java.util.concurrent.CompletableFuture<Void>> pending = new ArrayList<>(replies.size());
        for (Settlement.Copy.ToTopic reply : replies) {
            try {
                pending.add(services.transport().publish(reply.topic(), reply.message()));
            } catch (RuntimeException e) {
                pending.add(java.util.concurrent.CompletableFuture.failedFuture(e));
            }
        }
        Throwable first = null;
        for (int i = 0; i < pending.size(); i++) {
            Metrics.PublishMeters meters =
                    services.metrics().publish(replies.get(i).topic().name());
            try {
                pending.get(i).get();
                meters.success.increment();
            } catch (java.util.concurrent.ExecutionException e) {
                meters.error.increment();
                first = first == null ? e.getCause() : first;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                meters.error.increment();
                first = first == null ? e : first;
            }
        }
        return first;
    }

    /** A handler asked to move the subscription; {@code inline} is the handler's worker (see ConsumerEngine.seek). */
    void seek(ConsumerEngine engine, Position position, ConsumerEngine.@Nullable Worker inline) {
        if (!options.isSeeking()) {
            log.error(
                    "a handler of topic '{}' asked to seek to {}, but the registration does not allow seeking;"
                            + " register with ConsumerOptions.withSeeking()",
                    topic.name(),
                    position);
            return;
        }
        engine.seek(position, inline);
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
            SubscriptionRequest request = new SubscriptionRequest(
                    topic,
                    SubscriptionRequest.Source.DEAD_LETTER,
                    group,
                    topic.name() + "-dlq-" + group,
                    options.prefetch());
            ConsumerEngine engine = new ConsumerEngine(
                    request.consumerId(),
                    engineContext,
                    request,
                    new DeadLetterFlow<>(this, deadHandler()),
                    options.prefetch(),
                    timeoutNanos,
                    false,
                    null,
                    deadMeters);
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
                yield deadHandler(h::handleDead, h::handleUnreadableDead, h.getClass());
            }
            case HandlerSpec.Batch<T, C> batch -> {
                BatchMessageHandler<T, ? super C> h = fromFactory(batch.factory());
                yield deadHandler(h::handleDead, h::handleUnreadableDead, h.getClass());
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
            Dead<T, ? super C> dead, UnreadableDead<? super C> unreadable, Class<?> handlerClass) {
        boolean drops = !overridesUnreadable(handlerClass);
        return new DeadLetterFlow.DeadHandler<>() {
            @Override
            public void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception {
                dead.accept(message, metadata, context);
            }

            @Override
            public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
                unreadable.accept(payload, metadata, context);
            }

            @Override
            public boolean dropsUnreadable() {
                return drops;
            }
        };
    }

    /** Whether a handler class implements handleUnreadableDead itself (rather than keeping the dropping default). */
    private static boolean overridesUnreadable(Class<?> handlerClass) {
        for (Class<?> c = handlerClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals("handleUnreadableDead") && !m.isBridge() && !m.isSynthetic()) {
                    return true;
                }
            }
        }
        return false;
    }

    private ConsumerEngine.Flow mainFlow() {
        return switch (handlers) {
            case HandlerSpec.Single<T, C> single -> {
                List<HandlerInterceptor> chain = new ArrayList<>(interceptors.size() + 1);
                chain.add(new MetricsInterceptor(meters)); // outermost: counts what the whole chain decided
                chain.addAll(interceptors);
                yield new MainFlow<>(this, new InterceptorChain<T, C>(topic, chain, fromFactory(single.factory())));
            }
            case HandlerSpec.Batch<T, C> batch -> new BatchFlow<>(this, fromFactory(batch.factory()));
        };
    }

    private int window() {
        if (handlers instanceof HandlerSpec.Batch<T, C> batch) {
            return options.prefetch() * batch.options().maxBatchSize();
        }
        return topic.isSequenced() ? options.prefetch() + options.laneBuffer() : options.prefetch();
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
                options.startAt().orElse(null));
        ConsumerEngine engine = new ConsumerEngine(
                id,
                engineContext,
                request,
                mainFlow(),
                options.prefetch(),
                timeoutNanos,
                topic.isSequenced(),
                handlers instanceof HandlerSpec.Batch<T, C> batch ? batch.options() : null,
                meters);
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
