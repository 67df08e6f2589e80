package dev.shove.kafka;

import dev.shove.HoldTier;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.WireHeaders;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings retries back from a topic's hold topics to its main topic when they are due. One per unsequenced topic per
 * process, running while any consumer of the topic is open there; every relay of a topic, in every process, is a
 * member of one Kafka consumer group ({@code shove-relay-{topic}}), so the hold partitions are shared between the
 * processes and a relay that dies is replaced by the others after the session timeout.
 *
 * <p>Why a partition is paused until its head is due, and why a head may be moved to the end: a hold topic holds copies
 * of one delay tier, appended in the order they were made, so their due times ({@code shove-not-before}) rise along
 * each partition, and the head is the next one due. The relay reads a partition, republishes the records that are due
 * (all headers kept, to the partition they came from), and when the head record is not due yet it pauses the
 * partition and polls again at most when that record falls due. One kind of copy breaks the rising order: a delay
 * longer than the longest tier waits in that tier (the core rounds it down to no tier, it keeps the full delay in
 * {@code shove-not-before}), so it stays at the head far longer than the tier and would hold up every copy behind it.
 * Such a head, once its tier's delay has passed since it was appended, is appended again to the end of its own hold
 * partition unchanged and the relay moves on: it goes round the tier until it is due, never delaying another retry.
 * An offset is committed only after the republished (or re-appended) record is acknowledged by the broker, and only
 * contiguously, so a relay killed at any moment loses nothing (at worst a record is brought back twice).
 *
 * <p>With {@link KafkaConfig#transactional()} the relay has a transactional producer of its own and each round of
 * records it brings back (or re-appends) is one transaction with the hold offsets it passes, so a relay killed at any
 * moment brings nothing back twice; a transaction that fails is aborted and the relay restarts (from its committed
 * offsets), as after any failure.
 */
final class HoldRelay implements ConsumerRebalanceListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HoldRelay.class);
    /**
     * The longest the relay blocks in {@code poll} with nothing due: it is woken for anything else (an acknowledgement,
     * close), see {@link PollWaker}.
     */
    private static final long MAX_WAIT_MS = PollWaker.IDLE_POLL_TIMEOUT.toMillis();

    /** The first poll of a restarted relay, after which it reports itself running again. */
    private static final long RESTARTED_POLL_MS = 100;

    /** The first wait before a failed relay is restarted; it doubles with each failure in a row. */
    static final Duration RESTART_BACKOFF_MIN = Duration.ofSeconds(1);

    /** The longest wait before a failed relay is restarted; a relay that ran this long fails afresh. */
    static final Duration RESTART_BACKOFF_MAX = Duration.ofSeconds(30);

    /**
     * How far past its tier a head may still be due before it is moved to the end of its partition rather than waited
     * for: a copy appended a little after its due time was computed (or stamped by a broker clock) is waited for.
     */
    static final long OVERSTAY_SLACK_MS = 100;

    /** The broker's answer to one republished ({@code moved}: re-appended to its hold partition) record. */
    private record Ack(
            PartitionState state,
            long offset,
            boolean moved,
            @Nullable Throwable failure) {}

    /** The consumer group of a topic's hold relays: its offsets in the hold topics say what still waits there. */
    static String groupId(Topic<?> topic) {
        return "shove-relay-" + topic.name();
    }

    private final KafkaTransport transport;
    private final WireHeaders wireHeaders;
    private final Topic<?> topic;
    private final Map<String, Long> tierDelayMs = new HashMap<>();
    private final String groupId;
    /** Transactional mode: the id of the relay's transactional producers, claimed for its lifetime; else null. */
    private final @Nullable String transactionalId;

    private final Thread thread;
    private final LinkedBlockingQueue<Ack> acks = new LinkedBlockingQueue<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final MeterRegistry registry;
    private final Gauge upGauge;
    private final Counter restarts;
    private volatile boolean closing;
    /** Whether the relay runs; false from a failure until the restarted relay has polled once. */
    private volatile boolean up = true;

    // Relay thread only; the consumer and the partition state are replaced on every restart.
    private KafkaConsumer<byte[], byte[]> consumer;
    /** Wakes the relay's long poll when an acknowledgement comes or the relay closes; replaced with the consumer. */
    private volatile @Nullable PollWaker waker;
    /** Transactional mode: the relay's own transactional producer (replaced on every restart), else null. */
    private @Nullable KafkaProducer<byte[], byte[]> txProducer;
    /** Transactional mode: the records of this round, sent in its transaction. */
    private final List<ProducerRecord<byte[], byte[]>> round = new ArrayList<>();

    // Relay thread only.
    private final Map<TopicPartition, PartitionState> owned = new HashMap<>();
    private final Map<TopicPartition, ArrayDeque<ConsumerRecord<byte[], byte[]>>> waiting = new HashMap<>();
    private final Set<TopicPartition> pausedParts = new HashSet<>();
    private int completedSinceCommit;
    private long firstCompletionNanos;
    private long relayed;
    private long reappended;

    HoldRelay(KafkaTransport transport, Topic<?> topic) {
        this.transport = transport;
        this.wireHeaders = transport.context().wireHeaders();
        this.topic = topic;
        this.groupId = groupId(topic);
        this.transactionalId = transport.config().transactional()
                ? transport.claimTransactionalId(transport.context().clientName() + "-" + groupId)
                : null;
        for (HoldTier tier : topic.holdTiers()) {
            tierDelayMs.put(tier.queue(), tier.delay().toMillis());
        }
        this.registry = transport.context().meterRegistry();
        this.upGauge = Gauge.builder("shove.kafka.relay.up", this, r -> r.up ? 1 : 0)
                .description("1 while the hold relay of the topic runs in this process, 0 while it restarts after a"
                        + " failure")
                .tag("topic", topic.name())
                .register(registry);
        this.restarts = Counter.builder("shove.kafka.relay.restarts")
                .description("restarts of the hold relay of the topic after a failure")
                .tag("topic", topic.name())
                .register(registry);
        this.thread = Thread.ofPlatform()
                .name("shove-kafka-relay-" + topic.name())
                .daemon()
                .unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /**
     * Runs the relay until it is closed. A relay that fails (an exception from the client: lost authorization, a fenced
     * member, anything) is restarted with a fresh consumer after a back-off, doubling from {@link #RESTART_BACKOFF_MIN}
     * to {@link #RESTART_BACKOFF_MAX}; each failure is logged, counted and shown in the connection's health until the
     * restarted relay has polled once. Nothing is lost meanwhile: the hold topics keep the copies, and the relay group's
     * committed offsets say where the next relay starts.
     */
    private void run() {
        long backoffMs = RESTART_BACKOFF_MIN.toMillis();
        int failures = 0;
        while (!closing) {
            long startedNanos = System.nanoTime();
            try {
                relayUntilClosed();
                return;
            } catch (Throwable t) {
                if (closing) {
                    return;
                }
                if (System.nanoTime() - startedNanos > RESTART_BACKOFF_MAX.toNanos()) {
                    backoffMs = RESTART_BACKOFF_MIN.toMillis(); // it ran well for a while: start the back-off afresh
                    failures = 0;
                }
                failures++;
                up = false;
                restarts.increment();
                String detail = ("the hold relay of topic '%s' failed (%d time(s) in a row) and restarts in %d ms;"
                                + " until then the topic's retries wait in its hold topics: %s")
                        .formatted(topic.name(), failures, backoffMs, t);
                log.error("{}", detail, t);
                transport.relayFailed(topic.name(), detail);
                try {
                    if (closed.await(backoffMs, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                backoffMs = Math.min(backoffMs * 2, RESTART_BACKOFF_MAX.toMillis());
            }
        }
    }

    /** One life of the relay: a consumer of its own, polling and relaying until closed or until something throws. */
    private void relayUntilClosed() throws InterruptedException {
        owned.clear();
        waiting.clear();
        pausedParts.clear();
        acks.clear();
        completedSinceCommit = 0;
        round.clear();
        if (transport.config().transactional()) {
            txProducer = newTransactionalProducer();
        }
        consumer = new KafkaConsumer<>(
                transport.consumerProperties(groupId, transport.clientId("relay-" + topic.name()), 500));
        PollWaker w = new PollWaker(consumer);
        waker = w;
        List<String> holdTopics =
                topic.holdTiers().stream().map(HoldTier::queue).toList();
        try {
            consumer.subscribe(holdTopics, this);
            while (!closing) {
                applyAcks(0);
                commitIfDue(false);
                long waitMs = relayDue();
                commitRound();
                if (completedSinceCommit > 0) {
                    waitMs =
                            Math.min(waitMs, transport.config().commitInterval().toMillis());
                }
                if (!up) {
                    waitMs = Math.min(waitMs, RESTARTED_POLL_MS); // report the recovery soon after a restart
                }
                w.longPoll(Duration.ofMillis(Math.max(1, waitMs)), () -> !closing && acks.isEmpty(), records -> {
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                        waiting.computeIfAbsent(tp, k -> new ArrayDeque<>()).addLast(r);
                    }
                });
                if (!up) {
                    up = true;
                    log.info("the hold relay of topic '{}' runs again", topic.name());
                    transport.relayRecovered(topic.name());
                }
            }
        } finally {
            shutdown();
        }
    }

    /**
     * Republishes the due records and moves overstaying heads to the end of their partition; pauses partitions whose
     * head is not due. Returns how long to poll for.
     */
    private long relayDue() {
        long now = System.currentTimeMillis();
        long wait = MAX_WAIT_MS;
        int mainPartitions = transport.topology().partitions(topic.name());
        for (Map.Entry<TopicPartition, ArrayDeque<ConsumerRecord<byte[], byte[]>>> e : waiting.entrySet()) {
            TopicPartition tp = e.getKey();
            ArrayDeque<ConsumerRecord<byte[], byte[]>> queue = e.getValue();
            PartitionState state = owned.get(tp);
            if (state == null) {
                queue.clear();
                continue;
            }
            long tierMs = tierDelayMs.getOrDefault(tp.topic(), 0L);
            while (!queue.isEmpty()) {
                ConsumerRecord<byte[], byte[]> head = queue.peekFirst();
                long due = wireHeaders.notBefore(KafkaHeaders.get(head.headers(), ShoveHeaders.NOT_BEFORE), now);
                boolean reappend = false;
                if (due > now) {
                    // when the tier would have let it out: its append time plus the tier's delay
                    long tierEnd = head.timestamp() + tierMs;
                    boolean overstays = due - Math.max(now, tierEnd) > OVERSTAY_SLACK_MS;
                    if (!overstays || tierEnd > now) {
                        wait = Math.min(wait, (overstays ? Math.min(due, tierEnd) : due) - now);
                        break;
                    }
                    reappend = true;
                }
                queue.pollFirst();
                if (state.admit(head.offset())) {
                    if (reappend) {
                        reappend(state, head);
                    } else {
                        republish(state, head, mainPartitions);
                    }
                }
            }
            if (queue.isEmpty()) {
                if (pausedParts.remove(tp)) {
                    consumer.resume(List.of(tp));
                }
            } else if (pausedParts.add(tp)) {
                consumer.pause(List.of(tp));
            }
        }
        return wait;
    }

    /**
     * Appends a copy that is not due, but has waited out its tier, to the end of its own hold partition, unchanged
     * (key, value, every header); its offset completes once the broker has the new copy.
     */
    private void reappend(PartitionState state, ConsumerRecord<byte[], byte[]> r) {
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(
                r.topic(),
                r.partition(),
                r.key(),
                r.value(),
                new RecordHeaders(r.headers().toArray()));
        send(state, r.offset(), true, out);
    }

    /** Sends a record; transactional mode: it joins the round, whose transaction commits it with its offset. */
    private void send(PartitionState state, long offset, boolean moved, ProducerRecord<byte[], byte[]> out) {
        if (txProducer != null) {
            round.add(out);
            acks.add(new Ack(state, offset, moved, null)); // done once the round commits, or the relay restarts
            return;
        }
        transport.relay(out, failure -> {
            acks.add(new Ack(state, offset, moved, failure));
            wake();
        });
    }

    private KafkaProducer<byte[], byte[]> newTransactionalProducer() {
        KafkaProducer<byte[], byte[]> p =
                new KafkaProducer<>(transport.transactionalProducerProperties(Objects.requireNonNull(transactionalId)));
        try {
            p.initTransactions();
        } catch (RuntimeException e) {
            p.close(Duration.ZERO);
            throw e;
        }
        return p;
    }

    /**
     * Transactional mode: commits the round's records and the hold offsets they pass in one transaction. A failure
     * aborts it and is thrown, so the relay restarts from its committed offsets.
     */
    private void commitRound() throws InterruptedException {
        KafkaProducer<byte[], byte[]> p = txProducer;
        if (p == null || round.isEmpty()) {
            return;
        }
        applyAcks(0);
        Map<TopicPartition, OffsetAndMetadata> offsets = commitPoints(owned.values());
        try {
            p.beginTransaction();
            for (ProducerRecord<byte[], byte[]> r : round) {
                p.send(r);
            }
            if (!offsets.isEmpty()) {
                p.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            }
            p.commitTransaction();
        } catch (RuntimeException e) {
            try {
                p.abortTransaction();
            } catch (RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw new IllegalStateException(
                    "the relay transaction of " + round.size() + " record(s) and offsets " + offsets + " was aborted: "
                            + e,
                    e);
        } finally {
            round.clear();
        }
        completedSinceCommit = 0;
        List<SettleCallback> none = new ArrayList<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            PartitionState s = owned.get(e.getKey());
            if (s != null) {
                s.committed(e.getValue().offset(), none);
            }
        }
    }

    private void republish(PartitionState state, ConsumerRecord<byte[], byte[]> r, int mainPartitions) {
        Integer partition = null;
        String original = KafkaHeaders.get(r.headers(), KafkaHeaders.ORIGINAL_PARTITION);
        if (original != null) {
            try {
                int p = Integer.parseInt(original.trim());
                if (p >= 0 && p < mainPartitions) {
                    partition = p;
                }
            } catch (NumberFormatException e) {
                // no usable partition: let the partitioner choose
            }
        }
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(
                topic.name(),
                partition,
                r.key(),
                r.value(),
                new RecordHeaders(r.headers().toArray()));
        send(state, r.offset(), false, out);
    }

    private void applyAcks(long waitNanos) throws InterruptedException {
        Ack ack = waitNanos > 0 ? acks.poll(waitNanos, TimeUnit.NANOSECONDS) : acks.poll();
        while (ack != null) {
            PartitionState state = ack.state();
            if (owned.get(state.partition) == state) {
                if (ack.failure() == null) {
                    state.complete(ack.offset(), null);
                    if (ack.moved()) {
                        reappended++;
                    } else {
                        relayed++;
                    }
                    if (completedSinceCommit++ == 0) {
                        firstCompletionNanos = System.nanoTime();
                    }
                } else if (state.markReturned(ack.offset()) && !closing) {
                    log.warn(
                            "the hold relay of topic '{}' could not republish {}@{}; reading it again: {}",
                            topic.name(),
                            state.partition,
                            ack.offset(),
                            ack.failure().toString());
                    ArrayDeque<ConsumerRecord<byte[], byte[]>> queue = waiting.get(state.partition);
                    if (queue != null) {
                        queue.clear();
                    }
                    consumer.seek(state.partition, ack.offset());
                }
            }
            ack = acks.poll();
        }
    }

    private void commitIfDue(boolean force) {
        if (txProducer != null) {
            return; // transactional: each round commits its offsets in its transaction
        }
        if (!force
                && (completedSinceCommit == 0
                        || System.nanoTime() - firstCompletionNanos
                                < transport.config().commitInterval().toNanos())) {
            return;
        }
        completedSinceCommit = 0;
        Map<TopicPartition, OffsetAndMetadata> offsets = commitPoints(owned.values());
        if (!offsets.isEmpty()) {
            consumer.commitAsync(offsets, (done, error) -> {
                if (error != null) {
                    log.debug(
                            "the hold relay of topic '{}' could not commit {}: {}",
                            topic.name(),
                            done,
                            error.toString());
                    for (TopicPartition tp : offsets.keySet()) {
                        PartitionState s = owned.get(tp);
                        if (s != null) {
                            s.commitFailed();
                        }
                    }
                    completedSinceCommit++;
                    firstCompletionNanos = System.nanoTime();
                }
            });
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> commitPoints(Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionState s : states) {
            long point = s.takeCommit();
            if (point >= 0) {
                offsets.put(s.partition, new OffsetAndMetadata(point));
            }
        }
        return offsets;
    }

    /** Waits (bounded) for the republished records of these partitions to be acknowledged, then commits them. */
    private void settleAndCommit(Collection<PartitionState> states) {
        if (txProducer != null) {
            return; // transactional: every round committed its offsets; nothing is in flight between rounds
        }
        long deadline =
                System.nanoTime() + transport.config().revocationTimeout().toNanos();
        try {
            while (states.stream().anyMatch(s -> s.inFlight() > 0) && System.nanoTime() < deadline) {
                applyAcks(TimeUnit.MILLISECONDS.toNanos(10));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (PartitionState s : states) {
            s.commitFailed();
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = commitPoints(states);
        if (offsets.isEmpty()) {
            return;
        }
        try {
            PollWaker.retryWoken(
                    () -> consumer.commitSync(offsets, transport.config().apiTimeout()));
        } catch (RuntimeException e) {
            log.warn(
                    "the hold relay of topic '{}' could not commit {}: {}; those retries may be delivered twice",
                    topic.name(),
                    offsets,
                    e.toString());
        }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            owned.put(tp, new PartitionState(tp));
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        List<PartitionState> states = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            PartitionState s = owned.get(tp);
            if (s != null) {
                states.add(s);
            }
        }
        settleAndCommit(states);
        forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        forget(partitions);
    }

    private void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            owned.remove(tp);
            waiting.remove(tp);
            pausedParts.remove(tp);
        }
    }

    /** Cuts the relay's long poll short: an acknowledgement came, or the relay closes. Any thread. */
    private void wake() {
        PollWaker w = waker;
        if (w != null) {
            w.wake();
        }
    }

    private void shutdown() {
        waker = null;
        try {
            settleAndCommit(new ArrayList<>(owned.values()));
            owned.clear();
            consumer.close(CloseOptions.timeout(transport.config().apiTimeout()));
        } catch (RuntimeException e) {
            log.warn("closing the hold relay of topic '{}': {}", topic.name(), e.toString());
        }
        KafkaProducer<byte[], byte[]> p = txProducer;
        if (p != null) {
            txProducer = null;
            round.clear();
            try {
                p.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                log.warn(
                        "closing the transactional producer of the hold relay of topic '{}': {}",
                        topic.name(),
                        e.toString());
            }
        }
        log.debug(
                "the hold relay of topic '{}' stopped after bringing back {} record(s) and moving {} not yet due to the"
                        + " end of their hold partition",
                topic.name(),
                relayed,
                reappended);
    }

    @Override
    public void close() {
        closing = true;
        closed.countDown();
        wake();
        registry.remove(upGauge);
        registry.remove(restarts);
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(transport.config().apiTimeout().toMillis() + 10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (transactionalId != null) {
            transport.releaseTransactionalId(transactionalId);
        }
    }
}
