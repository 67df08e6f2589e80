package dev.shove.rabbitmq;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

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
 * <p>Not thread-safe: its subscription guards it (a scan is used by one thread at a time).
 */
final class AckLedger {
    /** What to write for one batch: nacks first, then the multiple-ack (if any), then single acks. */
    record Plan(List<Long> nacks, long multipleUpTo, int multipleCount, List<Long> singles, List<Long> unknown) {
        boolean isEmpty() {
            return nacks.isEmpty() && multipleUpTo == 0 && singles.isEmpty();
        }
    }

    private final TreeSet<Long> outstanding = new TreeSet<>();

    /** A tag was delivered. Tags grow on a channel (also across recovery), so this appends. */
    void delivered(long tag) {
        outstanding.add(tag);
    }

    /** The channel is gone: the broker requeued every outstanding tag by itself. */
    void clear() {
        outstanding.clear();
    }

    int outstanding() {
        return outstanding.size();
    }

    boolean isOutstanding(long tag) {
        return outstanding.contains(tag);
    }

    /**
     * Plans the frames for a batch and forgets the tags it covers. Tags that are not outstanding (never delivered on
     * this channel epoch, or already settled) are reported in {@link Plan#unknown()} and not written.
     */
    Plan plan(Collection<Long> acks, Collection<Long> nacks) {
        List<Long> unknown = new ArrayList<>();
        List<Long> nackList = new ArrayList<>(nacks.size());
        for (Long tag : nacks) {
            if (outstanding.remove(tag)) {
                nackList.add(tag);
            } else {
                unknown.add(tag);
            }
        }
        Set<Long> toAck = new HashSet<>(acks.size() * 2);
        for (Long tag : acks) {
            if (outstanding.contains(tag) && toAck.add(tag)) {
                continue;
            }
            unknown.add(tag);
        }
        long upTo = 0;
        int count = 0;
        Iterator<Long> it = outstanding.iterator();
        while (it.hasNext()) {
            long tag = it.next();
            if (!toAck.remove(tag)) {
                break;
            }
            it.remove();
            upTo = tag;
            count++;
        }
        List<Long> singles = new ArrayList<>(toAck);
        singles.sort(null);
        if (count == 1) {
            singles.addFirst(upTo);
            upTo = 0;
            count = 0;
        }
        for (Long tag : singles) {
            outstanding.remove(tag);
        }
        return new Plan(nackList, upTo, count, singles, unknown);
    }
}
