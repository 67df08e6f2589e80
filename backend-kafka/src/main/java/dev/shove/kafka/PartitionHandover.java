package dev.shove.kafka;

import dev.shove.Position;
import dev.shove.spi.Delivery;
import dev.shove.spi.DurationText;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.SubscriptionRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How partitions come to one consumer and leave it. Assigned by the group, a partition gets a fresh {@link
 * PartitionState}, its sequenced retries' waits are restored from its committed offset, and the consumer's first
 * assignment starts at the start position. Revoked, a partition first has its unstarted records withdrawn from the
 * engine, then waits (up to {@code revocationTimeout}) for its in-flight records, commits what is contiguous, and lets
 * go; lost, it lets go at once. A broadcast subscriber, outside any group, takes every partition itself.
 *
 * <p>Poll thread only: the group's callbacks run inside {@code poll}, possibly a long poll that another thread wakes,
 * so the blocking calls go through {@link PollWaker#retryWoken}; not thread-safe.
 */
final class PartitionHandover {
    private static final Logger log = LoggerFactory.getLogger(PartitionHandover.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaConfig config;
    private final SubscriptionRequest request;
    private final String queue;
    private final String consumerId;
    private final boolean main;
    private final PollState pollState;
    private final OwnedPartitions owned;
    private final FetchedRecords backlog;
    private final PollInbox inbox;
    private final OffsetCommitter committer;
    private final PartitionSeeker seeker;
    private final SettleCallbacks callbacks;

    private boolean startApplied;

    PartitionHandover(
            KafkaConsumer<byte[], byte[]> consumer,
            KafkaConfig config,
            SubscriptionRequest request,
            PollState pollState,
            PollInbox inbox,
            OffsetCommitter committer,
            PartitionSeeker seeker,
            SettleCallbacks callbacks) {
        this.consumer = consumer;
        this.config = config;
        this.request = request;
        this.queue = request.queue();
        this.consumerId = request.consumerId();
        this.main = request.source() == SubscriptionRequest.Source.MAIN;
        this.pollState = pollState;
        this.owned = pollState.owned;
        this.backlog = pollState.backlog;
        this.inbox = inbox;
        this.committer = committer;
        this.seeker = seeker;
        this.callbacks = callbacks;
    }

    /**
     * A broadcast subscriber takes every partition itself and starts at the end (what is published from now on) or at
     * its start position; the positions are resolved here, before {@link KafkaSubscription#awaitJoined} returns, so
     * nothing published after the subscription opened is missed.
     */
    void assignEverything() {
        List<TopicPartition> partitions = new ArrayList<>();
        for (var info : PollWaker.retryWoken(() -> consumer.partitionsFor(queue, config.apiTimeout()))) {
            partitions.add(new TopicPartition(queue, info.partition()));
        }
        consumer.assign(partitions);
        for (TopicPartition tp : partitions) {
            owned.put(tp.partition(), new PartitionState(tp));
        }
        startApplied = true;
        Position start = request.startAt();
        try {
            seeker.moveTo(start == null ? Position.end() : start, partitions);
        } catch (IllegalArgumentException e) {
            log.warn(
                    "broadcast subscriber {} of topic '{}' cannot start at {}: {}; it starts at the end",
                    consumerId,
                    queue,
                    start,
                    e.getMessage());
            consumer.seekToEnd(partitions);
        }
        for (TopicPartition tp : partitions) {
            PollWaker.retryWoken(() -> consumer.position(tp, config.apiTimeout())); // now, not at the first fetch
        }
    }

    /**
     * The group gave this consumer {@code partitions}: fresh partition states, the waits committed with them restored,
     * and on the first assignment the start position.
     */
    void assigned(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            owned.put(tp.partition(), new PartitionState(tp));
        }
        restoreWaits(partitions);
        Position start = request.startAt();
        if (!startApplied && !partitions.isEmpty()) {
            // The start position applies to the partitions of this consumer's first assignment only: partitions that
            // move to it later in a rebalance go on from the group's committed offsets.
            startApplied = true;
            if (start != null) {
                try {
                    seeker.moveTo(start, partitions);
                    log.info("consumer {} of topic '{}' starts at {}", consumerId, queue, start);
                } catch (RuntimeException e) {
                    log.warn(
                            "consumer {} of topic '{}' cannot start at {}: {}; it starts at the group's offsets",
                            consumerId,
                            queue,
                            start,
                            e.getMessage());
                }
            }
        }
        if (!partitions.isEmpty()) {
            log.debug("consumer {} of topic '{}' got partitions {}", consumerId, queue, partitions);
        }
    }

    /** Reads the sequenced retries waiting in the partitions' committed offsets' metadata ({@link WaitingOffsets}). */
    private void restoreWaits(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty() || !main || !request.topic().isSequenced()) {
            return; // only sequenced topics wait in place: no round trip for the others
        }
        try {
            Map<TopicPartition, OffsetAndMetadata> committed =
                    PollWaker.retryWoken(() -> consumer.committed(new HashSet<>(partitions), config.apiTimeout()));
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
                PartitionState state = owned.get(e.getKey().partition());
                if (e.getValue() == null || state == null) {
                    continue;
                }
                var waits = WaitingOffsets.decode(e.getValue().metadata());
                if (!waits.isEmpty()) {
                    state.restore(waits);
                    log.debug(
                            "consumer {} of topic '{}' resumes {} waiting retries in partition {}",
                            consumerId,
                            queue,
                            waits.size(),
                            e.getKey().partition());
                }
            }
        } catch (RuntimeException e) {
            log.warn(
                    "consumer {} of topic '{}' could not read the committed offsets of {}: {}; retries that waited"
                            + " there start again from their published retry count",
                    consumerId,
                    queue,
                    partitions,
                    e.toString());
        }
    }

    /**
     * The group takes {@code partitions} back: their unstarted records are withdrawn, the in-flight ones waited for (up
     * to {@code revocationTimeout}), and what is contiguous is committed before they go.
     */
    void revoked(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        letGo(partitions, true);
    }

    /** {@code partitions} were lost (this consumer was thrown out of the group): let go without committing. */
    void lost(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        letGo(partitions, false);
    }

    private void letGo(Collection<TopicPartition> partitions, boolean commit) {
        Set<Integer> numbers = new HashSet<>();
        List<PartitionState> states = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            numbers.add(tp.partition());
            PartitionState state = owned.get(tp.partition());
            if (state != null) {
                states.add(state);
            }
        }
        backlog.removeIf(r -> numbers.contains(r.partition()));
        List<Delivery> withdrawn = pollState.withdraw(kd -> numbers.contains(kd.partition()));
        for (Delivery d : withdrawn) {
            KafkaDelivery kd = (KafkaDelivery) d;
            kd.state.markReturned(kd.offset());
        }
        if (commit) {
            long deadline = System.nanoTime() + config.revocationTimeout().toNanos();
            try {
                while (inFlight(states) > 0 && System.nanoTime() < deadline) {
                    inbox.apply(TimeUnit.MILLISECONDS.toNanos(10));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int left = inFlight(states);
            if (left > 0) {
                log.warn(
                        "consumer {} lost partitions {} of topic '{}' with {} record(s) still in flight after {}; they"
                                + " will be delivered again to the new owner",
                        consumerId,
                        numbers,
                        queue,
                        left,
                        DurationText.of(config.revocationTimeout()));
            }
            committer.commitNow(states);
        }
        List<SettleCallback> orphans = new ArrayList<>();
        for (PartitionState state : states) {
            state.takeAll(orphans);
            owned.remove(state.partition.partition(), state);
        }
        committer.partitionsGone(numbers);
        callbacks.fail(
                orphans, "its partition was revoked before the commit; it will be delivered again by the new owner");
        log.debug(
                "consumer {} of topic '{}' let go of partitions {} ({} withdrawn)",
                consumerId,
                queue,
                numbers,
                withdrawn.size());
    }

    private static int inFlight(List<PartitionState> states) {
        int n = 0;
        for (PartitionState s : states) {
            n += s.inFlight();
        }
        return n;
    }
}
