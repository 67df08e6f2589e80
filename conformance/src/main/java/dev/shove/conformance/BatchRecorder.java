package dev.shove.conformance;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOutcome;
import dev.shove.DeadMessageMetadata;
import dev.shove.Envelope;
import dev.shove.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * A batch handler that records every batch and every call of {@code handleDead}, and answers with a behaviour given
 * by the test: the batch counterpart of {@link Recorder}. Thread-safe.
 *
 * @param <T> the message type
 */
final class BatchRecorder<T> implements BatchMessageHandler<T, Object> {

    /** What the handler does with one batch. */
    @FunctionalInterface
    interface Behaviour<T> {
        @Nullable
        BatchOutcome apply(Batch<T> batch) throws Exception;
    }

    /**
     * One call of {@code handle}.
     *
     * @param envelopes the batch as the handler received it
     * @param attempts for each message, how many times it was handled before (by {@code shove-message-id}), from 0
     * @param call how many batches were handled before this one, from 0
     */
    record Batch<T>(List<Envelope<T>> envelopes, List<Integer> attempts, int call, long startNanos, Object context) {
        int size() {
            return envelopes.size();
        }

        List<T> messages() {
            return envelopes.stream().map(Envelope::message).toList();
        }

        /** One outcome per message, from its envelope and attempt. */
        BatchOutcome each(BiFunction<Envelope<T>, Integer, Outcome> outcome) {
            List<Outcome> outcomes = new ArrayList<>(envelopes.size());
            for (int i = 0; i < envelopes.size(); i++) {
                outcomes.add(outcome.apply(envelopes.get(i), attempts.get(i)));
            }
            return BatchOutcome.each(outcomes);
        }
    }

    private final Harness<?> harness;
    private final Behaviour<T> behaviour;
    private final List<Batch<T>> batches = new CopyOnWriteArrayList<>();
    private final List<Envelope<T>> envelopes = new CopyOnWriteArrayList<>();
    private final List<Recorder.Death<T>> deaths = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();

    BatchRecorder(Harness<?> harness, Behaviour<T> behaviour) {
        this.harness = harness;
        this.behaviour = behaviour;
    }

    @Override
    public BatchOutcome handle(List<Envelope<T>> batch, Object context) throws Exception {
        List<Integer> seen = new ArrayList<>(batch.size());
        for (Envelope<T> e : batch) {
            String id = e.metadata().messageId().orElse(e.metadata().deliveryId());
            seen.add(attempts.computeIfAbsent(id, k -> new AtomicInteger()).getAndIncrement());
        }
        Batch<T> recorded =
                new Batch<>(List.copyOf(batch), List.copyOf(seen), calls.getAndIncrement(), System.nanoTime(), context);
        batches.add(recorded);
        envelopes.addAll(batch);
        int now = running.incrementAndGet();
        maxRunning.accumulateAndGet(now, Math::max);
        try {
            return behaviour.apply(recorded);
        } finally {
            running.decrementAndGet();
        }
    }

    @Override
    public void handleDead(T message, DeadMessageMetadata metadata, Object context) {
        deaths.add(new Recorder.Death<>(message, metadata, context));
    }

    /** Every batch so far, in the order they started. */
    List<Batch<T>> batches() {
        return List.copyOf(batches);
    }

    /** Every message handled so far, batch after batch. */
    List<Envelope<T>> envelopes() {
        return List.copyOf(envelopes);
    }

    /** The messages handled so far, batch after batch. */
    List<T> messages() {
        return envelopes.stream().map(Envelope::message).toList();
    }

    /** The handling of {@code message} so far, in order. */
    List<Envelope<T>> envelopesOf(T message) {
        return envelopes.stream().filter(e -> e.message().equals(message)).toList();
    }

    List<Recorder.Death<T>> deaths() {
        return List.copyOf(deaths);
    }

    int running() {
        return running.get();
    }

    int maxRunning() {
        return maxRunning.get();
    }

    /** Waits (up to the patience) until at least {@code n} batches were handled; returns them. */
    List<Batch<T>> awaitBatches(int n) {
        harness.await(() -> "%d batch(es), saw %d".formatted(n, batches.size()), () -> batches.size() >= n);
        return batches();
    }

    /** Waits (up to the patience) until at least {@code n} messages were handled, over any number of batches. */
    List<Envelope<T>> awaitMessages(int n) {
        harness.await(
                "%d message(s) handled in batches, saw %d".formatted(n, envelopes.size()), () -> envelopes.size() >= n);
        return envelopes();
    }

    /** Waits (up to the patience) until at least {@code n} dead letters reached {@code handleDead}; returns them. */
    List<Recorder.Death<T>> awaitDeaths(int n) {
        harness.await(() -> "%d dead letter(s), saw %d".formatted(n, deaths.size()), () -> deaths.size() >= n);
        return deaths();
    }

    /** Checks that the number of handled messages stays at {@code n} for the quiet period. */
    void assertNoMoreMessages(int n) {
        harness.assertStays("exactly %d message(s) handled in batches".formatted(n), () -> envelopes.size() == n);
    }

    /** Checks that the number of dead letters stays at {@code n} for the quiet period. */
    void assertNoMoreDeaths(int n) {
        harness.assertStays("exactly %d dead letter(s)".formatted(n), () -> deaths.size() == n);
    }
}
