package dev.shove.internal;

import dev.shove.AutoscalerConfig;
import dev.shove.BackendGroupSettings;
import dev.shove.ConsumerOptions;
import dev.shove.DeadLetterHandling;
import dev.shove.GroupHealth;
import dev.shove.HandlerInterceptor;
import dev.shove.RegistrationHealth;
import dev.shove.ShutdownSignal;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.spi.Bounds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machinery behind a consumer group or a supervisor: its registrations, its lifecycle, its continuations and the
 * tally that becomes the {@link SupervisorOutcome}. The public facades only translate their API onto it.
 */
final class ConsumerRuntime<C> implements EngineContext, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConsumerRuntime.class);

    /** The drain timeout of {@link #close()}. */
    public static final Duration DEFAULT_DRAIN = Duration.ofSeconds(30);

    private enum State {
        NEW,
        RUNNING,
        STOPPED
    }

    private final BrokerServices services;
    private final C context;
    private final Consumer<ConsumerRuntime<?>> onClose;
    private final Continuations continuations = new Continuations();
    private final Map<String, ConsumerPool<?, C>> registrations = new LinkedHashMap<>();
    private final AtomicInteger crashes = new AtomicInteger();
    private final List<HandlerInterceptor> groupInterceptors = new ArrayList<>();
    private final Set<String> declaredReplyTopics = ConcurrentHashMap.newKeySet();
    private volatile @Nullable Duration defaultHandlerTimeout;
    private State state = State.NEW;
    private @Nullable CompletableFuture<SupervisorOutcome> stopped;

    ConsumerRuntime(BrokerServices services, C context, Consumer<ConsumerRuntime<?>> onClose) {
        this.services = services;
        this.context = context;
        this.onClose = onClose;
    }

    @Override
    public BrokerServices services() {
        return services;
    }

    @Override
    public Continuations continuations() {
        return continuations;
    }

    @Override
    public void crashed(Throwable error) {
        crashes.incrementAndGet();
    }

    public synchronized boolean hasRegistrations() {
        return !registrations.isEmpty();
    }

    public void defaultHandlerTimeout(Duration timeout) {
        Bounds.positive("default handler timeout", timeout);
        synchronized (this) {
            if (!registrations.isEmpty()) {
                throw new IllegalStateException("set the default handler timeout before registering topics");
            }
        }
        this.defaultHandlerTimeout = timeout;
    }

    /**
     * Gives {@code next} the settings made on this runtime so far (the default handler timeout, the group
     * interceptors): {@code withContext} replaces the runtime, and must not drop what was configured before it.
     */
    public void copySettingsTo(ConsumerRuntime<?> next) {
        Duration timeout = defaultHandlerTimeout;
        if (timeout != null) {
            next.defaultHandlerTimeout(timeout);
        }
        synchronized (this) {
            for (HandlerInterceptor interceptor : groupInterceptors) {
                next.addInterceptor(interceptor);
            }
        }
    }

    /** A registration request from a facade; checked against the backend by {@link #register}. */
    public record Spec<T, C>(
            Topic<T> topic,
            String group,
            String metricGroup,
            ConsumerOptions options,
            int min,
            int max,
            @Nullable AutoscalerConfig autoscaler,
            DeadLetterHandling deadLetters,
            @Nullable BackendGroupSettings backendSettings,
            HandlerSpec<T, C> handlers) {}

    /** Adds a group interceptor, applied to topics registered afterwards (outside their own interceptors). */
    public synchronized void addInterceptor(HandlerInterceptor interceptor) {
        groupInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
    }

    /** Declares the topic and registers it; starts its consumers at once when the runtime runs. */
    public <T> void register(Spec<T, C> spec) {
        Topic<T> topic = spec.topic();
        check(spec);
        ConsumerPool<T, C> registration;
        synchronized (this) {
            if (state == State.STOPPED) {
                throw new IllegalStateException("cannot register topic '" + topic.name() + "': already stopped");
            }
            if (registrations.containsKey(topic.name())) {
                throw new IllegalStateException(
                        "topic '" + topic.name() + "' is already registered in this consumer group");
            }
            services.declare(topic);
            boolean broadcast = topic.isBroadcast();
            List<HandlerInterceptor> interceptors = new ArrayList<>(groupInterceptors);
            interceptors.addAll(spec.options().interceptors());
            DeliveryPipeline<T, C> pipeline = new DeliveryPipeline<>(
                    topic, spec.metricGroup(), spec.options(), context, defaultHandlerTimeout, this);
            registration = new ConsumerPool<>(
                    pipeline,
                    spec.group(),
                    spec.metricGroup(),
                    broadcast ? 1 : spec.min(),
                    broadcast ? 1 : spec.max(),
                    broadcast ? null : spec.autoscaler(),
                    broadcast ? DeadLetterHandling.NONE : spec.deadLetters(),
                    spec.backendSettings(),
                    spec.handlers(),
                    List.copyOf(interceptors),
                    this);
            registrations.put(topic.name(), registration);
            if (state == State.RUNNING) {
                registration.start();
            }
        }
    }

    /** Refuses, at registration, what the backend cannot do for this topic. */
    private void check(Spec<?, C> spec) {
        Topic<?> topic = spec.topic();
        var caps = services.capabilities();
        String backend = services.transport().name();
        if (spec.handlers() instanceof HandlerSpec.Batch<?, ?> && topic.isSequenced()) {
            throw new IllegalArgumentException(("topic '%s' is sequenced; batch handlers cannot keep per-key order"
                            + " across batches. Register a MessageHandler instead")
                    .formatted(topic.name()));
        }
        if (spec.handlers() instanceof HandlerSpec.Batch<?, ?>
                && !spec.options().interceptors().isEmpty()) {
            throw new IllegalArgumentException(("topic '%s': interceptors do not wrap batch handlers; remove them from"
                            + " this registration's options (group interceptors are skipped for batch registrations)")
                    .formatted(topic.name()));
        }
        boolean broadcastStart = topic.isBroadcast() && !spec.options().isSeeking();
        if ((spec.options().startAt().isPresent() || spec.options().isSeeking()) && !caps.seek() && !broadcastStart) {
            throw new IllegalArgumentException(("topic '%s': startAt/seeking need a backend whose subscriptions are"
                            + " logs (Kafka, Redis Streams, NATS JetStream, the in-memory broker with retention);"
                            + " the %s backend has none")
                    .formatted(topic.name(), backend));
        }
        BackendGroupSettings settings = spec.backendSettings();
        if (settings != null && !settings.backend().equals(backend)) {
            throw new IllegalArgumentException(("topic '%s': %s are settings of the %s backend, but this broker is %s;"
                            + " remove them from the ConsumerGroupConfig")
                    .formatted(topic.name(), settings.getClass().getSimpleName(), settings.backend(), backend));
        }
        if (topic.isBroadcast() && !caps.broadcast()) {
            throw new IllegalArgumentException("topic '%s' is a broadcast topic, which the %s backend does not support"
                    .formatted(topic.name(), backend));
        }
    }

    /** Declares a reply topic once per runtime (replies may go to topics nobody declared in this process). */
    @Override
    public void declareReplyTopic(Topic<?> topic) {
        if (!declaredReplyTopics.contains(topic.name())) {
            services.declare(topic);
            declaredReplyTopics.add(topic.name());
        }
    }

    public C context() {
        return context;
    }

    public synchronized void start() {
        if (state == State.STOPPED) {
            throw new IllegalStateException("this consumer group was stopped; create a new one to run again");
        }
        if (state == State.RUNNING) {
            return;
        }
        state = State.RUNNING;
        for (ConsumerPool<?, C> r : registrations.values()) {
            r.start();
        }
    }

    /**
     * Stops the runtime once. A later or concurrent call does not stop anything itself: it waits (up to its own
     * {@code drainTimeout}) for the first stop to finish and reports that stop's outcome, so that, for example,
     * {@code Broker.close()} never closes the connection under a drain that is still running.
     */
    public SupervisorOutcome stop(Duration drainTimeout) {
        Bounds.nonNegative("drain timeout", drainTimeout);
        CompletableFuture<SupervisorOutcome> done;
        List<ConsumerPool<?, C>> all;
        synchronized (this) {
            if (stopped != null) {
                done = stopped;
                all = null;
            } else {
                done = new CompletableFuture<>();
                stopped = done;
                boolean wasRunning = state == State.RUNNING;
                state = State.STOPPED;
                all = wasRunning ? new ArrayList<>(registrations.values()) : List.of();
            }
        }
        if (all == null) {
            return awaitStop(done, drainTimeout);
        }
        SupervisorOutcome outcome = new SupervisorOutcome(0, 1, false);
        try {
            outcome = drain(all, drainTimeout);
            return outcome;
        } finally {
            done.complete(outcome);
        }
    }

    private static SupervisorOutcome awaitStop(CompletableFuture<SupervisorOutcome> done, Duration drainTimeout) {
        try {
            return done.get(drainTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return new SupervisorOutcome(0, 0, true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SupervisorOutcome(0, 0, true);
        } catch (ExecutionException e) {
            return new SupervisorOutcome(0, 1, false);
        }
    }

    private SupervisorOutcome drain(List<ConsumerPool<?, C>> all, Duration drainTimeout) {
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        SupervisorOutcome outcome = SupervisorOutcome.CLEAN;
        List<Thread> stoppers = new ArrayList<>();
        SupervisorOutcome[] results = new SupervisorOutcome[all.size()];
        for (int i = 0; i < all.size(); i++) {
            int index = i;
            ConsumerPool<?, C> r = all.get(i);
            stoppers.add(Thread.ofVirtual()
                    .name("shove-stop-" + r.topic.name())
                    .start(() -> results[index] = r.stop(deadline)));
        }
        for (int i = 0; i < stoppers.size(); i++) {
            try {
                stoppers.get(i).join();
                outcome = outcome.plus(results[i]);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome = outcome.plus(new SupervisorOutcome(0, 0, true));
                break;
            }
        }
        try {
            if (!continuations.awaitIdle(deadline)) {
                log.warn("{} continuation(s) still running at the drain deadline", continuations.pending());
                outcome = outcome.plus(new SupervisorOutcome(0, 0, true));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        outcome = outcome.plus(new SupervisorOutcome(0, crashes.get(), false));
        if (outcome.timedOut()) {
            log.warn("drain timeout of {} elapsed; interrupted what was still running", drainTimeout);
        }
        onClose.accept(this);
        return outcome;
    }

    public SupervisorOutcome runUntil(CompletionStage<?> signal, Duration drainTimeout) {
        Objects.requireNonNull(signal, "signal");
        Bounds.nonNegative("drain timeout", drainTimeout);
        try {
            start();
            CountDownLatch fired = new CountDownLatch(1);
            signal.whenComplete((v, e) -> fired.countDown());
            try {
                fired.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                log.info("interrupted while waiting for the shutdown signal; draining");
            }
            return stop(drainTimeout);
        } finally {
            if (signal instanceof ShutdownSignal s) {
                s.drained();
            }
        }
    }

    public boolean scaleUp(Topic<?> topic) {
        return registration(topic).scaleUp();
    }

    public boolean scaleDown(Topic<?> topic) {
        return registration(topic).scaleDown();
    }

    public int activeConsumers(Topic<?> topic) {
        return registration(topic).activeConsumers();
    }

    public void pause(Topic<?> topic) {
        registration(topic).pause();
    }

    public void resume(Topic<?> topic) {
        registration(topic).resume();
    }

    public boolean isPaused(Topic<?> topic) {
        return registration(topic).isPaused();
    }

    public GroupHealth health() {
        List<RegistrationHealth> each = new ArrayList<>();
        boolean running;
        synchronized (this) {
            running = state == State.RUNNING;
            for (ConsumerPool<?, C> r : registrations.values()) {
                each.add(r.health(running));
            }
        }
        return new GroupHealth(running, services.connection(), each);
    }

    private synchronized ConsumerPool<?, C> registration(Topic<?> topic) {
        ConsumerPool<?, C> r = registrations.get(topic.name());
        if (r == null) {
            throw new IllegalArgumentException("topic '" + topic.name() + "' is not registered in this group");
        }
        return r;
    }

    @Override
    public void close() {
        stop(DEFAULT_DRAIN);
    }
}
