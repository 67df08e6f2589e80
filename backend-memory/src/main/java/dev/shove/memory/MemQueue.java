package dev.shove.memory;

import dev.shove.Position;
import dev.shove.PublishException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One queue of the in-memory broker. Publishing appends (waiting while full); dispatch pushes the next message to a
 * subscription with window to spare, round-robin, under the queue's lock so that one subscription receives the
 * queue's messages in order. An exclusive queue (a sequenced topic's shard) has one active subscription at a time:
 * while any of its messages is delivered and unsettled it stays with that subscription; when none is, the next
 * message goes to the subscription active on the fewest shards. Order per key is therefore kept (a shard changes
 * hands only when nothing of it is in flight) and the shards spread over a group's consumers.
 *
 * <p>In log mode ({@code retention > 0}) the queue keeps its last {@code retention} messages whether consumed or not,
 * and its subscribers share one cursor that {@link #seek} moves. Returned deliveries go back to their place in both
 * modes: they wait in a heap ordered by position, ahead of everything not yet delivered.
 */
final class MemQueue {
    final String name;
    final boolean exclusive;
    private final int capacity;
    private final int retention;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    /** Queue mode: the messages not yet delivered. */
    private final ArrayDeque<MemMessage> buffer = new ArrayDeque<>();
    /** Log mode: the retained messages; {@code log.get(i)} has position {@code base + i}. */
    private final ArrayList<MemMessage> log = new ArrayList<>();
    /** Returned deliveries, by original position: all older than anything not yet delivered, so they go first. */
    private final PriorityQueue<MemMessage> returned = new PriorityQueue<>(Comparator.comparingLong(m -> m.position));

    private final List<MemSubscription> consumers = new ArrayList<>();
    private @Nullable MemSubscription active;
    private long positions;
    private long base;
    private long cursor;
    private int next;
    private int inFlight;
    private long sequence;
    private boolean closed;

    MemQueue(String name, int capacity, int retention, boolean exclusive) {
        this.name = name;
        this.capacity = capacity;
        this.retention = retention;
        this.exclusive = exclusive;
    }

    boolean isLog() {
        return retention > 0;
    }

    /** Appends a message; waits for room unless {@code bypassCapacity}. */
    void put(MemMessage message, boolean bypassCapacity) throws InterruptedException {
        lock.lock();
        try {
            while (!bypassCapacity && unread() >= capacity && !closed) {
                notFull.await();
            }
            if (closed) {
                throw new PublishException(
                        "the in-memory broker closed while publishing to queue '" + name + "'", null, false);
            }
            message.position = positions++;
            if (isLog()) {
                log.add(message);
                trim();
            } else {
                buffer.addLast(message);
            }
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    private void trim() {
        int excess = log.size() - retention;
        if (excess > Math.max(16, retention / 4)) {
            log.subList(0, excess).clear();
            base += excess;
            cursor = Math.max(cursor, base);
        }
    }

    /** Messages waiting to be delivered. Caller holds the lock. */
    private long unread() {
        return (isLog() ? (base + log.size()) - cursor : buffer.size()) + returned.size();
    }

    /** A returned delivery goes back to its original place (ahead of newer messages), to be delivered next. */
    void requeue(MemMessage message) {
        lock.lock();
        try {
            inFlight--;
            if (closed) {
                return;
            }
            returned.add(message);
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    /** A delivery was settled for good, or abandoned by a seek. */
    void settled() {
        lock.lock();
        try {
            inFlight--;
        } finally {
            lock.unlock();
        }
    }

    void attach(MemSubscription subscription) {
        lock.lock();
        try {
            consumers.add(subscription);
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Attaches a subscription that asked to start at {@code position}: the group's shared cursor moves there only if
     * the subscription is the first of its group here (a second consumer joins where the group is).
     */
    void attachAt(MemSubscription subscription, Position position) {
        lock.lock();
        try {
            if (consumers.isEmpty()) {
                moveTo(position);
            }
            consumers.add(subscription);
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    void detach(MemSubscription subscription) {
        lock.lock();
        try {
            consumers.remove(subscription);
            if (active == subscription) {
                active.activeShards.decrementAndGet();
                active = null;
            }
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    /** Delivers what it can: waiting messages to subscriptions with window to spare. Safe to call at any time. */
    void pump() {
        lock.lock();
        try {
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves the shared cursor of a log-mode queue; returned deliveries waiting for redelivery are dropped (the move
     * decides what comes next).
     *
     * @throws IllegalArgumentException when the position is not retained
     */
    void seek(Position position) {
        lock.lock();
        try {
            moveTo(position);
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    private void moveTo(Position position) {
        if (!isLog()) {
            throw new UnsupportedOperationException("queue '" + name + "' is not a log (no retention)");
        }
        long end = base + log.size();
        long target = switch (position) {
            case Position.Start s -> base;
            case Position.End e -> end;
            case Position.Sequence s -> s.sequence();
            case Position.Timestamp t -> {
                long at = end;
                for (int i = 0; i < log.size(); i++) {
                    if (log.get(i).timestampMs >= t.time().toEpochMilli()) {
                        at = base + i;
                        break;
                    }
                }
                yield at;
            }
            case Position.Captured c -> {
                if (!c.queue().equals(name)) {
                    throw new IllegalArgumentException(
                            "position " + c + " belongs to queue '" + c.queue() + "', not '" + name + "'");
                }
                yield c.offset();
            }
        };
        if (target < base || target > end) {
            throw new IllegalArgumentException("position %d of queue '%s' no longer exists (retained: %d to %d)"
                    .formatted(target, name, base, end));
        }
        cursor = target;
        returned.clear();
    }

    private void dispatch() {
        while (unread() > 0 && !consumers.isEmpty()) {
            MemSubscription target = pick();
            if (target == null) {
                return;
            }
            MemMessage message;
            if (!returned.isEmpty()) {
                message = returned.poll();
            } else if (isLog()) {
                message = log.get((int) (cursor - base));
                cursor++;
            } else {
                message = buffer.pollFirst();
            }
            notFull.signal();
            inFlight++;
            message.deliveries++;
            target.deliver(new MemDelivery(message, this, ++sequence, message.deliveries));
        }
    }

    private @Nullable MemSubscription pick() {
        if (exclusive) {
            if (active != null && inFlight > 0) {
                return active.tryReserve() ? active : null;
            }
            MemSubscription best = null;
            for (MemSubscription c : consumers) {
                if (c.hasWindow() && (best == null || c.activeShards.get() < best.activeShards.get())) {
                    best = c;
                }
            }
            if (best == null || !best.tryReserve()) {
                return null;
            }
            if (best != active) {
                if (active != null) {
                    active.activeShards.decrementAndGet();
                }
                best.activeShards.incrementAndGet();
                active = best;
            }
            return best;
        }
        int n = consumers.size();
        for (int i = 0; i < n; i++) {
            MemSubscription candidate = consumers.get((next + i) % n);
            if (candidate.tryReserve()) {
                next = (next + i + 1) % n;
                return candidate;
            }
        }
        return null;
    }

    int depth() {
        lock.lock();
        try {
            return (int) unread();
        } finally {
            lock.unlock();
        }
    }

    int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    /** The messages waiting to be delivered, in delivery order. */
    List<MemMessage> snapshot() {
        lock.lock();
        try {
            List<MemMessage> all = new ArrayList<>(returned);
            all.sort(Comparator.comparingLong(m -> m.position));
            if (isLog()) {
                all.addAll(log.subList((int) (cursor - base), log.size()));
            } else {
                all.addAll(buffer);
            }
            return List.copyOf(all);
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
