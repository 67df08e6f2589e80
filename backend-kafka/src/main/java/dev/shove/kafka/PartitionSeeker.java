package dev.shove.kafka;

import dev.shove.Position;
import dev.shove.spi.Delivery;
import dev.shove.spi.SettleCallback;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;

/**
 * Moves one consumer's partitions: the engine's moves ({@link dev.shove.spi.Subscription#seek}), start positions, and
 * seeks back to read returned records again. After an engine move the moved partitions start afresh at the new
 * position, which is committed soon, so the whole group goes on from there.
 *
 * <p>Poll thread only, like the {@code KafkaConsumer} it seeks; not thread-safe. Its blocking calls may run in a
 * rebalance callback, inside a long poll, so they go through {@link PollWaker#retryWoken}.
 */
final class PartitionSeeker {
    /** A move asked by the engine, carried out on the poll thread. */
    record SeekRequest(Position position, List<Delivery> abandoned, CompletableFuture<Void> done) {}

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaConfig config;
    private final String queue;
    private final String consumerId;
    private final PollState pollState;
    private final OwnedPartitions owned;
    private final FetchedRecords backlog;
    private final AtomicInteger outstanding;
    private final OffsetCommitter committer;

    /** Partitions to seek back to read returned records again: partition → lowest returned offset. */
    private final Map<Integer, Long> seeks = new HashMap<>();

    PartitionSeeker(
            KafkaConsumer<byte[], byte[]> consumer,
            KafkaConfig config,
            String queue,
            String consumerId,
            PollState pollState,
            OffsetCommitter committer) {
        this.consumer = consumer;
        this.config = config;
        this.queue = queue;
        this.consumerId = consumerId;
        this.pollState = pollState;
        this.owned = pollState.owned;
        this.backlog = pollState.backlog;
        this.outstanding = pollState.outstanding;
        this.committer = committer;
    }

    /**
     * Carries out one of the engine's moves and completes its future; the callbacks of settled records that the move
     * supersedes go to {@code ready}. A position not in the log fails the future, having moved nothing.
     */
    void move(SeekRequest seek, boolean paused, List<SettleCallback> ready) {
        try {
            Position position = seek.position();
            List<TopicPartition> targets = new ArrayList<>();
            if (position instanceof Position.Captured captured) {
                PartitionState state = owned.get(captured.partition());
                if (!captured.queue().equals(queue) || state == null) {
                    throw new IllegalArgumentException("position " + captured + " is not in a partition of topic '"
                            + queue + "' assigned to consumer " + consumerId);
                }
                targets.add(state.partition);
            } else {
                for (PartitionState state : owned.values()) {
                    targets.add(state.partition);
                }
            }
            moveTo(position, targets); // throws before anything changed when the position does not exist
            Set<Integer> moved = new HashSet<>();
            for (TopicPartition tp : targets) {
                moved.add(tp.partition());
            }
            for (Delivery d : seek.abandoned()) {
                KafkaDelivery kd = (KafkaDelivery) d;
                outstanding.decrementAndGet();
                if (!moved.contains(kd.partition()) && owned.get(kd.partition()) == kd.state) {
                    // withdrawn from a partition that does not move: read it again
                    kd.state.markReturned(kd.offset());
                    seeks.merge(kd.partition(), kd.offset(), Math::min);
                }
            }
            backlog.removeIf(r -> moved.contains(r.partition()));
            // Records of the moved partitions handed out after the engine dropped its unstarted ones: take them
            // back too, or they would run after the move with their old positions.
            pollState.withdraw(kd -> moved.contains(kd.partition()) && owned.get(kd.partition()) == kd.state);
            for (TopicPartition tp : targets) {
                PartitionState old = owned.get(tp.partition());
                if (old != null) {
                    old.markMoved();
                    old.takeAll(ready); // settled records waiting for a commit: the move supersedes it
                    committer.partitionMoved(tp.partition()); // their copies still go out (transactional mode)
                }
                owned.put(tp.partition(), new PartitionState(tp, PollWaker.retryWoken(() -> consumer.position(tp))));
            }
            committer.countCompletion(); // commit the new positions soon
            if (!seeks.isEmpty()) {
                applySeeks(paused);
            }
            seek.done().complete(null);
        } catch (RuntimeException e) {
            seek.done().completeExceptionally(e);
        }
    }

