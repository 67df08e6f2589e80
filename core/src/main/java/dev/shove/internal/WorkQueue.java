package dev.shove.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The engine's hand-off from the transport thread to its workers: an unbounded FIFO queue whose idle takers are woken
 * one at a time. Thread-safe.
 *
 * <p><b>Why not a {@code LinkedBlockingQueue}.</b> A consumer has as many workers as its prefetch (up to thousands of
 * virtual threads), most of them idle, while deliveries arrive one by one. With a blocking queue's condition, a
 * producer signals a waiter while the woken thread still has to reacquire the lock the signaller holds, so a waiter
 * often wakes, finds the lock taken and parks again: two scheduler round trips per item. Here a waiter parks on its
 * own node outside the lock, and the wake is a plain {@code unpark} after the lock is released.
 *
 * <p><b>Wake-one cascade.</b> At most one waiter is on its way at a time ({@link #waking}): adding an item wakes a
 * waiter only if none is already waking; a woken taker that takes an item and sees more waiting wakes the next one.
 * Busy workers that come back for more take items without parking and without waking anyone. So a burst of items
 * wakes as many idle workers as it needs, one after another, and a steady trickle wakes one per item at most, never
 * a herd. A waker that gives up (interrupted, or its timed poll expired) passes the wake on, so no item waits while
 * a worker sleeps.
 */
final class WorkQueue<E> {
    /** A taker parked in {@link #take} or {@link #poll}; {@code woken} is set, under the lock, by whoever wakes it. */
    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        boolean woken;
    }

    private static final VarHandle SIZE;

    static {
        try {
            SIZE = MethodHandles.lookup().findVarHandle(WorkQueue.class, "size", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<E> items = new ArrayDeque<>();

    /**
     * {@code items.size()} as of the last change, published for {@link #looksEmpty} (written under the lock with
     * release semantics, read without it).
     */
    @SuppressWarnings("unused") // accessed through SIZE
    private int size;

    /** Parked takers; the most recent first, so a worker whose stack is still warm is woken first. */
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

    /** Whether a woken waiter has not yet come back for its item (guarded by {@link #lock}). */
    private boolean waking;

    /** Appends an item; wakes an idle taker unless one is already on its way. */
    void add(E item) {
        Thread wake;
        lock.lock();
        try {
            items.addLast(item);
            published();
            wake = wakeOneLocked();
        } finally {
            lock.unlock();
        }
        unpark(wake);
    }

    /**
     * Appends an item without waking anyone: for a taker that comes back for it at once (a worker whose settlement let
     * the transport hand over the next delivery). If more items wait when it takes one, it wakes the next taker as
     * always, so nothing waits behind a sleeping worker.
     */
    void addQuietly(E item) {
        lock.lock();
        try {
            items.addLast(item);
            published();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Appends an item and takes the oldest in one step (the item itself when the queue was empty): what {@link
     * #addQuietly} followed by a take does, with one lock instead of two and without waiting. If more items wait after
     * it, an idle taker is woken as a take would.
     */
    E addAndTakeOldest(E item) {
        E oldest;
        Thread wake = null;
        lock.lock();
        try {
            items.addLast(item);
            oldest = items.pollFirst();
            published();
            if (!items.isEmpty()) {
                wake = wakeOneLocked(); // the cascade
            }
        } finally {
            lock.unlock();
        }
        unpark(wake);
        return oldest;
    }

    /** Appends the items in order; wakes one idle taker, which wakes the next if items remain. */
    void addAll(Collection<? extends E> more) {
        if (more.isEmpty()) {
            return;
        }
        Thread wake;
        lock.lock();
        try {
            items.addAll(more);
            published();
            wake = wakeOneLocked();
        } finally {
            lock.unlock();
        }
        unpark(wake);
    }

    /** Takes the oldest item, waiting for one. */
    E take() throws InterruptedException {
        E item = poll(-1);
        if (item == null) {
            throw new AssertionError("an untimed take returned nothing");
        }
        return item;
    }

    /** Takes the oldest item, waiting up to {@code timeout} for one; null when none came. */
    @Nullable
    E poll(long timeout, TimeUnit unit) throws InterruptedException {
        return poll(Math.max(0, unit.toNanos(timeout)));
    }

    /** {@code timeoutNanos} below 0: wait without a limit. */
    private @Nullable E poll(long timeoutNanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = timeoutNanos < 0 ? 0 : System.nanoTime() + timeoutNanos;
        Waiter me = null;
        while (true) {
            E item;
            Thread wake = null;
            lock.lock();
            try {
                if (me != null && me.woken) {
                    waking = false; // this taker was the one on its way
                    me = null;
                }
                item = items.pollFirst();
                if (item != null) {
                    published();
                    if (me != null) {
                        waiters.remove(me); // took an item without being woken (a spurious return from park)
                    }
                    if (!items.isEmpty()) {
                        wake = wakeOneLocked(); // the cascade
                    }
                } else if (me == null) {
                    me = new Waiter();
                    waiters.addFirst(me);
                }
            } finally {
                lock.unlock();
            }
            if (item != null) {
                unpark(wake);
                return item;
            }
            long left = 0;
            if (timeoutNanos >= 0) {
                left = deadline - System.nanoTime();
                if (left <= 0) {
                    giveUp(me);
                    return null;
                }
            }
            if (timeoutNanos < 0) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, left);
            }
            if (Thread.interrupted()) {
                giveUp(me);
                throw new InterruptedException();
            }
        }
    }

    /** Moves up to {@code max} of the oldest items to {@code sink}, without waiting; returns how many. */
    int drainTo(Collection<? super E> sink, int max) {
        lock.lock();
        try {
            int n = 0;
            while (n < max) {
                E item = items.pollFirst();
                if (item == null) {
                    break;
                }
                sink.add(item);
                n++;
            }
            if (n > 0) {
                published();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Moves every item to {@code sink}; returns how many. */
    int drainTo(Collection<? super E> sink) {
        return drainTo(sink, Integer.MAX_VALUE);
    }

    /**
     * Removes and returns, in queue order, the items {@code which} accepts. {@code which} runs under the queue's lock
     * and may claim the item (a job's withdrawal), so a taker cannot get an item between the test and the removal.
     */
    List<E> removeIf(Predicate<? super E> which) {
        List<E> removed = new ArrayList<>();
        lock.lock();
        try {
            for (Iterator<E> it = items.iterator(); it.hasNext(); ) {
                E item = it.next();
                if (which.test(item)) {
                    it.remove();
                    removed.add(item);
                }
            }
            published();
        } finally {
            lock.unlock();
        }
        return removed;
    }

    /**
     * Whether the queue was empty at its last change, read without the lock: a hint for a caller that would otherwise
     * queue an item only to take it straight back (another thread may add an item meanwhile; the item waits for the
     * next taker, as any item does).
     */
    boolean looksEmpty() {
        return (int) SIZE.getAcquire(this) == 0;
    }

    boolean isEmpty() {
        lock.lock();
        try {
            return items.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return items.size();
        } finally {
            lock.unlock();
        }
    }

    /** Takers parked right now (for tests). */
    int waiting() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    /** Publishes the new size for {@link #looksEmpty}; under the lock, after every change of {@link #items}. */
    private void published() {
        SIZE.setRelease(this, items.size());
    }

    /** Picks the waiter to wake, unless one is already on its way; the caller unparks it after unlocking. */
    private @Nullable Thread wakeOneLocked() {
        if (waking) {
            return null;
        }
        Waiter next = waiters.pollFirst();
        if (next == null) {
            return null;
        }
        next.woken = true;
        waking = true;
        return next.thread;
    }

    /** A taker leaves without an item; if it was the one woken, the wake goes on to another when items wait. */
    private void giveUp(Waiter me) {
        Thread wake = null;
        lock.lock();
        try {
            if (me.woken) {
                waking = false;
                if (!items.isEmpty()) {
                    wake = wakeOneLocked();
                }
            } else {
                waiters.remove(me);
            }
        } finally {
            lock.unlock();
        }
        unpark(wake);
    }

    private static void unpark(@Nullable Thread thread) {
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }
}
