package dev.shove.rabbitmq;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The delivery tags of one channel (a consumer's, or a dead-letter scan's) that were delivered and are not yet
 * acknowledged or returned, and the planning that turns a batch of settled tags into as few frames as possible.
 *
 * <p>Why: {@code basic.ack} with {@code multiple=true} acknowledges <em>every</em> unacknowledged tag up to the
 * given one, and roughly doubles a consumer's throughput against one ack per message. It may only cover tags the
 * engine has settled: a tag whose handler still runs (or that waits out a retry in place) must stay unacknowledged.
 * So a batch is acknowledged with one multiple-ack for the run of settled tags that starts at the lowest outstanding
 * tag, and single acks for the rest. Returns ({@code basic.nack} with requeue) are planned first, so the multiple-ack
 * sent after them never covers a returned tag.
 *
 * <p>How: a channel's tags arrive in ascending order and are settled nearly in that order, so the ledger is a sorted
 * array of the delivered tags with a state per slot (outstanding, being acknowledged by the plan under way, gone),
 * from the lowest outstanding tag up. A settled tag is found by its distance from the lowest one (tags are mostly
 * consecutive), else by binary search; the run for the multiple-ack is a walk from the front; gone slots are dropped
 * from the front as the run passes them and compacted away when the array fills, so it holds at most about twice
 * the outstanding tags however long one of them stays unsettled. No tag is boxed on this path.
 *
 * <p>Not thread-safe: its subscription guards it (a scan is used by one thread at a time).
 */
final class AckLedger {
    /** What to write for one batch: nacks first, then the multiple-ack (if any), then single acks. */
    record Plan(List<Long> nacks, long multipleUpTo, int multipleCount, List<Long> singles, List<Long> unknown) {
        boolean isEmpty() {
            return nacks.isEmpty() && multipleUpTo == 0 && singles.isEmpty();
        }
    }

    private static final int INITIAL_CAPACITY = 64;
    private static final byte OUTSTANDING = 0;
    /** Settled in the plan under way, not yet known to be part of the multiple-ack. */
    private static final byte ACKING = 1;
    /** Acknowledged or returned: kept only until the front passes it or a compaction drops it. */
    private static final byte GONE = 2;

    /** Ascending delivered tags in {@code [head, tail)}; each slot's state in {@link #states}. */
    private long[] tags = new long[INITIAL_CAPACITY];

    private byte[] states = new byte[INITIAL_CAPACITY];
    private int head;
    private int tail;
    private int outstanding;
    /** Slots marked {@link #ACKING} by the plan under way (scratch, reused). */
    private int[] marked = new int[INITIAL_CAPACITY];

    /** A tag was delivered. Tags grow on a channel (also across recovery), so this appends. */
    void delivered(long tag) {
        if (tail > head && tag <= tags[tail - 1]) {
            insertOutOfOrder(tag);
            return;
        }
        if (tail == tags.length) {
            makeRoom();
        }
        tags[tail] = tag;
        states[tail] = OUTSTANDING;
        tail++;
        outstanding++;
    }

    /** Not expected (tags grow), but the ledger stays a set either way: a tag already held is not added again. */
    private void insertOutOfOrder(long tag) {
        int at = Arrays.binarySearch(tags, head, tail, tag);
        if (at >= 0) {
            if (states[at] == GONE) {
                states[at] = OUTSTANDING;
                outstanding++;
            }
            return;
        }
        if (tail == tags.length) {
            makeRoom();
            at = Arrays.binarySearch(tags, head, tail, tag);
        }
        int insertAt = -at - 1;
        System.arraycopy(tags, insertAt, tags, insertAt + 1, tail - insertAt);
        System.arraycopy(states, insertAt, states, insertAt + 1, tail - insertAt);
        tags[insertAt] = tag;
        states[insertAt] = OUTSTANDING;
        tail++;
        outstanding++;
    }

    /** The array is full: drops the gone slots if they are at least half of it, else doubles it. */
    private void makeRoom() {
        if (outstanding <= tags.length / 2) {
            int to = 0;
            for (int from = head; from < tail; from++) {
                if (states[from] != GONE) {
                    tags[to] = tags[from];
                    states[to] = states[from];
                    to++;
                }
            }
            head = 0;
            tail = to;
        } else {
            tags = Arrays.copyOf(tags, tags.length * 2);
            states = Arrays.copyOf(states, states.length * 2);
        }
    }

