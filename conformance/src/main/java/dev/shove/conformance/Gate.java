package dev.shove.conformance;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A barrier that handlers wait at until the test opens it: the way contracts hold handlers "busy" without sleeping.
 * Counts the handlers that arrived and those that were interrupted while waiting. Every gate of a test is opened when
 * the test ends, so no handler outlives its test. Thread-safe.
 */
final class Gate {
    private final CountDownLatch open = new CountDownLatch(1);
    private final AtomicInteger arrived = new AtomicInteger();
    private final AtomicInteger interrupted = new AtomicInteger();

    /**
     * Waits until the gate opens. Rethrows the interrupt (as a handler would) after counting it.
     *
     * @throws InterruptedException when the waiting thread is interrupted (a handler timeout, a drain deadline)
     */
    void pass() throws InterruptedException {
        arrived.incrementAndGet();
        try {
            open.await();
        } catch (InterruptedException e) {
            interrupted.incrementAndGet();
            throw e;
        }
    }

    /** Waits until the gate opens, ignoring interrupts: a handler that does not cooperate with cancellation. */
    void passIgnoringInterrupts() {
        arrived.incrementAndGet();
        boolean wasInterrupted = false;
        while (true) {
            try {
                open.await();
                break;
            } catch (InterruptedException e) {
                wasInterrupted = true;
            }
        }
        if (wasInterrupted) {
            interrupted.incrementAndGet();
            Thread.currentThread().interrupt();
        }
    }

    void open() {
        open.countDown();
    }

    boolean isOpen() {
        return open.getCount() == 0;
    }

    /** How many handlers reached the gate so far. */
    int arrived() {
        return arrived.get();
    }

    /** How many handlers were interrupted while waiting at the gate. */
    int interrupted() {
        return interrupted.get();
    }
}
