package dev.shove.internal;

import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A worker virtual thread of one consumer, and its watchdog slot: it calls handlers under their deadline ({@link
 * #invoke}) and keeps the last call's result for the flow that made it. Used by its own thread only, except the slot
 * (shared with the watchdog and the drain) and {@link #retired}.
 */
final class Worker {
    /** A handler call. */
    @FunctionalInterface
    interface Call {
        @Nullable
        Object call() throws Exception;
    }

    /** The worker whose thread this is, on a worker's thread; empty elsewhere. */
    private static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    final Watchdog.Slot slot;
    /** The consumer whose worker this is. */
    final Watchdog.Owner owner;

    private final Thread thread;
    private final long timeoutNanos;
    private final Watchdog.Group watched;
    private final Runnable idle;

    /** Set when the worker must stop taking jobs (its call was taken over, or the consumer stops). */
    volatile boolean retired;

    /** What the last call returned; null when it threw. */
    @Nullable
    Object result;

    /** What the last call threw, or null. */
    @Nullable
    Throwable error;

    /** How long the last call ran. */
    long nanos;

    /**
     * The worker's last handler call, which its next call of the same chain reuses (the chain's use, {@link
     * InterceptorChain#callOf}) so that a message costs no call object.
     */
    @Nullable
    Object scratchCall;

    /**
     * The job this worker runs next without a queue hop (engine's use): sequenced, the next job of the key whose job it
     * just settled; unsequenced, when its settlement let the transport hand over a delivery on this thread, the
     * oldest job of the ready queue with that delivery appended (that delivery itself when the queue was empty).
     */
    @Nullable
    Job inlineNext;

    /**
     * Set while this worker settles a job after which it goes straight back to the consumer's ready queue: a delivery
     * the settlement lets the transport hand over on this thread is queued without waking another worker, since this
     * one takes it next (engine's use; the worker's own thread only).
     */
    boolean takesNext;

    /**
     * @param watched the consumer's group of watched slots, which counts its handlers in progress
     * @param idle told after each call, so that a drain waiting for quiet looks again
     * @param loop the consumer's worker loop, run on the new thread
     */
    Worker(
            String name,
            Watchdog.Owner owner,
            long timeoutNanos,
            Watchdog.Group watched,
            Runnable idle,
            Consumer<Worker> loop) {
        this.slot = new Watchdog.Slot(owner);
        this.owner = owner;
        this.timeoutNanos = timeoutNanos;
        this.watched = watched;
        this.idle = idle;
        this.thread = Thread.ofVirtual().name("shove-" + name).unstarted(() -> {
            CURRENT.set(this);
            loop.accept(this);
        });
    }

    /**
     * The calling thread's worker when it is a worker of {@code owner} that is settling a job and takes the next one
     * right after ({@link #takesNext}); null otherwise.
     */
    static @Nullable Worker takingNextOf(Watchdog.Owner owner) {
        Worker w = CURRENT.get();
        return w != null && w.owner == owner && w.takesNext ? w : null;
    }

    void start() {
        thread.start();
    }

    void interrupt() {
        thread.interrupt();
    }

    /**
     * Calls a handler under the deadline, keeping its result in {@link #result}, {@link #error} and {@link #nanos}.
     * Returns false when the call was taken over (deadline or shutdown): the caller must then drop the result, and
     * this worker retires, replaced by a fresh one. {@code token} is what a takeover hands back: the job, or the list
     * of jobs of a batch.
     */
    boolean invoke(Object token, Call call) {
        watched.started(); // counts it for the drain, the watchdog and the in-flight gauge
        long start = System.nanoTime();
        slot.arm(token, start, timeoutNanos);
        result = null;
        error = null;
        try {
            result = call.call();
        } catch (Throwable t) {
            error = t;
        }
        nanos = System.nanoTime() - start;
        boolean mine = slot.disarm();
        watched.ended();
        if (Thread.currentThread().isInterrupted()) {
            // A late interrupt must not leak into the next message. Checked first: clearing takes a lock on a
            // virtual thread, which cost ~10% of a worker's time when done on every message.
            Thread.interrupted();
        }
        if (!mine) {
            retired = true;
        }
        idle.run();
        return mine;
    }
}
