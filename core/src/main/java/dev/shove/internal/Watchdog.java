package dev.shove.internal;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces handler deadlines for every consumer of a broker from one daemon thread. Each worker owns a {@link Slot}
 * that it arms before calling a handler and disarms after; the watchdog scans the slots every few milliseconds and
 * takes over any slot past its deadline. This costs the delivery path one volatile write and one compare-and-set
 * instead of a timer per message.
 *
 * <p>Slots are watched in {@link Group}s, one per consumer, each with the consumer's count of handlers in progress: a
 * group whose count is 0 has no armed slot (a worker counts its call before it arms and after it disarms) and is
 * skipped whole, so idle consumers cost the scan one read each, however many workers they have. When no group has a
 * handler in progress the watchdog parks until one starts ({@link Group#started()} wakes it), so a broker whose
 * consumers are all idle costs no CPU here.
 */
final class Watchdog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);
    private static final long TICK_NANOS = 5_000_000L;

    private final CopyOnWriteArrayList<Group> groups = new CopyOnWriteArrayList<>();
    /** Slots registered one by one, outside any consumer's group: scanned on every tick. */
    private final Group loose = new Group(null);

    private final Thread thread;
    private volatile boolean closed;
    /**
     * Set by the watchdog before it parks for want of work, then checked again; cleared by the one waker that wins it,
     * or by the watchdog once it runs. A handler that starts counts itself first and reads this after, so either it
     * sees the flag and wakes the watchdog, or the watchdog sees its count and does not park (both are volatile: one
     * of the two must see the other's write).
     */
    private final AtomicBoolean idle = new AtomicBoolean();
    /** How many times a waker unparked the idle watchdog (for tests). */
    private final AtomicLong wakeups = new AtomicLong();

    Watchdog(String name) {
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
        groups.add(loose);
        this.thread.start();
    }

    /** Watches one slot on every tick, whatever runs. */
    public void register(Slot slot) {
        loose.add(slot);
        wake();
    }

    public void unregister(Slot slot) {
        loose.remove(slot);
    }

    /**
     * A group for the slots of one consumer, skipped while {@code running} (its count of handlers in progress,
     * incremented before a slot is armed and decremented after it is disarmed) is 0; watched once {@link #watch}ed.
     */
    public static Group group(AtomicInteger running) {
        return new Group(running);
    }

    /** Starts watching a consumer's slots (again, after {@link #remove}); watching it twice changes nothing. */
    public void watch(Group group) {
        group.watchdog = this;
        groups.addIfAbsent(group);
        wake();
    }

    /** Stops watching a consumer's slots. */
    public void remove(Group group) {
        groups.remove(group);
    }

    private void run() {
        while (!closed) {
            LockSupport.parkNanos(TICK_NANOS);
            if (!scan(System.nanoTime())) {
                idle.set(true);
                if (!busy() && !closed) {
                    LockSupport.park(this); // until a handler starts, a slot is registered or the watchdog closes
                }
                idle.set(false);
            }
        }
    }

    /** Takes over every overdue slot; false if no group had a handler in progress (nothing to watch). */
    private boolean scan(long now) {
        boolean busy = false;
        for (Group group : groups) {
            if (!group.isBusy()) {
                continue;
            }
            busy = true;
            for (Slot slot : group.slots) {
                if (slot.isOverdue(now) && slot.takeOver()) {
                    try {
                        slot.owner.timedOut(slot);
                    } catch (RuntimeException | Error e) {
                        log.error("shove internal error while timing out a handler", e);
                    }
                }
            }
        }
        return busy;
    }

    private boolean busy() {
        for (Group group : groups) {
            if (group.isBusy()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Wakes the watchdog if it parked for want of work. Only the first of the handlers that start while it is idle
     * unparks it: on a busy consumer with short handlers every few milliseconds find it idle, and the handlers that
     * start before it runs again would each unpark it (a system call apiece) for nothing.
     */
    void wake() {
        if (idle.get() && idle.compareAndSet(true, false)) {
            wakeups.incrementAndGet();
            LockSupport.unpark(thread);
        }
    }

    /** {@return whether the watchdog is parked (or about to park) because no handler is in progress} For tests. */
    boolean isIdle() {
        return idle.get();
    }

    /** {@return how many times a waker unparked the idle watchdog} For tests. */
    long wakeups() {
        return wakeups.get();
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }

    /** The slots of one consumer's workers, and its count of handlers in progress. */
    public static final class Group {
        private final @Nullable AtomicInteger running;
        private final CopyOnWriteArrayList<Slot> slots = new CopyOnWriteArrayList<>();
        private volatile @Nullable Watchdog watchdog;

        private Group(@Nullable AtomicInteger running) {
            this.running = running;
        }

        /**
         * A handler of this consumer starts: counted before its slot is armed, and the watchdog woken if it parked.
         * A group without a count (the loose slots) has nothing to count.
         */
        public void started() {
            if (running != null) {
                running.incrementAndGet();
            }
            Watchdog w = watchdog;
            if (w != null) {
                w.wake();
            }
        }

        /** A handler of this consumer ended: counted after its slot is disarmed. */
        public void ended() {
            if (running != null) {
                running.decrementAndGet();
            }
        }

        /** Loose slots are always watched while there are any; a consumer's only while a handler is in progress. */
        private boolean isBusy() {
            return running == null ? !slots.isEmpty() : running.get() > 0;
        }

        /** Watches a worker's slot. */
        public void add(Slot slot) {
            slots.add(slot);
        }

        /** Stops watching a worker's slot. */
        public void remove(Slot slot) {
            slots.remove(slot);
        }
    }

    /** What the watchdog calls when a slot's deadline passes. */
    public interface Owner {
        /** The slot's handler is past its deadline and the slot was taken over: apply the timeout. */
        void timedOut(Slot slot);
    }

    /**
     * One worker's handler in progress. Armed by the worker, disarmed by the worker, or taken over once by the
     * watchdog (deadline) or the drain (shutdown): whoever wins the compare-and-set settles the message.
     */
    public static final class Slot {
        private static final int IDLE = 0;
        private static final int RUNNING = 1;
        private static final int TAKEN = 2;

        final Owner owner;
        private final AtomicInteger state = new AtomicInteger(IDLE);
        // No clock value can mean "no deadline": nanoTime may be negative, and the overflow-safe comparison
        // now - deadline > 0 would call Long.MAX_VALUE overdue at such times. Hence the flag.
        //
        // Plain fields, written by the worker before the volatile write of state that arms the slot and read by
        // other threads only after they read state: that write publishes them. A slot is armed once per message,
        // and volatile fields cost a full fence each on the way in.
        private boolean timed;
        private long deadline;
        private long startNanos;
        private @Nullable Object job;
        private @Nullable Thread thread;

        public Slot(Owner owner) {
            this.owner = owner;
        }

        /** Marks a handler call as started on the current thread, now; {@code timeoutNanos <= 0} means no deadline. */
        public void arm(Object job, long timeoutNanos) {
            arm(job, System.nanoTime(), timeoutNanos);
        }

        /**
         * Marks a handler call as started on the current thread at {@code startNanos} ({@link System#nanoTime}, which
         * the caller has just read); {@code timeoutNanos <= 0} means no deadline.
         */
        public void arm(Object job, long startNanos, long timeoutNanos) {
            this.job = job;
            this.thread = Thread.currentThread();
            this.timed = timeoutNanos > 0;
            this.deadline = timeoutNanos > 0 ? startNanos + timeoutNanos : 0;
            this.startNanos = startNanos;
            state.set(RUNNING);
        }

        /** Marks the handler call as finished; false if the watchdog or the drain took it over meanwhile. */
        public boolean disarm() {
            return state.compareAndSet(RUNNING, IDLE);
        }

        /** Takes a running handler away from its worker; true for exactly one caller. Interrupts the handler. */
        public boolean takeOver() {
            if (!state.compareAndSet(RUNNING, TAKEN)) {
                return false;
            }
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            }
            return true;
        }

        public boolean isRunning() {
            return state.get() == RUNNING;
        }

        /**
         * Whether a call armed here has not returned yet: running, or taken over and still inside the handler (one
         * that ignores its interrupt). A worker whose call was taken over never arms its slot again.
         */
        boolean isInCall() {
            return state.get() != IDLE;
        }

        /**
         * When the call armed last started ({@link System#nanoTime}). For its own worker at any time; for another
         * thread, after {@link #isInCall} or {@link #isRunning} said it is in progress.
         */
        long startNanos() {
            return startNanos;
        }

        boolean isOverdue(long now) {
            return state.get() == RUNNING && timed && now - deadline > 0;
        }

        /** The job armed last (the one taken over, after {@link #takeOver()}). */
        public @Nullable Object job() {
            return job;
        }
    }
}
