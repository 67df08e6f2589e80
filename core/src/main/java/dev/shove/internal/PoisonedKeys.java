package dev.shove.internal;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The keys of a {@code FAIL_ALL} sequenced registration whose sequence failed: their later messages are dead-lettered
 * unhandled. Bounded two ways, so that a long-lived registration does not collect keys for ever: a key is forgotten
 * {@code grace} after its lane drained (no message of it left in the consumer), the grace catching messages of the
 * key still on their way from the broker; and past {@code maxKeys} the longest-idle key goes first. The count is
 * shown in a gauge. Thread-safe.
 */
final class PoisonedKeys {
    private static final long ACTIVE = Long.MAX_VALUE;

    private final long graceNanos;
    private final int maxKeys;
    private final LongSupplier nanoTime;
    private final AtomicInteger gauge;
    /** Key to when it is forgotten (System.nanoTime), or ACTIVE while its lane still holds messages. */
    private final LinkedHashMap<String, Long> keys = new LinkedHashMap<>(16, 0.75f, true);

    PoisonedKeys(long graceNanos, int maxKeys, LongSupplier nanoTime, AtomicInteger gauge) {
        this.graceNanos = graceNanos;
        this.maxKeys = maxKeys;
        this.nanoTime = nanoTime;
        this.gauge = gauge;
    }

    /** Poisons {@code key}; true when it was not poisoned already. */
    synchronized boolean poison(String key) {
        Long before = keys.put(key, ACTIVE);
        if (keys.size() > maxKeys) {
            evictOne();
        }
        gauge.set(keys.size());
        return before == null || before != ACTIVE && before - nanoTime.getAsLong() <= 0;
    }

    /** Whether {@code key} is poisoned now. */
    synchronized boolean contains(String key) {
        Long until = keys.get(key);
        if (until == null) {
            return false;
        }
        if (until != ACTIVE && until - nanoTime.getAsLong() <= 0) {
            keys.remove(key);
            gauge.set(keys.size());
            return false;
        }
        keys.put(key, ACTIVE); // a message of it arrived: its lane is busy again
        return true;
    }

    /** {@code key}'s lane drained: it is forgotten after the grace period unless another message of it comes. */
    synchronized void drained(String key) {
        keys.computeIfPresent(key, (k, until) -> nanoTime.getAsLong() + graceNanos);
    }

    synchronized int size() {
        return keys.size();
    }

    private void evictOne() {
        long now = nanoTime.getAsLong();
        for (Iterator<Map.Entry<String, Long>> it = keys.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Long> e = it.next();
            if (e.getValue() != ACTIVE && e.getValue() - now <= 0) {
                it.remove();
                return;
            }
        }
        Iterator<String> eldest = keys.keySet().iterator(); // the least recently used
        eldest.next();
        eldest.remove();
    }
}
