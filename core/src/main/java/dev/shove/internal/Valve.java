package dev.shove.internal;

import dev.shove.CircuitBreakerConfig;
import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a registration's workers may start jobs: open while it flows; shut while the application paused it, or
 * while its circuit breaker is open; one probe at a time when the breaker's open time has passed. Shared by the
 * registration's consumers (their workers ask before each job) and its pipeline (which reports each handler run).
 * Thread-safe; a lock and condition rather than a monitor, so waiting virtual threads do not pin their carriers.
 *
 * <p>The breaker: {@code consecutiveFailures} failures in a row (or a failure rate over the last {@code window}
 * runs) open it for {@code openFor}; then exactly one worker gets a probe; the probe's success closes it, its failure
 * opens it again.
 */
final class Valve {
    private static final Logger log = LoggerFactory.getLogger(Valve.class);

    /** The breaker's state, also its gauge value. */
    enum Breaker {
        CLOSED,
        OPEN,
        HALF_OPEN
    }

    private final String topic;
    private final @Nullable CircuitBreakerConfig config;
    private final boolean[] outcomes;
    private final @Nullable AtomicInteger pausedGauge;
    private final @Nullable AtomicInteger breakerGauge;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Not paused and the breaker closed: read without the lock on every job, so the usual case costs one read. */
    private volatile boolean flowing = true;

    private boolean paused;
    private Breaker breaker = Breaker.CLOSED;
    private long openUntilNanos;
    private boolean probing;
    private int consecutive;
    private int recorded;
    private int failuresInWindow;
    private int next;

    /**
     * @param pausedGauge set to 1 while paused, or null
     * @param breakerGauge set to the breaker's state (0 closed, 1 open, 2 half-open), or null
     */
    Valve(
            String topic,
            @Nullable CircuitBreakerConfig config,
            @Nullable AtomicInteger pausedGauge,
            @Nullable AtomicInteger breakerGauge) {
        this.topic = topic;
        this.config = config;
        this.pausedGauge = pausedGauge;
        this.breakerGauge = breakerGauge;
        if (pausedGauge != null) {
            pausedGauge.set(0);
        }
        if (breakerGauge != null) {
            breakerGauge.set(0);
        }
        this.outcomes = new boolean[config != null && config.failureRate() > 0 ? config.window() : 0];
    }

    /**
     * Waits until the worker may start a job: returns at once while the valve is open; while it is shut, waits until it
     * opens, or until the breaker lets this worker probe (then returns true: the worker runs one job, and hands the
     * probe back with {@link #returnProbe()} if no handler run reported on it). Interruptible: a stopping consumer
     * interrupts its workers.
     */
    boolean awaitOpen() throws InterruptedException {
        if (flowing) {
            return false;
        }
        lock.lock();
        try {
            return awaitOpenLocked();
        } finally {
            lock.unlock();
        }
    }

    private boolean awaitOpenLocked() throws InterruptedException {
        while (true) {
            if (!paused) {
                if (breaker == Breaker.CLOSED) {
                    return false;
                }
                long left = openUntilNanos - System.nanoTime();
                if (breaker == Breaker.OPEN && left <= 0) {
                    breaker = Breaker.HALF_OPEN;
                    show();
                    log.info("circuit breaker of topic '{}' lets one message probe", topic);
                }
                if (breaker == Breaker.HALF_OPEN && !probing) {
                    probing = true;
                    return true;
                }
                if (breaker == Breaker.OPEN) {
                    changed.await(Math.max(1, left), TimeUnit.NANOSECONDS);
                    continue;
                }
            }
            changed.await();
        }
    }

    /**
     * Whether jobs may start without a probe: not paused, breaker closed. Checked again after a job was taken (the
     * valve may have shut meanwhile) and before a key's next job runs inline.
     */
    boolean isFlowing() {
        return flowing;
    }

    /** Gives back a probe that was granted but not used (the worker found no job it may run). */
    void returnProbe() {
        lock.lock();
        try {
            if (breaker == Breaker.HALF_OPEN && probing) {
                probing = false;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    void pause() {
        lock.lock();
        try {
            paused = true;
            flowing = false;
            show();
        } finally {
            lock.unlock();
        }
    }

    void resume() {
        lock.lock();
        try {
            paused = false;
            flowing = breaker == Breaker.CLOSED;
            show();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isPaused() {
        lock.lock();
        try {
            return paused;
        } finally {
            lock.unlock();
        }
    }

    Breaker breaker() {
        lock.lock();
        try {
            return breaker;
        } finally {
            lock.unlock();
        }
    }

    /** Reports a handler run: a failure (it threw, returned retry, timed out) or a success. */
    void record(boolean failure) {
        if (config == null) {
            return;
        }
        lock.lock();
        try {
            if (breaker == Breaker.HALF_OPEN) {
                probing = false;
                if (failure) {
                    open("the probe failed");
                } else {
                    breaker = Breaker.CLOSED;
                    flowing = !paused;
                    show();
                    consecutive = 0;
                    clearWindow();
                    log.info("circuit breaker of topic '{}' closed: the probe succeeded", topic);
                }
                changed.signalAll();
                return;
            }
            if (breaker != Breaker.CLOSED) {
                return; // a run that started before the breaker opened
            }
            consecutive = failure ? consecutive + 1 : 0;
            if (outcomes.length > 0) {
                if (recorded == outcomes.length && outcomes[next]) {
                    failuresInWindow--;
                }
                outcomes[next] = failure;
                failuresInWindow += failure ? 1 : 0;
                next = (next + 1) % outcomes.length;
                recorded = Math.min(recorded + 1, outcomes.length);
            }
            if (consecutive >= config.consecutiveFailures()) {
                open(consecutive + " failures in a row");
            } else if (recorded == outcomes.length
                    && outcomes.length > 0
                    && failuresInWindow >= config.failureRate() * outcomes.length) {
                open(failuresInWindow + " failures in the last " + outcomes.length + " runs");
            }
        } finally {
            lock.unlock();
        }
    }

    private void open(String why) {
        CircuitBreakerConfig c = config;
        if (c == null) {
            return;
        }
        breaker = Breaker.OPEN;
        flowing = false;
        show();
        openUntilNanos = System.nanoTime() + c.openFor().toNanos();
        consecutive = 0;
        clearWindow();
        log.warn(
                "circuit breaker of topic '{}' opened after {}; no message is handed out for {}, then one probes",
                topic,
                why,
                DurationText.of(c.openFor()));
    }

    /** Updates the gauges; called with the lock held after every change. */
    private void show() {
        if (pausedGauge != null) {
            pausedGauge.set(paused ? 1 : 0);
        }
        if (breakerGauge != null) {
            breakerGauge.set(breaker.ordinal());
        }
    }

    private void clearWindow() {
        recorded = 0;
        failuresInWindow = 0;
        next = 0;
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "Valve[" + topic + (paused ? ", paused" : "") + ", breaker=" + breaker + "]";
        } finally {
            lock.unlock();
        }
    }

    /** How long the breaker stays open from now; zero when it is not open. */
    Duration openFor() {
        lock.lock();
        try {
            return breaker == Breaker.OPEN
                    ? Duration.ofNanos(Math.max(0, openUntilNanos - System.nanoTime()))
                    : Duration.ZERO;
        } finally {
            lock.unlock();
        }
    }
}
