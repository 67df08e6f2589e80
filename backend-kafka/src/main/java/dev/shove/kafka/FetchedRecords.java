package dev.shove.kafka;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * The records one consumer has fetched and not yet handed to the engine (its backlog), kept per partition and handed
 * out one partition at a time in turn: each partition's records in their offset order, the partitions interleaved.
 *
 * <p>Why interleaved: {@code KafkaConsumer.poll} returns the records of one partition's fetch until they run out
 * before it moves to the next partition, so a consumer behind on its partitions would otherwise hand the engine
 * hundreds of records of one partition at a time. On a sequenced topic those carry only the keys of that partition
 * (an eighth of them with 8 partitions), and the records of busy keys wait in their lanes, holding window space, while
 * the keys of the other partitions are not read at all. The poll loop pauses every partition that has records here
 * and fetches the others, so the backlog holds several partitions at once and the window fills from all of them.
 *
 * <p>Poll thread only. {@link #takeTurnsChanged} tells the poll loop when the set of partitions with records changed
 * (which partitions it pauses).
 */
final class FetchedRecords {
    private final Map<Integer, Partition> byPartition = new HashMap<>();
    /** The partitions that have records here, in hand-out order; each appears once. */
    private final ArrayDeque<Partition> turns = new ArrayDeque<>();

    private int size;
    private boolean turnsChanged;

    /** One partition's records here, oldest first; the turns hold it directly, so a hand-out looks nothing up. */
    private static final class Partition {
        final ArrayDeque<ConsumerRecord<byte[], byte[]>> records = new ArrayDeque<>();
    }

    void add(ConsumerRecord<byte[], byte[]> record) {
        Partition p = byPartition.computeIfAbsent(record.partition(), n -> new Partition());
        if (p.records.isEmpty()) {
            turns.addLast(p);
            turnsChanged = true;
        }
        p.records.addLast(record);
        size++;
    }

    /** Takes the next record: the oldest of the partition whose turn it is, which then goes to the end of the turns. */
    @Nullable
    ConsumerRecord<byte[], byte[]> poll() {
        Partition p = turns.pollFirst();
        if (p == null) {
            return null;
        }
        ConsumerRecord<byte[], byte[]> record = p.records.pollFirst();
        size--;
        if (p.records.isEmpty()) {
            turnsChanged = true;
        } else {
            turns.addLast(p);
        }
        return record;
    }

    /** Drops the records {@code which} matches (revoked or moved partitions, records to be read again). */
    void removeIf(Predicate<? super ConsumerRecord<byte[], byte[]>> which) {
        for (Iterator<Partition> it = turns.iterator(); it.hasNext(); ) {
            ArrayDeque<ConsumerRecord<byte[], byte[]>> records = it.next().records;
            int before = records.size();
            records.removeIf(which);
            size -= before - records.size();
            if (records.isEmpty()) {
                it.remove();
                turnsChanged = true;
            }
        }
    }

    /** Whether records of {@code partition} wait here. */
    boolean holds(int partition) {
        Partition p = byPartition.get(partition);
        return p != null && !p.records.isEmpty();
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** Whether a partition gained its first record here or lost its last since the last call; clears the flag. */
    boolean takeTurnsChanged() {
        boolean changed = turnsChanged;
        turnsChanged = false;
        return changed;
    }
}
