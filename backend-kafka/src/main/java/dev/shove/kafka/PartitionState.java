package dev.shove.kafka;

import dev.shove.spi.SettleCallback;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The records of one assigned partition between the last commit point and the newest record handed out, and what
 * became of each: in flight, done, or returned (to be read again). Owned by one poll thread; not thread-safe.
 *
 * <p>Why a ring of offsets rather than a counter: records complete out of order (handlers run in parallel, a key of a
 * sequenced topic waits in place while later offsets finish), but Kafka stores one committed offset per partition, so
 * only the run of done records at the front may be committed ({@link #commitPoint()}). Records are appended in offset
 * order, so the ring stays sorted and a settlement finds its record by binary search. A done record's settle callback
 * waits until a commit at or above its offset is confirmed: only then has the broker durably taken the
 * acknowledgement.
 *
 * <p>After a seek back to a returned record, the re-read records pass through {@link #admit}: a returned record is
 * handed out again; one still in flight or done is not, so nothing runs twice in one assignment.
 */
final class PartitionState {
    private static final byte IN_FLIGHT = 0;
    private static final byte DONE = 1;
    private static final byte RETURNED = 2;

    final TopicPartition partition;
    /** What the delivery ids of this partition's records start with: {@code topic-partition@}, then the offset. */
    final String deliveryIdPrefix;

    private long[] offsets = new long[16];
    private byte[] states = new byte[16];
    private @Nullable SettleCallback[] callbacks = new SettleCallback[16];
    private int head;
    private int size;
    private int inFlight;
    private int returned;
    private long next = -1;
    private long committed = -1;
    /** The first offset read (or moved to) in this state: where the partition started for this consumer. */
    private long first = -1;

    private long sentCommit = -1;
    private final Awaiting awaiting = new Awaiting();
    private long headSinceNanos = System.nanoTime();
    private boolean stallReported;
    /** Sequenced retries waiting in place, by offset: written with each commit ({@link WaitingOffsets}). */
    private final NavigableMap<Long, WaitingOffsets.Wait> waits = new TreeMap<>();
    /** The waits changed since the last commit was sent: the next commit must carry them even if it does not move. */
    private boolean waitsChanged;
    /** Whether the last {@link #commitMetadata} held every wait. */
    private boolean waitsFit = true;

    /**
     * The callbacks of done records waiting for a commit that covers them, in offset order: a ring of offsets and
     * callbacks side by side, so that a record costs no object here (one is done per record consumed).
     */
    private static final class Awaiting {
        private long[] offsets = new long[16];
        private SettleCallback[] callbacks = new SettleCallback[16];
        private int head;
        private int size;

        boolean isEmpty() {
            return size == 0;
        }

        void add(long offset, SettleCallback callback) {
            if (size == offsets.length) {
                int n = offsets.length;
                long[] o = new long[n * 2];
                SettleCallback[] c = new SettleCallback[n * 2];
                for (int k = 0; k < size; k++) {
                    o[k] = offsets[(head + k) & (n - 1)];
                    c[k] = callbacks[(head + k) & (n - 1)];
                }
                offsets = o;
                callbacks = c;
                head = 0;
            }
            int i = (head + size) & (offsets.length - 1);
            offsets[i] = offset;
            callbacks[i] = callback;
            size++;
        }

        /** Moves the callbacks of records below {@code offset} to {@code out}. */
        void takeBelow(long offset, List<SettleCallback> out) {
            while (size > 0 && offsets[head] < offset) {
                out.add(callbacks[head]);
                callbacks[head] = null;
                head = (head + 1) & (offsets.length - 1);
                size--;
            }
        }

        void takeAll(List<SettleCallback> out) {
            takeBelow(Long.MAX_VALUE, out);
        }
    }

    private volatile boolean moved;
    /** Whether this is still its partition's state in the consumer's {@link OwnedPartitions} (set by them only). */
    private volatile boolean owned;

    PartitionState(TopicPartition partition) {
        this.partition = partition;
        this.deliveryIdPrefix = partition.topic() + "-" + partition.partition() + "@";
    }

    /**
     * A state for a partition just moved to {@code position} (a seek): its commit point is that position until
     * records are read from it.
     */
    PartitionState(TopicPartition partition, long position) {
        this(partition);
        this.next = position;
        this.first = position;
    }

    void owned(boolean owned) {
        this.owned = owned;
    }

    /**
     * Whether this is still its partition's state in the consumer's {@link OwnedPartitions}: false once the partition
     * was let go, or its state replaced (a seek).
     */
    boolean isOwned() {
        return owned;
    }

    /** This state was replaced because its partition was moved elsewhere (a seek). */
    void markMoved() {
        moved = true;
    }

    /** Whether the partition was moved away from this state's records: their settlements need no commit. */
    boolean isMoved() {
        return moved;
    }

    /**
     * A record read from the partition and about to be handed out: true if it should be, false if it is a re-read of
     * a record that is in flight or done.
     */
    boolean admit(long offset) {
        if (offset < next) {
            int i = indexOf(offset);
            if (i >= 0 && states[i] == RETURNED) {
                states[i] = IN_FLIGHT;
                returned--;
                inFlight++;
                return true;
            }
            return false;
        }
        append(offset, IN_FLIGHT);
        inFlight++;
        return true;
    }

    /** A record read and not handed out (addressed to another group): done at once. */
    void skip(long offset) {
        if (offset >= next) {
            append(offset, DONE);
            advance(System.nanoTime());
        }
    }

    /** The record was settled and may be committed; false if this state does not have it in flight. */
    boolean complete(long offset, @Nullable SettleCallback callback) {
        return complete(offset, callback, System.nanoTime());
    }

    /**
     * {@link #complete(long, SettleCallback)} with the time now ({@link System#nanoTime}), read once for a batch of
     * settlements rather than once per record: it only dates the stall watch's view of the commit point.
     */
    boolean complete(long offset, @Nullable SettleCallback callback, long nowNanos) {
        int i = indexOf(offset);
        if (i < 0 || states[i] != IN_FLIGHT) {
            return false;
        }
        states[i] = DONE;
        callbacks[i] = callback;
        inFlight--;
        if (!waits.isEmpty() && waits.remove(offset) != null) {
            waitsChanged = true;
        }
        advance(nowNanos);
        return true;
    }

    /**
     * The record at {@code offset} waits in place for a retry (it stays in flight): its next run has {@code
     * retryCount} and is due at {@code notBeforeEpochMs}. Ignored unless the record is pending in this state (in
     * flight, or already returned by a stop that followed the wait).
     */
    void waiting(long offset, int retryCount, long notBeforeEpochMs) {
        int i = indexOf(offset);
        if (i >= 0 && states[i] != DONE) {
            waits.put(offset, new WaitingOffsets.Wait(retryCount, notBeforeEpochMs));
            waitsChanged = true;
        }
    }

    /** The waits read from the committed offset's metadata when the partition was assigned. */
    void restore(NavigableMap<Long, WaitingOffsets.Wait> restored) {
        waits.putAll(restored);
    }

    /** The wait of the record at {@code offset}, if it waited out a retry when last delivered. */
    WaitingOffsets.@Nullable Wait waitAt(long offset) {
        return waits.isEmpty() ? null : waits.get(offset); // asked for every record; almost always empty
    }

    /** The commit metadata for a commit at {@code point}: the waits of records at or after it. */
    String commitMetadata(long point) {
        waits.headMap(point).clear(); // settled, or skipped by a seek
        String metadata = WaitingOffsets.encode(waits);
        waitsFit = WaitingOffsets.entries(metadata) == waits.size();
        return metadata;
    }

    /** Whether the waits fitted in full into the last commit metadata. */
    boolean waitsFit() {
        return waitsFit;
    }

    /** The record goes back to be read again (returned, or withdrawn from the engine); false if not in flight. */
    boolean markReturned(long offset) {
        int i = indexOf(offset);
        if (i < 0 || states[i] != IN_FLIGHT) {
            return false;
        }
        states[i] = RETURNED;
        inFlight--;
        returned++;
        return true;
    }

    /** Records handed out and not yet settled. */
    int inFlight() {
        return inFlight;
    }

    /** Whether no record waits for anything: all done and committed. */
    boolean isQuiet() {
        return size == 0 && awaiting.isEmpty();
    }

    /**
     * The offset to commit: the first record not yet done, or one past the newest when all are; -1 when nothing was
     * read in this assignment.
     */
    long commitPoint() {
        return size > 0 ? offsets[head] : next;
    }

    /**
     * The commit point if it moved past what was last sent or the waits changed since (and records it as sent), else
     * -1.
     */
    long takeCommit() {
        long point = commitPoint();
        if (point > sentCommit || (waitsChanged && point >= 0)) {
            sentCommit = point;
            waitsChanged = false;
            return point;
        }
        return -1;
    }

    /** A commit was refused: send it again next time. */
    void commitFailed() {
        sentCommit = committed;
        waitsChanged = !waits.isEmpty() || waitsChanged;
    }

    /** The broker confirmed a commit at {@code offset}; adds the callbacks it covers to {@code out}. */
    void committed(long offset, List<SettleCallback> out) {
        if (offset > committed) {
            committed = offset;
        }
        awaiting.takeBelow(offset, out);
    }

    /**
     * Takes the callbacks of done records that can no longer be committed by this consumer because a returned record
     * lies before them (the consumer is stopping and will not read it again).
     */
    void takeBlocked(List<SettleCallback> out) {
        if (returned == 0) {
            return;
        }
        boolean blocked = false;
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (offsets.length - 1);
            if (states[i] == RETURNED) {
                blocked = true;
            } else if (blocked && states[i] == DONE && callbacks[i] != null) {
                out.add(callbacks[i]);
                callbacks[i] = null;
            }
        }
    }

    /** Takes every callback still waiting (the partition is gone, or the consumer closes). */
    void takeAll(List<SettleCallback> out) {
        awaiting.takeAll(out);
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (offsets.length - 1);
            if (callbacks[i] != null) {
                out.add(callbacks[i]);
                callbacks[i] = null;
            }
        }
    }

    /**
     * Where to read the partition again from when nothing after the last confirmed commit counts (an aborted
     * transaction): the last offset this state committed, else the first it read; -1 when it read nothing.
     */
    long rewindPoint() {
        return committed >= 0 ? committed : first;
    }

    /** How long the first uncommitted record has been first, or 0 when nothing waits. */
    long stalledNanos(long now) {
        return size == 0 ? 0 : now - headSinceNanos;
    }

    /** The oldest record not yet done, or -1. */
    long firstPending() {
        return size == 0 ? -1 : offsets[head];
    }

    int pending() {
        return size;
    }

    /** Marks the stall as reported; true the first time since the partition last moved. */
    boolean reportStall() {
        if (stallReported) {
            return false;
        }
        stallReported = true;
        return true;
    }

    private void append(long offset, byte state) {
        if (size == offsets.length) {
            grow();
        }
        int i = (head + size) & (offsets.length - 1);
        offsets[i] = offset;
        states[i] = state;
        callbacks[i] = null;
        if (size == 0) {
            headSinceNanos = System.nanoTime();
        }
        if (first < 0) {
            first = offset;
        }
        size++;
        next = offset + 1;
    }

    private void advance(long nowNanos) {
        boolean moved = false;
        while (size > 0 && states[head] == DONE) {
            SettleCallback cb = callbacks[head];
            if (cb != null) {
                awaiting.add(offsets[head], cb);
                callbacks[head] = null;
            }
            head = (head + 1) & (offsets.length - 1);
            size--;
            moved = true;
        }
        if (moved) {
            headSinceNanos = nowNanos;
            stallReported = false;
        }
    }

    private int indexOf(long offset) {
        int mask = offsets.length - 1;
        if (size > 0) {
            // A partition's offsets are mostly consecutive (gaps come from transaction markers, compaction and skipped
            // records): try the slot they would have first, then search.
            long distance = offset - offsets[head];
            if (distance >= 0 && distance < size) {
                int guess = (head + (int) distance) & mask;
                if (offsets[guess] == offset) {
                    return guess;
                }
            }
        }
        int lo = 0;
        int hi = size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long v = offsets[(head + mid) & mask];
            if (v < offset) {
                lo = mid + 1;
            } else if (v > offset) {
                hi = mid - 1;
            } else {
                return (head + mid) & mask;
            }
        }
        return -1;
    }

    private void grow() {
        int n = offsets.length;
        long[] o = new long[n * 2];
        byte[] s = new byte[n * 2];
        SettleCallback[] c = new SettleCallback[n * 2];
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (n - 1);
            o[k] = offsets[i];
            s[k] = states[i];
            c[k] = callbacks[i];
        }
        offsets = o;
        states = s;
        callbacks = c;
        head = 0;
    }

    @Override
    public String toString() {
        return partition + "[pending=" + size + ", inFlight=" + inFlight + ", commitPoint=" + commitPoint() + "]";
    }
}
