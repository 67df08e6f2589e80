package dev.shove.kafka;

import dev.shove.spi.SettleCallback;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transactional settlement of one consumer ({@link KafkaConfig#transactional()}): its own transactional producer, and
 * the copies (replies, hold copies, dead-letter copies) of the records it settled, kept until the offset commit that
 * covers their records. Each coalesced commit of {@link OffsetCommitter} is one transaction: the copies of the records
 * the new commit points pass, then the offsets ({@code sendOffsetsToTransaction} with the consumer's group metadata, so
 * a consumer thrown out of its group cannot commit), then {@code commitTransaction}. A copy of a record whose offset
 * cannot be committed yet (an earlier record of its partition is still in flight) waits for a later transaction: a
 * record's copies and its offset are committed together or not at all.
 *
 * <p>A transaction whose offsets the group refuses because a rebalance moved its generation on is aborted and
 * tried again with the next commit ({@link Result#RETRY}). Any other transaction that fails is aborted (a fenced or
 * broken producer is closed and replaced): its copies are never visible to {@code read_committed} readers and its
 * offsets are not committed, so the poll loop rewinds the consumer's partitions to their committed offsets ({@link
 * PartitionSeeker#rewind}) and the records are read and settled again.
 * Meter {@code shove.kafka.transactions} counts the outcomes ({@code committed}, {@code aborted}, {@code fenced}).
 *
 * <p>Poll thread only, like the {@code KafkaConsumer} whose group metadata it commits with; not thread-safe.
 */
final class SettlementTransactions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SettlementTransactions.class);

    /** How often a timed-out {@code commitTransaction} is tried again before the transaction is given up. */
    private static final int COMMIT_ATTEMPTS = 3;

    /** A settled record's copies, ready to send; the callback of a record whose partition moved meanwhile. */
    private record Pending(
            List<ProducerRecord<byte[], byte[]>> records,
            @Nullable SettleCallback callback) {}

    private final KafkaTransport transport;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String transactionalId;
    private final String queue;
    private final String consumerId;
    private final SettleCallbacks callbacks;
    private final Counter committedCount;
    private final Counter abortedCount;
    private final Counter fencedCount;

    private KafkaProducer<byte[], byte[]> producer;
    /** Copies of done records waiting for the commit of their offset: partition → offset → copies. */
    private final Map<Integer, NavigableMap<Long, Pending>> pending = new HashMap<>();
    /** Copies of settled records whose partition moved (a seek): sent with the next transaction, whatever it commits. */
    private final List<Pending> unconditional = new ArrayList<>();

    SettlementTransactions(
            KafkaTransport transport,
            KafkaConsumer<byte[], byte[]> consumer,
            String groupId,
            String queue,
            String consumerId,
            SettleCallbacks callbacks) {
        this.transport = transport;
        this.consumer = consumer;
        this.transactionalId =
                transport.claimTransactionalId(transport.context().clientName() + "-" + groupId + "-" + consumerId);
        this.queue = queue;
        this.consumerId = consumerId;
        this.callbacks = callbacks;
        MeterRegistry registry = transport.context().meterRegistry();
        this.committedCount = counter(registry, groupId, "committed");
        this.abortedCount = counter(registry, groupId, "aborted");
        this.fencedCount = counter(registry, groupId, "fenced");
        try {
            this.producer = newProducer();
        } catch (RuntimeException e) {
            transport.releaseTransactionalId(transactionalId);
            throw e;
        }
    }

    private Counter counter(MeterRegistry registry, String groupId, String outcome) {
        return Counter.builder("shove.kafka.transactions")
                .description("settlement transactions of transactional consumers, by outcome (committed; aborted: the"
                        + " records are read again; fenced: the producer was replaced)")
                .tag("topic", queue)
                .tag("consumer_group", groupId)
                .tag("outcome", outcome)
                .register(registry);
    }

    /**
     * A transactional producer with this consumer's transactional id; {@code initTransactions} aborts what an earlier
     * producer with the same id left open (a predecessor that crashed) and fences it.
     */
    private KafkaProducer<byte[], byte[]> newProducer() {
        KafkaProducer<byte[], byte[]> p =
                new KafkaProducer<>(transport.transactionalProducerProperties(transactionalId));
        try {
            p.initTransactions();
        } catch (RuntimeException e) {
            p.close(Duration.ZERO);
            throw e;
        }
        return p;
    }

    String transactionalId() {
        return transactionalId;
    }

    /** The record at {@code offset} of {@code partition} is done; its copies go with the commit that passes it. */
    void add(int partition, long offset, List<ProducerRecord<byte[], byte[]>> records) {
        pending.computeIfAbsent(partition, p -> new TreeMap<>()).put(offset, new Pending(records, null));
    }

    /**
     * A record of a partition that moved away (a seek) was settled with copies: they go with the next transaction and
     * {@code callback} is answered when it ends.
     */
    void addUnconditional(List<ProducerRecord<byte[], byte[]>> records, SettleCallback callback) {
        unconditional.add(new Pending(records, callback));
    }

    /** Whether copies wait for the next transaction whatever offsets it commits. */
    boolean hasUnconditional() {
        return !unconditional.isEmpty();
    }

    /** The partition moved (a seek) and its done records were settled: their copies go with the next transaction. */
    void moved(int partition) {
        NavigableMap<Long, Pending> left = pending.remove(partition);
        if (left != null) {
            unconditional.addAll(left.values());
        }
    }

    /** The partitions are gone (revoked, lost, rewound): their records are read again, their copies dropped. */
    void forget(Collection<Integer> partitions) {
        for (Integer p : partitions) {
            pending.remove(p);
        }
    }

    /** How a transaction of {@link #commit} ended. */
    enum Result {
        /** Committed. */
        COMMITTED,
        /**
         * Aborted because the group's generation moved on (a rebalance under way): nothing of it is visible, its
         * copies wait again, and the next commit (with the new generation) carries them and the offsets.
         */
        RETRY,
        /** Aborted for another reason: nothing of it is committed, its records must be read again. */
        REWIND
    }

    /**
     * Commits {@code offsets} and the copies of the records below them in one transaction; the callbacks of settled
     * records of moved partitions it carried go to {@code ready} once it committed.
     */
    Result commit(Map<TopicPartition, OffsetAndMetadata> offsets, List<SettleCallback> ready) {
        List<Pending> carried = new ArrayList<>(unconditional);
        unconditional.clear();
        Map<Integer, NavigableMap<Long, Pending>> taken = new HashMap<>();
        List<Pending> batch = new ArrayList<>(carried);
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            NavigableMap<Long, Pending> byOffset = pending.get(e.getKey().partition());
            if (byOffset != null) {
                NavigableMap<Long, Pending> covered =
                        byOffset.headMap(e.getValue().offset(), false);
                if (!covered.isEmpty()) {
                    TreeMap<Long, Pending> copy = new TreeMap<>(covered);
                    taken.put(e.getKey().partition(), copy);
                    batch.addAll(copy.values());
                    covered.clear();
                }
            }
        }
        if (batch.isEmpty() && offsets.isEmpty()) {
            return Result.COMMITTED;
        }
        AtomicReference<@Nullable Exception> sendFailure = new AtomicReference<>();
        int copies = 0;
        try {
            producer.beginTransaction();
            for (Pending p : batch) {
                for (ProducerRecord<byte[], byte[]> r : p.records()) {
                    copies++;
                    producer.send(r, (metadata, error) -> {
                        if (error != null) {
                            sendFailure.compareAndSet(null, error);
                        }
                    });
                }
            }
            if (!offsets.isEmpty()) {
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            }
            commitTransaction();
            committedCount.increment();
            for (Pending p : carried) {
                if (p.callback() != null) {
                    ready.add(p.callback());
                }
            }
            return Result.COMMITTED;
        } catch (RuntimeException e) {
            Exception cause = sendFailure.get() != null ? sendFailure.get() : e;
            boolean generationMoved = sendFailure.get() == null
                    && (e instanceof CommitFailedException || e instanceof RebalanceInProgressException);
            abort(e, cause, copies, offsets, generationMoved);
            if (generationMoved) {
                // Nothing was wrong with the copies: they wait for the next commit, made with the new generation.
                unconditional.addAll(carried);
                taken.forEach((partition, byOffset) ->
                        pending.computeIfAbsent(partition, p -> new TreeMap<>()).putAll(byOffset));
                return Result.RETRY;
            }
            List<SettleCallback> failed = new ArrayList<>();
            for (Pending p : carried) {
                if (p.callback() != null) {
                    failed.add(p.callback());
                }
            }
            callbacks.fail(failed, "the transaction of its copies was aborted (" + cause + ")");
            return Result.REWIND;
        }
    }

    /** Commits the open transaction; a commit that timed out is tried again, as the producer requires. */
    private void commitTransaction() {
        for (int attempt = 1; ; attempt++) {
            try {
                producer.commitTransaction();
                return;
            } catch (TimeoutException e) {
                if (attempt >= COMMIT_ATTEMPTS) {
                    throw e;
                }
                log.warn(
                        "consumer {} of topic '{}': committing transaction {} timed out ({}); trying again",
                        consumerId,
                        queue,
                        transactionalId,
                        e.getMessage());
            }
        }
    }

    private void abort(
            RuntimeException error,
            Exception cause,
            int copies,
            Map<TopicPartition, OffsetAndMetadata> offsets,
            boolean generationMoved) {
        if (isFatal(error) || isFatal(cause)) {
            fencedCount.increment();
            log.error(
                    "consumer {} of topic '{}': transactional producer {} can no longer commit ({}); if another process"
                            + " uses the same transactional id, give each instance its own Broker clientName. The"
                            + " producer is replaced and the records of its transaction ({} copies, offsets {}) will be"
                            + " delivered again",
                    consumerId,
                    queue,
                    transactionalId,
                    cause.toString(),
                    copies,
                    offsets);
            replaceProducer();
            return;
        }
        abortedCount.increment();
        if (generationMoved) {
            log.info(
                    "consumer {} of topic '{}': transaction {} aborted because the group is rebalancing ({}); its {}"
                            + " copies and offsets {} go with the next commit",
                    consumerId,
                    queue,
                    transactionalId,
                    cause.toString(),
                    copies,
                    offsets);
        } else {
            log.warn(
                    "consumer {} of topic '{}': transaction {} aborted ({}): its {} copies are discarded and its"
                            + " offsets {} not committed; the records will be delivered again",
                    consumerId,
                    queue,
                    transactionalId,
                    cause.toString(),
                    copies,
                    offsets);
        }
        try {
            producer.abortTransaction();
        } catch (RuntimeException e) {
            log.warn(
                    "consumer {} of topic '{}': aborting transaction {} failed ({}); replacing the producer",
                    consumerId,
                    queue,
                    transactionalId,
                    e.toString());
            replaceProducer();
        }
    }

    private static boolean isFatal(Throwable e) {
        return e instanceof ProducerFencedException
                || e instanceof OutOfOrderSequenceException
                || e instanceof AuthorizationException
                || e instanceof UnsupportedVersionException;
    }

    /** Closes the broken producer and starts a new one with the same id, which aborts whatever the old one left open. */
    private void replaceProducer() {
        try {
            producer.close(Duration.ZERO);
        } catch (RuntimeException e) {
            log.debug("closing the fenced producer {}: {}", transactionalId, e.toString());
        }
        producer = newProducer();
    }

    @Override
    public void close() {
        pending.clear();
        List<SettleCallback> carried = new ArrayList<>();
        for (Pending p : unconditional) {
            if (p.callback() != null) {
                carried.add(p.callback());
            }
        }
        unconditional.clear();
        callbacks.fail(carried, "the consumer closed before the transaction of its copies");
        try {
            producer.close(Duration.ofSeconds(5)); // an open transaction is aborted by the broker
        } catch (RuntimeException e) {
            log.warn("closing transactional producer {} of topic '{}': {}", transactionalId, queue, e.toString());
        } finally {
            transport.releaseTransactionalId(transactionalId);
        }
    }
}
