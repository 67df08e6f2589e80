package dev.shove.kafka;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Lets the poll thread of one {@code KafkaConsumer} block in a long {@code poll} while it has nothing to do, and lets
 * any other thread cut that poll short when it hands the poll thread work ({@link #wake}). Used by {@link
 * KafkaSubscription} (an idle consumer polls for {@link #IDLE_POLL_TIMEOUT}, not 100 ms) and {@link HoldRelay}. Every
 * method but {@link #wake} (any thread) and {@link #wakeups} is for the poll thread.
 *
 * <p>Why a handshake, and not a plain {@code consumer.wakeup()} from the thread that queues the work: a wake-up is
 * sticky. If no {@code poll} is under way, the next blocking call on the consumer ({@code poll}, {@code commitSync},
 * {@code committed}, {@code position}, {@code offsetsForTimes}, {@code close}'s revocation callback...) throws
 * {@link WakeupException} instead, wherever the poll thread happens to be, and half of those calls sit in code that
 * must not fail (a commit before partitions are let go). So a wake-up is only ever issued while the poll thread is
 * inside a long poll, at most one per long poll, and none is left pending when the long poll ends. The state ({@code
 * BUSY}, {@code POLLING}, {@code WAKING}, {@code WOKEN}) moves:
 *
 * <ul>
 *   <li>{@code BUSY → POLLING}: the poll thread, just before the long poll; then it checks once more that it is idle
 *       (if work came in between, it polls with a zero timeout instead). A thread that hands over work queues it
 *       first and calls {@link #wake} after, and the poll thread arms first and checks the queues after, so one of
 *       the two always sees the other (both are volatile accesses): either the waker sees {@code POLLING} and wakes,
 *       or the poll thread sees the work and does not block.
 *   <li>{@code POLLING → WAKING → WOKEN}: one waker wins the compare-and-set, calls {@code consumer.wakeup()}, then
 *       says it has. Every other waker of that long poll sees a state other than {@code POLLING} and does nothing:
 *       one wake-up per long poll, however many settlements arrive.
 *   <li>{@code POLLING → BUSY} (the poll ended with nobody waking it: no wake-up issued) or {@code WOKEN → BUSY}: the
 *       poll thread, after the poll. In the second case it first waits out {@code WAKING} (the waker is between the
 *       compare-and-set and its {@code wakeup()} call, a few instructions), and if the poll returned normally the
 *       wake-up may still be pending, so it consumes it with a {@code poll(0)} (which checks for a wake-up before it
 *       does anything; should the wake-up have been consumed meanwhile, it is an ordinary zero poll whose records
 *       are kept).
 * </ul>
 *
 * <p>So outside a long poll no wake-up is ever pending (but after a poll that failed: the poll thread then shuts down
 * through the retried calls below, and the classic consumer's {@code close} disables wake-ups), and nothing but the
 * poll itself sees one, with one exception: the group's rebalance callbacks run inside {@code poll}, and their
 * blocking calls (a commit of the revoked partitions, reading committed offsets, resolving a start position) can meet
 * the one wake-up of that long poll. Those calls go through {@link #retryWoken}, which calls again once: a second
 * {@link WakeupException} cannot happen (no second wake-up is issued in the same long poll) and would be a bug, so it
 * is thrown.
 *
 * <p>Why {@value #IDLE_POLL_SECONDS} s: the wake-ups make the timeout irrelevant for latency (settlements, seeks,
 * pauses and close all wake the poll), and the client keeps fetching (every {@code fetch.max.wait.ms}), heartbeating
 * and rebalancing inside a long poll, so group liveness does not depend on it either. It bounds how long a missed
 * wake-up (a bug) could delay work, keeps the loop's periodic checks (the stall watch) running, and is far below
 * the default {@code max.poll.interval.ms} of 300 s; the loop's own wake-ups drop fifty-fold from every 100 ms.
 */
final class PollWaker {
    private static final int IDLE_POLL_SECONDS = 5;

    /** How long an idle poll thread blocks in {@code poll} when nobody wakes it. */
    static final Duration IDLE_POLL_TIMEOUT = Duration.ofSeconds(IDLE_POLL_SECONDS);

    private static final int BUSY = 0;
    private static final int POLLING = 1;
    private static final int WAKING = 2;
    private static final int WOKEN = 3;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final AtomicInteger state = new AtomicInteger(BUSY);
    private final AtomicLong wakeups = new AtomicLong();

    PollWaker(KafkaConsumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
    }

    /**
     * Cuts the poll thread's long poll short, if it is in one and nobody has yet; otherwise does nothing (the poll
     * thread is busy, or polls briefly, and looks at its work next). Any thread; call it after queueing the work.
     */
    void wake() {
        if (state.get() == POLLING && state.compareAndSet(POLLING, WAKING)) {
            try {
                consumer.wakeup();
                wakeups.incrementAndGet();
            } finally {
                state.set(WOKEN);
            }
        }
    }

    /** How many long polls were cut short so far (for tests and diagnostics). */
    long wakeups() {
        return wakeups.get();
    }

    /**
     * Polls for up to {@code timeout}, unless {@code idle} says there is work once the waker is armed (then for zero),
     * and hands what was fetched to {@code sink}; returns early when {@link #wake} is called. Throws no {@link
     * WakeupException}, and leaves no wake-up pending. Poll thread.
     */
    void longPoll(Duration timeout, BooleanSupplier idle, Consumer<ConsumerRecords<byte[], byte[]>> sink) {
        state.set(POLLING);
        Duration wait = idle.getAsBoolean() ? timeout : Duration.ZERO;
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(wait);
        } catch (WakeupException e) {
            disarm(); // the one wake-up of this long poll, consumed
            return;
        } catch (RuntimeException | Error e) {
            // The poll thread fails and shuts down: a wake-up may be left pending, which the retried calls of its
            // shutdown absorb (retryWoken); close() ignores wake-ups.
            disarm();
            throw e;
        }
        sink.accept(records);
        if (disarm()) {
            try {
                sink.accept(consumer.poll(Duration.ZERO)); // normally throws at once: consumes the wake-up
            } catch (WakeupException e) {
                // consumed: nothing is pending any more
            }
        }
    }

    /**
     * Ends a long poll: back to {@code BUSY}, after waiting out a waker that is between its compare-and-set and its
     * {@code wakeup()} call (a few instructions). True if a waker won, so a wake-up may still be pending.
     */
    private boolean disarm() {
        if (state.compareAndSet(POLLING, BUSY)) {
            return false;
        }
        while (state.get() == WAKING) {
            Thread.yield();
        }
        state.set(BUSY);
        return true;
    }

    /**
     * Runs a blocking consumer call that may run inside a long poll (from a rebalance callback), calling it once more
     * if the long poll's one wake-up interrupted it. Any call it wraps must be safe to repeat.
     */
    static <T> T retryWoken(Supplier<T> call) {
        try {
            return call.get();
        } catch (WakeupException e) {
            return call.get();
        }
    }

    /** {@link #retryWoken(Supplier)} for a call without a result. */
    static void retryWoken(Runnable call) {
        retryWoken(() -> {
            call.run();
            return null;
        });
    }
}
