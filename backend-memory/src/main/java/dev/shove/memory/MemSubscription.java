package dev.shove.memory;

import dev.shove.Position;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * One consumer of the in-memory broker: receives from one or more queues (all shards of a sequenced topic), never
 * more than its window ahead of its settlements. Settling is synchronous: copies are in their queues (or on their
 * timer) before the callback runs.
 */
final class MemSubscription implements Subscription {
    private final InMemoryTransport broker;
    private final int id;
    private final List<MemQueue> sources;
    private final String group;
    private final Map<MemQueue, MemQueue.Reader> readers = new ConcurrentHashMap<>();
    private final DeliverySink sink;
    private final AtomicInteger window;
    private final Runnable onClose;
    /** Shards (exclusive queues) this subscription is the active consumer of; guides where free shards go. */
    final AtomicInteger activeShards = new AtomicInteger();

    /**
     * The deliveries handed over and not yet settled, one slot each (null: free). A delivery takes a unit of window
     * before it is handed over and gives it back only after leaving its slot, so there is always a free slot for the
     * next one: no set (and no node allocated) per message.
     */
    private final AtomicReferenceArray<@Nullable MemDelivery> outstanding;

    /** Where the search for a free slot starts; racy on purpose (any start finds a free slot). */
    private int nextSlot;

    private volatile boolean paused;
    private volatile boolean closed;

    MemSubscription(
            InMemoryTransport broker,
            int id,
            List<MemQueue> sources,
            String group,
            DeliverySink sink,
            int window,
            Runnable onClose) {
        this.broker = broker;
        this.id = id;
        this.sources = sources;
        this.group = group;
        this.sink = sink;
        this.window = new AtomicInteger(window);
        this.outstanding = new AtomicReferenceArray<>(window);
        this.onClose = onClose;
    }

    /** Attaches to every source, at {@code startAt} when given. */
    void attach(@Nullable Position startAt) {
        for (MemQueue q : sources) {
            readers.put(q, startAt != null ? q.attachAt(this, group, startAt) : q.attach(this, group));
        }
    }

    /** Whether a delivery could be taken now. */
    boolean hasWindow() {
        return !paused && window.get() > 0;
    }

    /** Takes one unit of window for a delivery; false when full or paused. Called under the queue's lock. */
    boolean tryReserve() {
        if (paused) {
            return false;
        }
        while (true) {
            int w = window.get();
            if (w <= 0) {
                return false;
            }
            if (window.compareAndSet(w, w - 1)) {
                return true;
            }
        }
    }

    /** A unit of window comes back: a delivery left its slot. Called under the delivery's queue's lock. */
    void windowReturned() {
        window.incrementAndGet();
    }

    /** Called under the queue's lock, in queue order. */
    void deliver(MemDelivery delivery) {
        track(delivery);
        sink.deliver(delivery);
    }

    /** Hands over a run read from a log in one go; called under the queue's lock, in log order. */
    void deliverAll(List<MemDelivery> run) {
        for (MemDelivery d : run) {
            track(d);
        }
        sink.deliverAll(run);
    }

    /** Puts a delivery, which holds a unit of window, into a free slot. */
    private void track(MemDelivery delivery) {
        int n = outstanding.length();
        int start = nextSlot;
        for (int i = 0; i < n; i++) {
            int slot = (start + i) % n;
            if (outstanding.get(slot) == null && outstanding.compareAndSet(slot, null, delivery)) {
                delivery.slot = slot;
                nextSlot = (slot + 1) % n;
                return;
            }
        }
        throw new IllegalStateException("subscription " + id + " on queue '" + delivery.source().name
                + "' received a delivery beyond its window of " + n + " (an in-memory broker bug)");
    }

    /** Takes a delivery out of its slot; false when it is not outstanding (settled before, or returned). */
    private boolean untrack(MemDelivery delivery) {
        int slot = delivery.slot;
        return slot >= 0 && outstanding.compareAndSet(slot, delivery, null);
    }

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        MemDelivery d = (MemDelivery) delivery;
        if (!untrack(d)) {
            callback.settled(new IllegalStateException(
                    "delivery " + d.deliveryId() + " is not outstanding on subscription " + id));
            return;
        }
        Throwable failure = null;
        try {
            List<Settlement.Copy> copies = settlement.copies();
            for (int i = 0; i < copies.size(); i++) { // indexed: an ack's empty list makes no iterator
                Settlement.Copy copy = copies.get(i);
                switch (copy) {
                    case Settlement.Copy.ToHold hold -> broker.hold(d.source().name, hold);
                    case Settlement.Copy.ToDeadLetter dead ->
                        broker.putCopy(dead.queue(), dead.payload(), dead.headers());
                    case Settlement.Copy.ToTopic reply -> broker.publishCopy(reply.topic(), reply.message());
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        d.source()
                .release(d.reader, d.message, failure != null || settlement.action() == Settlement.Action.RETURN, this);
        if (sources.size() > 1) {
            pumpAll(); // the window freed may let another source (a shard) deliver
        }
        callback.settled(failure);
    }

    @Override
    public void waiting(Delivery delivery, int retryCount, long notBeforeEpochMs) {
        MemDelivery d = (MemDelivery) delivery;
        d.source().waiting(d.reader, d.message, retryCount, notBeforeEpochMs);
    }

    private void pumpAll() {
        if (paused) {
            return;
        }
        for (MemQueue q : sources) {
            q.pump();
        }
    }

    @Override
    public void seek(Position position, List<Delivery> abandoned) {
        List<MemQueue> targets;
        if (position instanceof Position.Captured captured) {
            targets = sources.stream()
                    .filter(q -> q.name.equals(captured.queue()))
                    .toList();
            if (targets.isEmpty()) {
                throw new IllegalArgumentException("position " + captured + " is not in a queue of this subscription");
            }
        } else {
            targets = sources;
        }
        for (MemQueue q : targets) {
            q.check(position); // refuse before anything moves or is forgotten
        }
        for (Delivery delivery : abandoned) {
            MemDelivery d = (MemDelivery) delivery;
            if (untrack(d)) {
                d.source().settled(d.reader, d.message);
                window.incrementAndGet();
            }
        }
        for (MemQueue q : targets) {
            q.seek(readers.get(q), position);
        }
        pumpAll();
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        paused = true;
        for (MemQueue q : sources) {
            MemQueue.Reader r = readers.get(q);
            if (r != null) {
                q.detach(this, r);
            }
        }
        for (int slot = 0; slot < outstanding.length(); slot++) {
            MemDelivery d = outstanding.get(slot);
            if (d != null && untrack(d)) {
                d.source().requeue(d.reader, d.message);
            }
        }
        onClose.run();
    }

    @Override
    public String toString() {
        return "MemSubscription[" + id + "]";
    }
}
