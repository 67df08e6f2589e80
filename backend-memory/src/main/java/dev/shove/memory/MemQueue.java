package dev.shove.memory;

import dev.shove.Position;
import dev.shove.PublishException;
import dev.shove.ShoveHeaders;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One queue of the in-memory broker. Publishing appends (waiting while full); dispatch pushes the next message to a
 * subscription with window to spare, round-robin, under the queue's lock so that one subscription receives the
 * queue's messages in order.
 *
 * <p>Subscriptions read through a {@link Reader}. In queue mode (no retention) every subscription shares one reader,
 * whatever its group: the queue's messages are consumed once, like a RabbitMQ queue. In log mode ({@code retention >
 * 0}) the queue keeps its last {@code retention} messages whether consumed or not, and each consumer group has a
 * reader of its own with its own position, which {@link #seek} moves, like a Redis Stream consumer group.
 *
 * <p>An exclusive queue (a sequenced topic's shard) has one active subscription per reader: while any of its messages
 * is delivered and unsettled it stays with that subscription; when none is, the next message goes to the
 * subscription active on the fewest shards. Order per key is kept (a shard changes hands only when nothing of it is
 * in flight) and shards spread over a group's consumers. Returned deliveries go back to their place: they wait in a
 * heap ordered by position, ahead of everything not yet delivered.
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
    /** Queue mode: the one reader; log mode: one per consumer group. */
    private final Map<String, Reader> readers = new LinkedHashMap<>();
    /** The readers in creation order, as an array: dispatch walks them on every message, without an iterator. */
    private Reader[] readerArray = new Reader[0];

    private long positions;
    private long base;
    private long sequence;
    private boolean closed;

    /** A consumer group's view of the queue: where it reads, what it must redeliver, who consumes. */
    final class Reader {
        private final PriorityQueue<MemMessage> returned =
                new PriorityQueue<>(Comparator.comparingLong(m -> m.position));
        private final List<MemSubscription> consumers = new ArrayList<>();
        private @Nullable MemSubscription active;
        /** Sequenced retries waiting in place, by message: their headers when delivered again. */
        private final Map<MemMessage, Map<String, String>> waits = new java.util.IdentityHashMap<>();
        /** Log mode: messages ahead of the cursor that the dead-letter tools removed for this group. */
        private final Set<MemMessage> removed = Collections.newSetFromMap(new IdentityHashMap<>());

        private long cursor;
        private int next;
        private int inFlight;

        MemQueue queue() {
            return MemQueue.this;
        }

        private long unread() {
            return (isLog() ? (base + log.size()) - cursor - removed.size() : buffer.size()) + returned.size();
        }
    }

    MemQueue(String name, int capacity, int retention, boolean exclusive) {
        this.name = name;
        this.capacity = capacity;
        this.retention = retention;
        this.exclusive = exclusive;
    }

    boolean isLog() {
        return retention > 0;
    }

    /** The reader of a consumer group (queue mode: the one shared reader). Caller holds the lock. */
    private Reader reader(String group) {
        return readers.computeIfAbsent(isLog() ? group : "", g -> {
            Reader r = new Reader();
            r.cursor = base; // a new group reads from the oldest retained message (Kafka's "earliest")
            readerArray = Arrays.copyOf(readerArray, readerArray.length + 1);
            readerArray[readerArray.length - 1] = r;
            return r;
        });
    }

    /** Appends a message; waits for room unless {@code bypassCapacity}. */
    void put(MemMessage message, boolean bypassCapacity) throws InterruptedException {
        lock.lock();
        try {
            while (!bypassCapacity && maxUnread() >= capacity && !closed) {
                notFull.await();
            }
            if (closed) {
                throw new PublishException(
                        "the in-memory broker closed while publishing to queue '" + name + "'", null, false);
            }
            append(message);
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Appends messages in order, waiting for room as {@link #put} does, taking the lock once per {@value #PUT_CHUNK}
     * messages rather than once per message. Returns how many were appended: all of them, unless the queue closed or
     * the thread was interrupted (its flag is set again) while waiting for room.
     */
    int putAll(List<MemMessage> messages) {
        int done = 0;
        while (done < messages.size()) {
            lock.lock();
            try {
                int end = Math.min(messages.size(), done + PUT_CHUNK);
                while (done < end) {
                    while (maxUnread() >= capacity && !closed) {
                        notFull.await();
                    }
                    if (closed) {
                        return done;
                    }
                    append(messages.get(done));
                    done++;
                    dispatch();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return done;
            } finally {
                lock.unlock();
            }
        }
        return done;
    }

    /** How many messages {@link #putAll} appends under one hold of the lock, so settlements are not held up long. */
    static final int PUT_CHUNK = 64;

    /** Gives the message its position and appends it. Caller holds the lock. */
    private void append(MemMessage message) {
        message.position = positions++;
        if (isLog()) {
            log.add(message);
            trim();
        } else {
            buffer.addLast(message);
        }
    }

    /** What the slowest reader has left to read (queue mode: the queue's length). Caller holds the lock. */
    private long maxUnread() {
        if (!isLog()) {
            return buffer.size() + (readerArray.length == 0 ? 0 : readerArray[0].returned.size());
        }
        long max = 0;
        for (Reader r : readerArray) {
            max = Math.max(max, r.unread());
        }
        return max;
    }

    private void trim() {
        int excess = log.size() - retention;
        if (excess > Math.max(16, retention / 4)) {
            log.subList(0, excess).clear();
            base += excess;
            for (Reader r : readers.values()) {
                r.cursor = Math.max(r.cursor, base);
                r.removed.removeIf(m -> m.position < base);
            }
        }
    }

    /**
     * A delivery of {@code reader} waits in place for a retry: when it is delivered again (returned by a stop, or by a
     * closing subscription), it carries this retry count and due time.
     */
    void waiting(Reader reader, MemMessage message, int retryCount, long notBeforeEpochMs) {
        Map<String, String> headers = new java.util.HashMap<>(message.headers);
        headers.put(ShoveHeaders.RETRY_COUNT, Integer.toString(retryCount));
        headers.put(ShoveHeaders.NOT_BEFORE, Long.toString(notBeforeEpochMs));
        lock.lock();
        try {
            reader.waits.put(message, Map.copyOf(headers));
        } finally {
            lock.unlock();
        }
    }

    /** A returned delivery goes back to its original place (ahead of newer messages), to be delivered next. */
    void requeue(Reader reader, MemMessage message) {
        lock.lock();
        try {
            leave(reader, message, true);
            if (!closed) {
                dispatch();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A delivery of {@code subscription} was settled: for good, or returned ({@code requeue}) to its place. Under one
     * lock, the message leaves the reader's books, the subscription's window grows back by one and the queue
     * dispatches what the freed window allows, instead of one lock to settle and another to pump.
     */
    void release(Reader reader, MemMessage message, boolean requeue, MemSubscription subscription) {
        lock.lock();
        try {
            leave(reader, message, requeue);
            subscription.windowReturned();
            if (!closed) {
                dispatch();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A delivery was settled for good, or abandoned by a seek. */
    void settled(Reader reader, MemMessage message) {
        lock.lock();
        try {
            leave(reader, message, false);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A delivered message leaves the reader's books: back to its place ({@code requeue}, unless the queue closed) or
     * for good (it no longer holds up the sequenced messages waiting behind it). Caller holds the lock.
     */
    private void leave(Reader reader, MemMessage message, boolean requeue) {
        reader.inFlight--;
        if (requeue) {
            if (!closed) {
                reader.returned.add(message);
            }
        } else if (!reader.waits.isEmpty()) {
            reader.waits.remove(message);
        }
    }

    /** Attaches a subscription of {@code group}; returns the reader it reads through. */
    Reader attach(MemSubscription subscription, String group) {
        lock.lock();
        try {
            Reader r = reader(group);
            r.consumers.add(subscription);
            dispatch();
            return r;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Attaches a subscription that asked to start at {@code position}: the group's position moves there only if the
     * subscription is the first of its group here (a second consumer joins where the group is).
     *
     * @throws IllegalArgumentException when the position is not retained
     */
    Reader attachAt(MemSubscription subscription, String group, Position position) {
        lock.lock();
        try {
            Reader r = reader(group);
            if (r.consumers.isEmpty()) {
                r.cursor = target(position);
                r.returned.clear();
                r.removed.removeIf(m -> m.position < r.cursor);
            }
            r.consumers.add(subscription);
            dispatch();
            return r;
        } finally {
            lock.unlock();
        }
    }

    void detach(MemSubscription subscription, Reader reader) {
        lock.lock();
        try {
            reader.consumers.remove(subscription);
            if (reader.active == subscription) {
                subscription.activeShards.decrementAndGet();
                reader.active = null;
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
     * Checks that {@code position} exists in this log and returns its index, without moving anything.
     *
     * @throws IllegalArgumentException when the position is not retained, or belongs to another queue
     */
    long check(Position position) {
        lock.lock();
        try {
            return target(position);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves a reader's position; its returned deliveries waiting for redelivery are dropped (the move decides what
     * comes next).
     *
     * @throws IllegalArgumentException when the position is not retained
     */
    void seek(Reader reader, Position position) {
        lock.lock();
        try {
            reader.cursor = target(position);
            reader.returned.clear();
            reader.waits.clear();
            reader.removed.removeIf(m -> m.position < reader.cursor);
            dispatch();
        } finally {
            lock.unlock();
        }
    }

    private long target(Position position) {
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
        return target;
    }

    private void dispatch() {
        for (Reader r : readerArray) {
            dispatch(r);
        }
    }

    /**
     * Hands the reader's unread messages to its subscriptions while they have window. In queue mode each message is
     * handed over as it is taken; in log mode a subscription receives what one pass reads for it as one run ({@link
     * MemSubscription#deliverAll}), as a Kafka poll hands over a batch of records.
     */
    private void dispatch(Reader r) {
        Map<MemSubscription, List<MemDelivery>> runs = isLog() ? new LinkedHashMap<>() : null;
        while (skipRemoved(r) && r.unread() > 0 && !r.consumers.isEmpty()) {
            MemSubscription target = pick(r);
            if (target == null) {
                break;
            }
            MemMessage message;
            if (!r.returned.isEmpty()) {
                message = r.returned.poll();
            } else if (isLog()) {
                message = log.get((int) (r.cursor - base));
                r.cursor++;
            } else {
                message = buffer.pollFirst();
            }
            notFull.signal();
            r.inFlight++;
            message.deliveries++;
            MemDelivery delivery = new MemDelivery(
                    message, r, r.waits.getOrDefault(message, message.headers), ++sequence, message.deliveries);
            if (runs == null) {
                target.deliver(delivery);
            } else {
                runs.computeIfAbsent(target, t -> new ArrayList<>()).add(delivery);
            }
        }
        if (runs != null) {
            runs.forEach(MemSubscription::deliverAll);
        }
    }

    /** Log mode: moves the cursor past messages the dead-letter tools removed for this reader. Always true. */
    private boolean skipRemoved(Reader r) {
        while (!r.removed.isEmpty()
                && r.cursor < base + log.size()
                && r.removed.remove(log.get((int) (r.cursor - base)))) {
            r.cursor++;
        }
        return true;
    }

    /**
     * The messages {@code group} has not read yet, in the order it would read them: what its dead-letter queue holds
     * for it. Does not create the group's reader (a group that never read sees every retained message).
     */
    List<MemMessage> unread(String group) {
        lock.lock();
        try {
            Reader r = readers.get(isLog() ? group : "");
            List<MemMessage> out = new ArrayList<>();
            if (r != null) {
                List<MemMessage> returned = new ArrayList<>(r.returned);
                returned.sort(Comparator.comparingLong(m -> m.position));
                out.addAll(returned);
            }
            if (isLog()) {
                for (long p = r == null ? base : r.cursor; p < base + log.size(); p++) {
                    MemMessage m = log.get((int) (p - base));
                    if (r == null || !r.removed.contains(m)) {
                        out.add(m);
                    }
                }
            } else {
                out.addAll(buffer);
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes messages for {@code group} for good (the dead-letter tools replayed or purged them): from the queue in
     * queue mode, from what the group reads in log mode. Messages delivered meanwhile are left to their consumer.
     */
    void remove(String group, Collection<MemMessage> messages) {
        lock.lock();
        try {
            Reader r = isLog() ? reader(group) : readers.get("");
            for (MemMessage m : messages) {
                boolean gone = r != null && r.returned.remove(m);
                if (!gone && isLog()) {
                    if (m.position >= r.cursor && m.position >= base) {
                        r.removed.add(m);
                    }
                } else if (!gone) {
                    buffer.remove(m);
                }
            }
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private @Nullable MemSubscription pick(Reader r) {
        if (exclusive) {
            if (r.active != null && r.inFlight > 0) {
                return r.active.tryReserve() ? r.active : null;
            }
            MemSubscription best = null;
            for (MemSubscription c : r.consumers) {
                if (c.hasWindow() && (best == null || c.activeShards.get() < best.activeShards.get())) {
                    best = c;
                }
            }
            if (best == null || !best.tryReserve()) {
                return null;
            }
            if (best != r.active) {
                if (r.active != null) {
                    r.active.activeShards.decrementAndGet();
                }
                best.activeShards.incrementAndGet();
                r.active = best;
            }
            return best;
        }
        int n = r.consumers.size();
        for (int i = 0; i < n; i++) {
            MemSubscription candidate = r.consumers.get((r.next + i) % n);
            if (candidate.tryReserve()) {
                r.next = (r.next + i + 1) % n;
                return candidate;
            }
        }
        return null;
    }

    /** Messages waiting to be read: the queue's length, or in log mode what the slowest group has left (all retained
     * messages when no group reads yet). */
    int depth() {
        lock.lock();
        try {
            if (isLog() && readers.isEmpty()) {
                return log.size();
            }
            return (int) maxUnread();
        } finally {
            lock.unlock();
        }
    }

    int inFlight() {
        lock.lock();
        try {
            int n = 0;
            for (Reader r : readers.values()) {
                n += r.inFlight;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** The messages waiting to be delivered (to the slowest group in log mode), in delivery order. */
    List<MemMessage> snapshot() {
        lock.lock();
        try {
            Reader slowest = null;
            for (Reader r : readers.values()) {
                if (slowest == null || r.unread() > slowest.unread()) {
                    slowest = r;
                }
            }
            List<MemMessage> all = new ArrayList<>();
            if (slowest != null) {
                all.addAll(slowest.returned);
                all.sort(Comparator.comparingLong(m -> m.position));
            }
            if (isLog()) {
                long from = slowest == null ? base : slowest.cursor;
                all.addAll(log.subList((int) (from - base), log.size()));
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
