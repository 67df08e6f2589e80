package dev.shove.conformance;

import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A handler that records every call of {@code handle} and {@code handleDead} and answers with a behaviour given by the
 * test. Also tracks how many calls run at once. One recorder can serve every consumer of a registration ({@link
 * #factory()} tells them apart). Thread-safe.
 *
 * @param <T> the message type
 */
final class Recorder<T> implements MessageHandler<T, Object> {

    /** What the handler does with one call. */
    @FunctionalInterface
    interface Behaviour<T> {
        /**
         * @param attempt how many times this message (by {@code shove-message-id}) was handled before, from 0
         */
        @Nullable
        Outcome apply(T message, MessageMetadata metadata, int attempt) throws Exception;
    }

    /** What {@code handleDead} does after recording the dead letter. */
    @FunctionalInterface
    interface DeadBehaviour<T> {
        void apply(T message, DeadMessageMetadata metadata) throws Exception;
    }

    /** One call of {@code handle}. */
    record Call<T>(T message, MessageMetadata metadata, int attempt, int consumer, long startNanos, Object context) {
        int retryCount() {
            return metadata.retryCount();
        }

        String messageId() {
            return metadata.messageId().orElse("");
        }
    }

    /** One call of {@code handleDead}. */
    record Death<T>(T message, DeadMessageMetadata metadata, Object context) {
        String reason() {
            return metadata.reason();
        }

        int retryCount() {
            return metadata.message().retryCount();
        }
    }

    private final Harness<?> harness;
    private final Behaviour<T> behaviour;
    private final DeadBehaviour<T> deadBehaviour;
    private final List<Call<T>> calls = new CopyOnWriteArrayList<>();
    private final List<Death<T>> deaths = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();
    private final AtomicInteger consumers = new AtomicInteger();

    Recorder(Harness<?> harness, Behaviour<T> behaviour, DeadBehaviour<T> deadBehaviour) {
        this.harness = harness;
        this.behaviour = behaviour;
        this.deadBehaviour = deadBehaviour;
    }

    @Override
    public Outcome handle(T message, MessageMetadata metadata, Object context) throws Exception {
        return handle(message, metadata, context, 0);
    }

    @Override
    public void handleDead(T message, DeadMessageMetadata metadata, Object context) throws Exception {
        deaths.add(new Death<>(message, metadata, context));
        deadBehaviour.apply(message, metadata);
    }

    private Outcome handle(T message, MessageMetadata metadata, Object context, int consumer) throws Exception {
        int attempt = attempts.computeIfAbsent(
                        metadata.messageId().orElse(metadata.deliveryId()), id -> new AtomicInteger())
                .getAndIncrement();
        calls.add(new Call<>(message, metadata, attempt, consumer, System.nanoTime(), context));
        int now = running.incrementAndGet();
        maxRunning.accumulateAndGet(now, Math::max);
        try {
            return behaviour.apply(message, metadata, attempt);
        } finally {
            running.decrementAndGet();
        }
    }

    /**
     * A handler factory whose every handler records here, tagged with its own consumer number (0, 1, ...): for
     * registrations with several consumers.
     */
    Supplier<MessageHandler<T, Object>> factory() {
        return () -> {
            int consumer = consumers.getAndIncrement();
            Recorder<T> recorder = this;
            return new MessageHandler<T, Object>() {
                @Override
                public Outcome handle(T message, MessageMetadata metadata, Object context) throws Exception {
                    return recorder.handle(message, metadata, context, consumer);
                }

                @Override
                public void handleDead(T message, DeadMessageMetadata metadata, Object context) throws Exception {
                    recorder.handleDead(message, metadata, context);
                }
            };
        };
    }

    /** Every call so far, in the order they started. */
    List<Call<T>> calls() {
        return List.copyOf(calls);
    }

    /** The calls for which {@code which} holds. */
    List<Call<T>> calls(Predicate<? super T> which) {
        return calls.stream().filter(c -> which.test(c.message())).toList();
    }

    /** Every dead letter passed to {@code handleDead} so far. */
    List<Death<T>> deaths() {
        return List.copyOf(deaths);
    }

    /** The retry counts of every call, in order. */
    List<Integer> retryCounts() {
        return calls.stream().map(Call::retryCount).toList();
    }

    /** The messages of every call, in order. */
    List<T> messages() {
        return calls.stream().map(Call::message).toList();
    }

    /** How many handlers run right now. */
    int running() {
        return running.get();
    }

    /** The most handlers that ever ran at once. */
    int maxRunning() {
        return maxRunning.get();
    }

    /** Waits (up to the patience) until at least {@code n} calls were made; returns them. */
    List<Call<T>> awaitCalls(int n) {
        harness.await(() -> "%d handler call(s), saw %d".formatted(n, calls.size()), () -> calls.size() >= n);
        return calls();
    }

    /** Waits (up to the patience) until at least {@code n} dead letters reached {@code handleDead}; returns them. */
    List<Death<T>> awaitDeaths(int n) {
        harness.await(() -> "%d dead letter(s), saw %d".formatted(n, deaths.size()), () -> deaths.size() >= n);
        return deaths();
    }

    /** Checks that the number of calls stays at {@code n} for the quiet period. */
    void assertNoMoreCalls(int n) {
        harness.assertStays("exactly %d handler call(s)".formatted(n), () -> calls.size() == n);
    }

    /** Checks that the number of dead letters stays at {@code n} for the quiet period. */
    void assertNoMoreDeaths(int n) {
        harness.assertStays("exactly %d dead letter(s)".formatted(n), () -> deaths.size() == n);
    }
}
