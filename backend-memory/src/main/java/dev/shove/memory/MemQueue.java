package dev.shove.memory;

import dev.shove.PublishException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One queue of the in-memory broker. Publishing appends (waiting while full); dispatch pushes the head to a
 * subscription with window to spare, round-robin, under the queue's lock so that one subscription receives the
 * queue's messages in order. An exclusive queue (a sequenced topic's shard) delivers only to its first subscription;
 * the others stand by until it leaves.
 */
final class MemQueue {
    final String name;
    final boolean exclusive;
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    private final ArrayDeque<MemMessage> buffer = new ArrayDeque<>();
    /** Returned deliveries, by original position; all older than anything in the buffer, so they go first. */
    private final PriorityQueue<MemMessage> returned = new PriorityQueue<>(Comparator.comparingLong(m -> m.position));

    private long positions;
    private final List<MemSubscription> consumers = new ArrayList<>();
    private int next;
    private int inFlight;
    private long sequence;
    private boolean closed;

    MemQueue(String name, int capacity, boolean exclusive) {
        this.name = name;
        this.capacity = capacity;
        this.exclusive = exclusive;
    }

    /** Appends a message; waits for room unless {@code bypassCapacity}. */
    void put(MemMessage message, boolean bypassCapacity) throws InterruptedException {
        lock.lock();
        try {
            while (!bypassCapacity && buffer.size() >= capacity && !closed) {
                notFull.await();
            }
            if (closed) {
                throw new PublishException(
                        "the in-memory broker closed while publishing to queue '" + name + "'", null, false);
            }
            message.position = ++positions;
            buffer.addLast(message);
            dispatch();
        } finally {
            lock.unlock();
        }
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

    /** A delivery was settled for good. */
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

    void detach(MemSubscription subscription) {
        lock.lock();
        try {
            consumers.remove(subscription);
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

    private void dispatch() {
        while ((!returned.isEmpty() || !buffer.isEmpty()) && !consumers.isEmpty()) {
            MemSubscription target = pick();
            if (target == null) {
                return;
            }
            MemMessage message = returned.isEmpty() ? buffer.pollFirst() : returned.poll();
            notFull.signal();
            inFlight++;
            message.deliveries++;
            target.deliver(new MemDelivery(message, this, ++sequence, message.deliveries));
        }
    }

    private MemSubscription pick() {
        if (exclusive) {
            MemSubscription active = consumers.getFirst();
            return active.tryReserve() ? active : null;
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
            return buffer.size() + returned.size();
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

    List<MemMessage> snapshot() {
        lock.lock();
        try {
            List<MemMessage> all = new ArrayList<>(returned);
            all.sort(Comparator.comparingLong(m -> m.position));
            all.addAll(buffer);
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
