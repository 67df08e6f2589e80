package dev.shove.internal;

import dev.shove.ShoveHeaders;
import dev.shove.spi.Delivery;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * The engine's state for one delivery, from receipt until its settlement is confirmed. Its state moves once from
 * {@code PENDING} to {@code STARTED} (a worker took it) or {@code WITHDRAWN} (the transport took it back), and from
 * {@code STARTED} to {@code SETTLED}; the compare-and-set settles every race between the worker, the watchdog and the
 * drain. A settled job that went back to the broker rather than being settled by an outcome is {@code RETURNED} (a
 * state rather than a flag of its own: a job is allocated per message, and the flag made it 8 bytes larger).
 */
final class Job implements SettleCallback {
    static final int PENDING = 0;
    static final int STARTED = 1;
    static final int SETTLED = 2;
    static final int WITHDRAWN = 3;
    static final int RETURNED = 4;

    private static final VarHandle STATE;
    private static final VarHandle COUNTED_RUNS;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Job.class, "state", int.class);
            COUNTED_RUNS = MethodHandles.lookup().findVarHandle(Job.class, "countedRuns", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ConsumerEngine engine;
    final Delivery delivery;
    final @Nullable String key;

    /** {@link #retryCount} before it is read: the header is read on first use, on a worker. */
    private static final int UNREAD = -1;

    /** Retries spent: from the header, read on first use; advanced by retries waited out in place. */
    private int retryCount;

    /** Times the handler ran on this delivery in this process (in-place retries run it again). */
    int runs;

    /** When it arrived (System.nanoTime), kept for batch registrations: a batch closes maxWait after its first. */
    long arrivedNanos;

    /** When it began its latest wait in place (epoch ms), for the backlog gauges. */
    volatile long waitingSinceMillis;

    /** Told how the settlement ended (null: accepted), before any continuation; e.g. counts replies it carried. */
    @Nullable
    SettleCallback confirmation;

    /**
     * The dead-letter copy of its settlement, kept when the registration hands its own dead letters to {@code
     * handleDead} ({@link DeadLetterFeed}): offered there once the broker confirmed it.
     */
    Settlement.Copy.@Nullable ToDeadLetter deadLetter;

    /** Continuations of outcomes decided so far, run after the final settlement. */
    @Nullable
    Runnable continuation;

    @SuppressWarnings("unused") // accessed through COUNTED_RUNS
    private volatile int countedRuns;

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    /**
     * A job whose retry count is read from the delivery's headers when first asked for ({@link #retryCount()}): on the
     * worker that runs it, not on the transport's thread, which hands out every delivery and was the consumer's
     * bottleneck (reading the count decoded every header there).
     */
    Job(ConsumerEngine engine, Delivery delivery, @Nullable String key) {
        this(engine, delivery, key, UNREAD);
    }

    /** A job whose retry count is known: {@code retryCount}. */
    Job(ConsumerEngine engine, Delivery delivery, @Nullable String key, int retryCount) {
        this.engine = engine;
        this.delivery = delivery;
        this.key = key;
        this.retryCount = retryCount;
    }

    /**
     * {@return the retries the message has spent} The header is read once, by the first thread that asks (a worker,
     * or the watchdog taking over its call); a race between the two reads the same immutable headers to the same
     * value.
     */
    int retryCount() {
        int n = retryCount;
        if (n == UNREAD) {
            n = engine.wireHeaders().retryCount(delivery.headers());
            retryCount = n;
        }
        return n;
    }

    /** The message waits out a retry in place: its next run has spent {@code retries}. */
    void retryCount(int retries) {
        retryCount = retries;
    }

    /**
     * Claims the right to count the current run in the handler meters: true once per run. The metrics interceptor
     * (when the call returns) and the watchdog (when it takes the call over) race for it; the first one counts.
     */
    boolean claimCount() {
        int run = runs;
        while (true) {
            int counted = (int) COUNTED_RUNS.getVolatile(this);
            if (counted >= run) {
                return false;
            }
            if (COUNTED_RUNS.compareAndSet(this, counted, run)) {
                return true;
            }
        }
    }

    boolean start() {
        return STATE.compareAndSet(this, PENDING, STARTED);
    }

    /** Back to pending: a job that waited out a retry in place goes through the queue again. */
    void requeue() {
        STATE.setVolatile(this, PENDING);
    }

    boolean withdraw() {
        return STATE.compareAndSet(this, PENDING, WITHDRAWN);
    }

    boolean isWithdrawn() {
        return (int) STATE.getVolatile(this) == WITHDRAWN;
    }

    /** Claims the right to settle; true once, for a started or pending job. */
    boolean claimSettlement() {
        int s = (int) STATE.getVolatile(this);
        while (s == PENDING || s == STARTED) {
            if (STATE.compareAndSet(this, s, SETTLED)) {
                return true;
            }
            s = (int) STATE.getVolatile(this);
        }
        return false;
    }

    /** Marks a job whose settlement was claimed as returned to the broker rather than settled by an outcome. */
    void markReturned() {
        STATE.setVolatile(this, RETURNED);
    }

    /** Whether the job was returned to the broker rather than settled by an outcome (no continuation then). */
    boolean returned() {
        return (int) STATE.getVolatile(this) == RETURNED;
    }

    /** The message's id for logs: its {@code shove-message-id} (another producer's: capped, on one line). */
    String messageId() {
        String id = delivery.headers().get(ShoveHeaders.MESSAGE_ID);
        return id != null ? Failures.oneLine(id, Failures.MAX_ID) : delivery.deliveryId();
    }

    void addContinuation(@Nullable Runnable next) {
        if (next == null) {
            return;
        }
        Runnable first = continuation;
        continuation = first == null
                ? next
                : () -> {
                    try {
                        first.run();
                    } finally {
                        next.run();
                    }
                };
    }

    @Override
    public void settled(@Nullable Throwable failure) {
        engine.onSettled(this, failure);
    }

    @Override
    public String toString() {
        return "Job[" + delivery.queue() + " " + delivery.deliveryId() + "]";
    }
}