    /** The channel is gone: the broker requeued every outstanding tag by itself. */
    void clear() {
        head = 0;
        tail = 0;
        outstanding = 0;
        if (tags.length > 16 * INITIAL_CAPACITY) {
            // a long dead-letter pass may have grown it; a consumer's ledger stays near its window
            tags = new long[INITIAL_CAPACITY];
            states = new byte[INITIAL_CAPACITY];
        }
    }

    int outstanding() {
        return outstanding;
    }

    boolean isOutstanding(long tag) {
        int slot = slotOf(tag);
        return slot >= 0 && states[slot] != GONE;
    }

    /** The slot holding {@code tag}, or -1. Tags are mostly consecutive, so its distance from the front is tried first. */
    private int slotOf(long tag) {
        if (head == tail || tag < tags[head] || tag > tags[tail - 1]) {
            return -1;
        }
        long guess = head + (tag - tags[head]);
        if (guess < tail && tags[(int) guess] == tag) {
            return (int) guess;
        }
        int at = Arrays.binarySearch(tags, head, tail, tag);
        return at >= 0 ? at : -1;
    }

    /** Boxed form of {@link #plan(long[], int, long[], int)}, for callers with few tags. */
    Plan plan(Collection<Long> acks, Collection<Long> nacks) {
        return plan(toArray(acks), acks.size(), toArray(nacks), nacks.size());
    }

    private static long[] toArray(Collection<Long> tags) {
        long[] array = new long[tags.size()];
        int i = 0;
        for (long tag : tags) {
            array[i++] = tag;
        }
        return array;
    }

    /**
     * Plans the frames for a batch and forgets the tags it covers. Tags that are not outstanding (never delivered on
     * this channel epoch, or already settled, or twice in the batch) are reported in {@link Plan#unknown()} and not
     * written.
     *
     * @param acks the settled tags to acknowledge, in {@code acks[0, ackCount)}, in any order
     * @param nacks the tags to return, in {@code nacks[0, nackCount)}
     */
    Plan plan(long[] acks, int ackCount, long[] nacks, int nackCount) {
        List<Long> unknown = List.of();
        List<Long> nackList = List.of();
        for (int i = 0; i < nackCount; i++) {
            long tag = nacks[i];
            int slot = slotOf(tag);
            if (slot >= 0 && states[slot] == OUTSTANDING) {
                states[slot] = GONE;
                outstanding--;
                nackList = add(nackList, tag, nackCount);
            } else {
                unknown = add(unknown, tag, 4);
            }
        }
        if (marked.length < ackCount) {
            marked = new int[Math.max(ackCount, marked.length * 2)];
        }
        int markedCount = 0;
        for (int i = 0; i < ackCount; i++) {
            long tag = acks[i];
            int slot = slotOf(tag);
            if (slot >= 0 && states[slot] == OUTSTANDING) {
                states[slot] = ACKING;
                marked[markedCount++] = slot;
            } else {
                unknown = add(unknown, tag, 4);
            }
        }
        // The run: from the front, past gone slots, for as long as every outstanding tag is one being acknowledged.
        long upTo = 0;
        int count = 0;
        int left = markedCount;
        for (int slot = head; slot < tail && left > 0; slot++) {
            byte state = states[slot];
            if (state == OUTSTANDING) {
                break;
            }
            if (state == ACKING) {
                states[slot] = GONE;
                upTo = tags[slot];
                count++;
                left--;
            }
        }
        outstanding -= count;
        List<Long> singles = List.of();
        if (count == 1) {
            singles = add(singles, upTo, left + 1);
            upTo = 0;
            count = 0;
        }
        if (left > 0) {
            // What the run did not reach, in tag order (slots are in tag order).
            Arrays.sort(marked, 0, markedCount);
            for (int i = 0; i < markedCount; i++) {
                int slot = marked[i];
                if (states[slot] == ACKING) {
                    states[slot] = GONE;
                    outstanding--;
                    singles = add(singles, tags[slot], left + 1);
                }
            }
        }
        while (head < tail && states[head] == GONE) {
            head++;
        }
        if (head == tail) {
            head = 0;
            tail = 0;
        }
        return new Plan(nackList, upTo, count, singles, unknown);
    }

    /** Appends to a list that starts as the shared empty one, so that a batch without any allocates none. */
    private static List<Long> add(List<Long> list, long tag, int expected) {
        List<Long> to = list.isEmpty() ? new ArrayList<>(expected) : list;
        to.add(tag);
        return to;
    }
}
