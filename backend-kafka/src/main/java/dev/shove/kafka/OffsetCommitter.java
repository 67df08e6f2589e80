package dev.shove.kafka;

import dev.shove.spi.SettleCallback;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one consumer commits, and when. A partition's commit point is the run of done records at the front of its
 * {@link PartitionState}; it is committed with the sequenced retries waiting at or after it in the offset's metadata
 * ({@link WaitingOffsets}), so whoever reads the partition next goes on from there. Commits are coalesced: one
 * asynchronous commit once {@code commitBatch} changes have gathered or {@code commitInterval} has passed since the
 * first of them; a rebalance or the shutdown commits synchronously. In transactional mode each commit is one
 * transaction of {@link SettlementTransactions} that carries the copies of the records it passes. A done record's settle callback is confirmed once
 * a commit covering it is. A broadcast subscriber commits nothing.
 *
 * <p>Poll thread only, like the {@code KafkaConsumer} it commits with (whose {@code commitAsync} callbacks run there
 * too); not thread-safe.
 */
final class OffsetCommitter {
    private static final Logger log = LoggerFactory.getLogger(OffsetCommitter.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaConfig config;
    private final OwnedPartitions owned;
    private final SettleCallbacks callbacks;
    private final String queue;
    private final String consumerId;
    private final boolean broadcast;
    /** Transactional settlement, or null: offsets are committed by the consumer. */
    private final @Nullable SettlementTransactions transactions;

    private final List<SettleCallback> ready = new ArrayList<>();
    private int completedSinceCommit;
    private boolean rewindNeeded;
    private long firstCompletionNanos;
    private boolean waitsOverflowReported;

    /** Commits the commit points of the partition states in {@code owned} (the consumer's, shared with its poll loop). */
    OffsetCommitter(
            KafkaConsumer<byte[], byte[]> consumer,
            KafkaConfig config,
            OwnedPartitions owned,
            SettleCallbacks callbacks,
            String queue,
            String consumerId,
            boolean broadcast,
            @Nullable SettlementTransactions transactions) {
        this.consumer = consumer;
        this.config = config;
        this.owned = owned;
        this.callbacks = callbacks;
        this.queue = queue;
        this.consumerId = consumerId;
        this.broadcast = broadcast;
        this.transactions = transactions;
    }

    /** Something to commit changed (a record done or skipped, a wait recorded, a partition moved): commit it soon. */
    void countCompletion() {
        if (completedSinceCommit++ == 0) {
            firstCompletionNanos = System.nanoTime();
        }
    }

    /** Whether changes wait for the next coalesced commit. */
    boolean hasUncommitted() {
        return completedSinceCommit > 0;
    }

    /** Commits asynchronously if {@code commitBatch} changes have gathered or {@code commitInterval} has passed. */
    void commitIfDue() {
        if (broadcast) {
            return;
        }
        if (completedSinceCommit == 0) {
            return;
        }
        if (completedSinceCommit < config.commitBatch()
                && System.nanoTime() - firstCompletionNanos
                        < config.commitInterval().toNanos()) {
            return;
        }
        completedSinceCommit = 0;
        Map<TopicPartition, OffsetAndMetadata> offsets = commitPoints(owned.values());
        if (transactions != null) {
            if (!commitInTransaction(offsets)) {
                rewindNeeded = true; // the poll loop reads the aborted records again
            }
            return;
        }
        if (offsets.isEmpty()) {
            return;
        }
        consumer.commitAsync(offsets, (committed, error) -> {
            if (error == null) {
                onCommitted(committed);
            } else {
                log.debug("commit of {} on topic '{}' failed: {}", committed, queue, error.toString());
                for (TopicPartition tp : offsets.keySet()) {
                    PartitionState state = owned.get(tp.partition());
                    if (state != null) {
                        state.commitFailed();
                    }
                }
                countCompletion();
            }
        });
    }

    /** Commits synchronously (rebalance, shutdown); confirms the callbacks it covers. */
    void commitNow(Collection<PartitionState> states) {
        if (broadcast) {
            return;
        }
        for (PartitionState state : states) {
            state.commitFailed(); // resend the current point even if an async commit of it is still in flight
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = commitPoints(states);
        if (transactions != null) {
            commitInTransaction(offsets); // the partitions are let go: their records are delivered again if it fails
            return;
        }
        if (offsets.isEmpty()) {
            return;
        }
        try {
            PollWaker.retryWoken(() -> consumer.commitSync(offsets, config.apiTimeout())); // in a revocation too
            for (PartitionState state : states) {
                OffsetAndMetadata om = offsets.get(state.partition);
                if (om != null) {
                    state.committed(om.offset(), ready);
                }
            }
            callbacks.succeed(ready);
        } catch (RuntimeException e) {
            log.warn(
                    "consumer {} could not commit {} on topic '{}': {}; those records will be delivered again",
                    consumerId,
                    offsets,
                    queue,
                    e.toString());
        }
    }

    /**
     * Transactional mode: commits {@code offsets} with the copies of the records they pass in one transaction and
     * confirms the callbacks it covers; false if the transaction was aborted.
     */
    private boolean commitInTransaction(Map<TopicPartition, OffsetAndMetadata> offsets) {
        SettlementTransactions tx = Objects.requireNonNull(transactions);
        if (offsets.isEmpty() && !tx.hasUnconditional()) {
            return true;
        }
        SettlementTransactions.Result result = tx.commit(offsets, ready);
        if (result == SettlementTransactions.Result.REWIND) {
            return false;
        }
        if (result == SettlementTransactions.Result.RETRY) {
            for (TopicPartition tp : offsets.keySet()) {
                PartitionState state = owned.get(tp.partition());
                if (state != null) {
                    state.commitFailed(); // send the offsets again with the next commit
                }
            }
            countCompletion();
            return true;
        }
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            PartitionState state = owned.get(e.getKey().partition());
            if (state != null) {
                state.committed(e.getValue().offset(), ready);
            }
        }
        callbacks.succeed(ready);
        return true;
    }

    /** A seek moved {@code partition}: the copies of its settled records go with the next transaction. */
    void partitionMoved(int partition) {
        if (transactions != null) {
            transactions.moved(partition);
        }
    }

    /** The partitions are gone from this consumer (or read again): copies of their records are not committed. */
    void partitionsGone(Collection<Integer> partitions) {
        if (transactions != null) {
            transactions.forget(partitions);
        }
    }

    /** Whether an aborted transaction left records to read again ({@link PartitionSeeker#rewind}); clears the flag. */
    boolean takeRewind() {
        boolean r = rewindNeeded;
        rewindNeeded = false;
        return r;
    }

    /** The transactional settlement of this consumer, or null. */
    @Nullable
    SettlementTransactions transactions() {
        return transactions;
    }

    private Map<TopicPartition, OffsetAndMetadata> commitPoints(Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionState state : states) {
            long point = state.takeCommit();
            if (point >= 0) {
                offsets.put(state.partition, new OffsetAndMetadata(point, state.commitMetadata(point)));
                if (!waitsOverflowReported && !state.waitsFit()) {
                    waitsOverflowReported = true;
                    log.warn(
                            "partition {} of topic '{}' has more sequenced retries waiting than fit into the commit"
                                    + " metadata; if consumer {} stops now, the last of them start again from their"
                                    + " published retry count",
                            state.partition.partition(),
                            queue,
                            consumerId);
                }
            }
        }
        return offsets;
    }

    private void onCommitted(Map<TopicPartition, OffsetAndMetadata> committed) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
            PartitionState state = owned.get(e.getKey().partition());
            if (state != null) {
                state.committed(e.getValue().offset(), ready);
            }
        }
        callbacks.succeed(ready);
    }
}
