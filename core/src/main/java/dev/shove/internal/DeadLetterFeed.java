package dev.shove.internal;

import dev.shove.ShoveHeaders;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead letters a registration's own consumers have just stored in the topic's dead-letter queue, handed to its
 * dead-letter flow without reading the queue ({@link dev.shove.DeadLetterHandling#KEEP}): the main consumers {@linkplain
 * #offer offer} each dead letter once the broker confirmed its copy, and the flow's engine consumes this feed as it
 * would a subscription. Settling an entry settles nothing on the broker: the dead letter stays in the queue.
 *
 * <p>At most the engine's window is delivered and unsettled at once; the rest wait here, in the order offered. A
 * dead letter offered after the feed closed, or still waiting when it closes, is not handed to {@code handleDead}
 * (the group stopped first); it is kept in the queue all the same, and the close says how many in one WARN.
 */
final class DeadLetterFeed implements Subscription {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterFeed.class);

    private final String topic;
    private final String queue;
    private final int window;
    private final boolean counts;
    private final boolean stamps;
    private final AtomicLong sequence = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Local> waiting = new ArrayDeque<>();
    private @Nullable DeliverySink sink;
    private int delivered;
    private boolean pumping;
    private boolean paused;
    private boolean closed;

    /**
     * @param topic the topic, for logs
     * @param queue the dead-letter queue the entries were stored in
     * @param window the most entries delivered and not yet settled
     * @param counts whether the backend counts deliveries: then an entry says it is delivered once
     * @param stamps whether the backend's deliveries carry the time the broker took them: then an entry carries the
     *     time it was offered (just after the broker confirmed it)
     */
    DeadLetterFeed(String topic, String queue, int window, boolean counts, boolean stamps) {
        this.topic = topic;
        this.queue = queue;
        this.window = Math.max(1, window);
        this.counts = counts;
        this.stamps = stamps;
    }

    /** Starts delivering to {@code target}; the dead-letter engine calls this in place of subscribing. */
    Subscription open(DeliverySink target) {
        lock.lock();
        try {
            sink = target;
        } finally {
            lock.unlock();
        }
        pump();
        return this;
    }

    /** A dead letter the broker has stored: its payload and headers as the copy carried them. */
    void offer(byte[] payload, Map<String, String> headers) {
        lock.lock();
        try {
            if (closed) {
                log.warn(
                        "dead letter {} of topic '{}' is kept in '{}' without its handleDead call: the group stopped"
                                + " first",
                        headers.getOrDefault(ShoveHeaders.MESSAGE_ID, "?"),
                        topic,
                        queue);
                return;
            }
            waiting.add(new Local(
                    payload,
                    headers,
                    queue,
                    "dead-" + sequence.incrementAndGet(),
                    counts ? 1 : 0,
                    stamps ? System.currentTimeMillis() : -1));
        } finally {
            lock.unlock();
        }
        pump();
    }

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        lock.lock();
        try {
            delivered--;
            if (settlement.action() == Settlement.Action.RETURN && !closed) {
                waiting.addFirst((Local) delivery); // not run (the engine is stopping): counted at close
            }
        } finally {
            lock.unlock();
        }
        callback.settled(null);
        pump();
    }

    @Override
    public void pause() {
        lock.lock();
        try {
            paused = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        int left;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            paused = true;
            left = waiting.size();
            waiting.clear();
        } finally {
            lock.unlock();
        }
        if (left > 0) {
            log.warn(
                    "{} dead letter(s) of topic '{}' are kept in '{}' without their handleDead call: the group stopped"
                            + " first",
                    left,
                    topic,
                    queue);
        }
    }

    /** Delivers waiting entries up to the window; one thread at a time, so entries keep their order. */
    private void pump() {
        while (true) {
            Local next;
            DeliverySink target;
            lock.lock();
            try {
                if (pumping || paused || sink == null || delivered >= window || waiting.isEmpty()) {
                    return;
                }
                next = waiting.poll();
                delivered++;
                pumping = true;
                target = sink;
            } finally {
                lock.unlock();
            }
            try {
                target.deliver(next);
            } finally {
                lock.lock();
                try {
                    pumping = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** A dead letter as the feed delivers it. */
    private record Local(
            byte[] payload,
            Map<String, String> headers,
            String queue,
            String deliveryId,
            int deliveryCount,
            long timestampMs)
            implements Delivery {}
}
