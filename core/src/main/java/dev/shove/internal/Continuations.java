package dev.shove.internal;

import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs post-settle continuations on virtual threads, off the delivery path, and lets shutdown wait for the ones
 * still running. A continuation that throws is logged; it never affects its message. At most {@link #MAX_RUNNING}
 * run at once: a submission beyond that waits for one to end, which slows the settling consumer instead of starting
 * threads without bound (nothing is dropped).
 */
final class Continuations {
    private static final Logger log = LoggerFactory.getLogger(Continuations.class);

    /** The most continuations running at once. */
    static final int MAX_RUNNING = 10_000;

    private final Semaphore slots = new Semaphore(MAX_RUNNING);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private int pending;

    public void submit(Runnable continuation, String topic, String messageId) {
        slots.acquireUninterruptibly();
        lock.lock();
        try {
            pending++;
        } finally {
            lock.unlock();
        }
        Thread.ofVirtual().name("shove-continuation-" + topic).start(() -> {
            try {
                continuation.run();
            } catch (Throwable t) {
                log.warn(
                        "continuation of message {} on topic '{}' failed; the message stays settled",
                        messageId,
                        topic,
                        t);
            } finally {
                slots.release();
                lock.lock();
                try {
                    if (--pending == 0) {
                        idle.signalAll();
                    }
                } finally {
                    lock.unlock();
                }
            }
        });
    }

    /** Waits until no continuation runs, or the deadline ({@link System#nanoTime()} based) passes; true if drained. */
    public boolean awaitIdle(long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (pending > 0) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                idle.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    public int pending() {
        lock.lock();
        try {
            return pending;
        } finally {
            lock.unlock();
        }
    }
}