    /**
     * Seeks {@code partitions} to {@code position}; throws {@link IllegalArgumentException}, having moved nothing,
     * when the position is not in the log (trimmed, or past the end).
     */
    void moveTo(Position position, Collection<TopicPartition> partitions) {
        switch (position) {
            case Position.Start s -> consumer.seekToBeginning(partitions);
            case Position.End e -> consumer.seekToEnd(partitions);
            case Position.Sequence sequence -> {
                checkInLog(partitions, sequence.sequence(), position);
                for (TopicPartition tp : partitions) {
                    consumer.seek(tp, sequence.sequence());
                }
            }
            case Position.Captured captured -> {
                checkInLog(partitions, captured.offset(), position);
                for (TopicPartition tp : partitions) {
                    consumer.seek(tp, captured.offset());
                }
            }
            case Position.Timestamp t -> {
                Map<TopicPartition, Long> times = new HashMap<>();
                for (TopicPartition tp : partitions) {
                    times.put(tp, t.time().toEpochMilli());
                }
                Map<TopicPartition, OffsetAndTimestamp> found =
                        PollWaker.retryWoken(() -> consumer.offsetsForTimes(times, config.apiTimeout()));
                List<TopicPartition> none = new ArrayList<>();
                for (TopicPartition tp : partitions) {
                    OffsetAndTimestamp at = found.get(tp);
                    if (at == null) {
                        none.add(tp);
                    } else {
                        consumer.seek(tp, at.offset());
                    }
                }
                if (!none.isEmpty()) {
                    consumer.seekToEnd(none); // nothing at or after that time yet
                }
            }
        }
    }

    private void checkInLog(Collection<TopicPartition> partitions, long offset, Position position) {
        Duration timeout = config.apiTimeout();
        Map<TopicPartition, Long> first = PollWaker.retryWoken(() -> consumer.beginningOffsets(partitions, timeout));
        Map<TopicPartition, Long> end = PollWaker.retryWoken(() -> consumer.endOffsets(partitions, timeout));
        for (TopicPartition tp : partitions) {
            if (offset < first.getOrDefault(tp, 0L) || offset > end.getOrDefault(tp, 0L)) {
                throw new IllegalArgumentException("position " + position + " is not in partition " + tp.partition()
                        + " of topic '" + queue + "', which holds offsets " + first.get(tp) + " to "
                        + end.get(tp));
            }
        }
    }

    /**
     * Reads every owned partition again from its last committed offset, after an aborted transaction (transactional
     * mode) threw away the copies and offsets of the records settled since: the unstarted records are withdrawn, the
     * callbacks waiting for a commit fail (the records will be delivered again), and each partition gets a fresh
     * state, so settlements of records still running are refused when they arrive.
     */
    void rewind(SettleCallbacks callbacks) {
        List<PartitionState> states = new ArrayList<>(owned.values());
        Set<Integer> numbers = new HashSet<>();
        for (PartitionState s : states) {
            numbers.add(s.partition.partition());
        }
        backlog.removeIf(r -> numbers.contains(r.partition()));
        pollState.withdraw(kd -> numbers.contains(kd.partition()));
        List<SettleCallback> orphans = new ArrayList<>();
        for (PartitionState old : states) {
            int partition = old.partition.partition();
            seeks.remove(partition);
            old.takeAll(orphans);
            long point = old.rewindPoint();
            owned.put(
                    partition,
                    point >= 0 ? new PartitionState(old.partition, point) : new PartitionState(old.partition));
            if (point >= 0) {
                try {
                    consumer.seek(old.partition, point);
                } catch (IllegalStateException e) {
                    owned.remove(partition); // no longer assigned: its next owner reads it from the committed offset
                }
            }
        }
        committer.partitionsGone(numbers);
        callbacks.fail(orphans, "the transaction of its settlement was aborted; it will be delivered again");
    }

    /** The record at {@code offset} was returned: its partition is to be read again from there. */
    void readAgain(int partition, long offset) {
        seeks.merge(partition, offset, Math::min);
    }

    /** Whether returned records wait for their partition to be sought back. */
    boolean hasSeeks() {
        return !seeks.isEmpty();
    }

    /** Reads returned records again: seek each partition back to its lowest returned offset. */
    void applySeeks(boolean paused) {
        if (paused) {
            seeks.clear(); // stopping: the next owner reads them from the committed offset
            return;
        }
        for (Map.Entry<Integer, Long> e : seeks.entrySet()) {
            int partition = e.getKey();
            long offset = e.getValue();
            PartitionState state = owned.get(partition);
            if (state == null) {
                continue;
            }
            backlog.removeIf(r -> r.partition() == partition && r.offset() >= offset);
            consumer.seek(state.partition, offset);
        }
        seeks.clear();
    }
}
