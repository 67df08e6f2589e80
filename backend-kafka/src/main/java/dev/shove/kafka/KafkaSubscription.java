package dev.shove.kafka;

import dev.shove.Position;
import dev.shove.ShoveException;
import dev.shove.Topic;
import dev.shove.kafka.PartitionSeeker.SeekRequest;
import dev.shove.kafka.PollInbox.Note;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.DurationText;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer of a topic (or of its dead-letter topic): one {@code KafkaConsumer}, a member of the Kafka consumer
 * group, driven by one platform thread named {@code shove-kafka-poll-{consumerId}} that never runs handlers. The
 * {@link Subscription} methods are for any thread; the rest runs on the poll thread: this class is the poll loop, and
 * it calls down into its helpers, each of which runs there too: {@link PollInbox} (what the other threads hand over),
 * {@link OffsetCommitter}, {@link PartitionSeeker}, {@link PartitionHandover} (rebalances) and {@link StallWatch}.
 *
 * <p>Why everything goes through the poll thread: {@code KafkaConsumer} is single-threaded, while settlements arrive
 * on many handler threads. {@link #settle} therefore only produces the copies (the producer is thread-safe) and puts
 * a small note on a queue; the poll thread applies the notes to the {@link PartitionState partition states}, commits
 * the contiguous prefix of each partition (coalesced: every {@code commitInterval} or {@code commitBatch} records),
 * and calls the settle callbacks once the commit is confirmed.
 *
 * <p>Flow control: at most {@code window} records are handed to the engine and not yet settled. Records fetched
 * beyond the window wait in a backlog ({@link FetchedRecords}) and are handed out a partition at a time in turn. A
 * partition with records in the backlog is paused, so while the window is full the loop fetches ahead from the other
 * partitions, until the backlog holds {@code max.poll.records} (at most {@code window}, at most 500): then every
 * assigned partition is paused, and the poll loop keeps polling (group liveness) without fetching more. The backlog
 * therefore holds records of several partitions, and the window fills from all of them rather than from the one
 * partition whose fetch {@code poll} happens to be returning (which, on a sequenced topic, carries only that
 * partition's keys).
 *
 * <p>A returned record (shutdown, or a copy the broker refused) is read again: the poll thread seeks its partition
 * back to the lowest returned offset, and the re-read records that are still in flight or done are not handed out a
 * second time. A partition revoked in a rebalance first has its unstarted records withdrawn from the engine, then
 * waits (up to {@code revocationTimeout}) for its in-flight records, commits what is contiguous, and lets go.
 */
final class KafkaSubscription implements Subscription, ConsumerRebalanceListener {
    private static final Logger log = LoggerFactory.getLogger(KafkaSubscription.class);

    /** How long the poll thread blocks in {@code poll} when it has records in flight but nothing else to do. */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    /** While paused, how often the poll thread still calls {@code poll} (group membership, rebalances). */
    private static final long PAUSED_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * While the window is full and the loop fetches ahead, how long it waits for a settlement before it looks for
     * fetched records again (a fetch's response is only taken in by the next {@code poll}).
     */
    private static final long FETCH_AHEAD_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** How often, at most, a consumer logs (at DEBUG) the retries of other groups it skipped. */
    static final Duration FOREIGN_RETRY_LOG_INTERVAL = Duration.ofMinutes(1);

    private final KafkaTransport transport;
    private final SubscriptionRequest request;
    private final DeliverySink sink;
    private final String groupId;
    private final byte[] groupIdBytes;
    private final String queue;
    private final boolean main;
    /** A broadcast subscriber: its own reader of every partition from the end (or its start position), no group. */
    private final boolean broadcast;

    private final int window;
    /** The most records fetched ahead while the window is full: the consumer's {@code max.poll.records}. */
    private final int backlogLimit;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Optional<KafkaClientMetrics> clientMeters;
    private final Thread pollThread;
    private final StallWatch stallWatch;
    /** Retries of other groups brought back to the main topic, which this group skips ({@link #addressedToUs}). */
    private final Counter foreignRetries;

    private final SettleCallbacks callbacks;
    private final OffsetCommitter committer;
    private final PartitionSeeker seeker;
    private final PollInbox inbox;
    private final PartitionHandover handover;
    private final PollWaker waker;

    private final PollState pollState;
    // The parts of the poll state this class uses most, shared with the helpers.
    private final OwnedPartitions owned;
    private final AtomicInteger outstanding;
    private final FetchedRecords backlog;
    private final ReentrantLock deliverLock = new ReentrantLock();
    private final AtomicBoolean closeCalled = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final CountDownLatch joined = new CountDownLatch(1);
    private volatile boolean closing;
    private volatile boolean terminated;

    // Poll thread only.
    /** Every assigned partition is paused (the engine paused us, or the backlog is full). */
    private boolean consumerPaused;

    private long foreignSinceLog;
    private long foreignLoggedNanos;
    private boolean foreignLogged;
    private long lastPollNanos;

    KafkaSubscription(KafkaTransport transport, SubscriptionRequest request, DeliverySink sink, String groupId) {
        this.transport = transport;
        this.request = request;
        this.sink = sink;
        this.groupId = groupId;
        this.groupIdBytes = groupId.getBytes(StandardCharsets.UTF_8);
        this.queue = request.queue();
        this.main = request.source() == SubscriptionRequest.Source.MAIN;
        this.window = request.window();
        this.broadcast = request.topic().isBroadcast();
        this.pollState = new PollState(sink, this);
        this.owned = pollState.owned;
        this.outstanding = pollState.outstanding;
        this.backlog = pollState.backlog;
        this.backlogLimit = Math.min(Math.max(window, 1), 500);
        Map<String, Object> properties = transport.consumerProperties(
                groupId,
                transport.clientId(request.consumerId()),
                backlogLimit,
                main ? KafkaTransport.FETCH_WAIT_MS : KafkaTransport.DEAD_LETTER_FETCH_WAIT_MS,
                request.settings(KafkaGroupSettings.class)
                        .map(KafkaGroupSettings::consumerProperties)
                        .orElse(Map.of()));
        if (broadcast) {
            properties.remove("group.id"); // a broadcast subscriber reads alone and commits nothing
        }
        this.consumer = new KafkaConsumer<>(properties);
        this.clientMeters = transport.bindConsumer(consumer);
        this.waker = new PollWaker(consumer);
        this.stallWatch = new StallWatch(
                queue,
                request.consumerId(),
                groupId,
                transport.config().stallThreshold(),
                transport.context().meterRegistry());
        this.foreignRetries = Counter.builder("shove.kafka.retries.skipped")
                .description("retries of other consumer groups that came back to the main topic, skipped (and"
                        + " committed past) by this group")
                .tag("topic", queue)
                .tag("consumer_group", groupId)
                .register(transport.context().meterRegistry());
        this.callbacks = new SettleCallbacks(queue, request.consumerId());
        SettlementTransactions transactions = null;
        if (transport.config().transactional() && !broadcast) {
            try {
                transactions = new SettlementTransactions(
                        transport, consumer, groupId, queue, request.consumerId(), callbacks);
            } catch (RuntimeException e) {
                consumer.close(CloseOptions.timeout(Duration.ZERO));
                clientMeters.ifPresent(KafkaClientMetrics::close);
                throw e;
            }
        }
        this.committer = new OffsetCommitter(
                consumer, transport.config(), owned, callbacks, queue, request.consumerId(), broadcast, transactions);
        this.seeker =
                new PartitionSeeker(consumer, transport.config(), queue, request.consumerId(), pollState, committer);
        this.pollThread = Thread.ofPlatform()
                .name("shove-kafka-poll-" + request.consumerId())
                .daemon()
                .unstarted(this::run);
        this.inbox = new PollInbox(pollThread, waker, owned, committer, seeker, callbacks, broadcast);
        this.handover = new PartitionHandover(
                consumer, transport.config(), request, pollState, inbox, committer, seeker, callbacks);
    }

    void start() {
        pollThread.start();
    }

    /**
     * Waits until this consumer has joined its group and received its first assignment (possibly empty), up to
     * {@code timeout}; true if it has. A group whose consumers all returned from here shares its partitions at once,
     * instead of the first consumer taking every record while the others are still joining.
     */
    boolean awaitJoined(Duration timeout) {
        try {
            return joined.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    Topic<?> topic() {
        return request.topic();
    }

    String groupId() {
        return groupId;
    }

    boolean isMain() {
        return main;
    }

    // ---------------------------------------------------------------- engine side (any thread)

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        if (!(delivery instanceof KafkaDelivery d) || d.owner != this) {
            throw new IllegalArgumentException("delivery " + delivery.deliveryId() + " does not belong to consumer "
                    + request.consumerId() + " of topic '" + queue + "'");
        }
        outstanding.decrementAndGet();
        if (terminated) {
            callback.settled(new ShoveException("consumer " + request.consumerId() + " of topic '" + queue
                    + "' is closed; record " + d.deliveryId() + " will be delivered again"));
            return;
        }
        if (!d.state.isOwned() && !d.state.isMoved()) {
            callback.settled(new ShoveException("partition " + d.partition() + " of topic '" + queue
                    + "' was revoked from consumer " + request.consumerId() + "; record " + d.deliveryId()
                    + " will be delivered again by its new owner"));
            return;
        }
        if (settlement.action() == Settlement.Action.RETURN) {
            enqueue(new Note(d, callback, false, null));
            return;
        }
        List<Settlement.Copy> copies = settlement.copies();
        if (copies.isEmpty()) {
            enqueue(new Note(d, callback, true, null));
            return;
        }
        if (committer.transactions() != null) {
            // Transactional: the copies go with the transaction that commits the record's offset (poll thread).
            List<ProducerRecord<byte[], byte[]>> records;
            try {
                records = transport.copyRecords(this, d, copies);
            } catch (RuntimeException e) {
                enqueue(new Note(d, callback, false, e));
                return;
            }
            enqueue(new Note(d, callback, true, null, records));
            return;
        }
        transport.produceCopies(this, d, copies, failure -> {
            if (failure == null) {
                enqueue(new Note(d, callback, true, null));
            } else {
                // The copy is not safe on the broker: the original must be read again, not committed.
                enqueue(new Note(d, callback, false, failure));
            }
        });
    }

    private void enqueue(Note note) {
        inbox.add(note);
        if (terminated) {
            inbox.applyLateNotes(); // the poll thread has finished: answer the note here
        }
    }

    /**
     * Keeps a sequenced retry's count and due time with the partition's committed offset (its metadata), so that
     * whoever reads the record next, after a restart or a rebalance, goes on from there.
     */
    @Override
    public void waiting(Delivery delivery, int retryCount, long notBeforeEpochMs) {
        if (broadcast || !(delivery instanceof KafkaDelivery d) || d.owner != this) {
            return;
        }
        inbox.waiting(d, new WaitingOffsets.Wait(retryCount, notBeforeEpochMs));
    }

    /**
     * Moves this consumer's partitions ({@link Position#sequence} and {@link Position#start()} / {@link
     * Position#end()} / {@link Position#timestamp}: every assigned partition; a {@link Position.Captured captured}
     * position: its partition only). Carried out by the poll thread; the caller waits for it. The new position is
     * committed at once, so the whole group goes on from there.
     */
    @Override
    public void seek(Position position, List<Delivery> abandoned) {
        if (closing || terminated) {
            throw new IllegalStateException(
                    "consumer " + request.consumerId() + " of topic '" + queue + "' is closing and cannot move");
        }
        SeekRequest seek = new SeekRequest(position, List.copyOf(abandoned), new CompletableFuture<>());
        inbox.seek(seek);
        try {
            seek.done().get(transport.config().apiTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new ShoveException("moving consumer " + request.consumerId() + " failed: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShoveException("interrupted while moving consumer " + request.consumerId(), e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ShoveException(
                    "consumer " + request.consumerId() + " of topic '" + queue + "' did not move within "
                            + DurationText.of(transport.config().apiTimeout()),
                    e);
        }
    }

    @Override
    public void pause() {
        deliverLock.lock();
        try {
            inbox.pause();
        } finally {
            deliverLock.unlock();
        }
    }

    @Override
    public void close() {
        if (!closeCalled.compareAndSet(false, true)) {
            awaitFinished();
            return;
        }
        pause();
        closing = true;
        waker.wake(); // an idle poll thread blocks in a long poll
        awaitFinished();
        stallWatch.close();
        transport.closed(this);
    }

    private void awaitFinished() {
        if (Thread.currentThread() == pollThread) {
            return;
        }
        try {
            long wait = transport.config().apiTimeout().toMillis() + 10_000;
            if (!finished.await(wait, TimeUnit.MILLISECONDS)) {
                log.warn("consumer {} of topic '{}' did not stop within {} ms", request.consumerId(), queue, wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- poll thread

    private void run() {
        try {
            if (broadcast) {
                handover.assignEverything();
                joined.countDown();
            } else {
                consumer.subscribe(List.of(queue), this);
            }
            while (!closing) {
                inbox.apply(0);
                deliverBacklog();
                committer.commitIfDue();
                if (committer.takeRewind()) {
                    seeker.rewind(callbacks); // the aborted transaction's records are read again
                }
                stallWatch.check(owned.values());
                updatePause();
                if (consumerPaused) {
                    inbox.apply(TimeUnit.MILLISECONDS.toNanos(20));
                    if (System.nanoTime() - lastPollNanos >= PAUSED_POLL_NANOS) {
                        poll(Duration.ZERO);
                    }
                } else if (idle()) {
                    waker.longPoll(PollWaker.IDLE_POLL_TIMEOUT, this::idle, this::received);
                } else if (outstanding.get() >= window) {
                    // Fetching ahead: take what has come without blocking, then wait for a settlement.
                    if (!poll(Duration.ZERO)) {
                        inbox.apply(FETCH_AHEAD_WAIT_NANOS);
                    }
                } else {
                    poll(committer.hasUncommitted() ? transport.config().commitInterval() : POLL_TIMEOUT);
                }
            }
        } catch (Throwable t) {
            if (!closing) {
                log.error("consumer {} of topic '{}' failed: {}", request.consumerId(), queue, t.toString(), t);
                closing = true;
                sink.failed(new ShoveException(
                        "Kafka consumer " + request.consumerId() + " of topic '" + queue + "' failed: " + t, t));
            }
        } finally {
            shutdown();
        }
    }

    /** Polls and keeps what came in the backlog; true if records came. */
    private boolean poll(Duration timeout) {
        return received(consumer.poll(timeout));
    }

    private boolean received(ConsumerRecords<byte[], byte[]> records) {
        lastPollNanos = System.nanoTime();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            backlog.add(r);
        }
        return !records.isEmpty();
    }

    /**
     * Whether the poll thread has nothing to do but wait for records: nothing in flight, nothing fetched and not handed
     * out, nothing to commit, no returned record to read again, nothing in its inbox, not paused and not closing. Then
     * it polls for {@link PollWaker#IDLE_POLL_TIMEOUT}; whatever ends this state from another thread (a settlement, a
     * wait, a move, the pause, close) queues it first and wakes the poll after ({@link PollWaker}).
     */
    private boolean idle() {
        return !closing
                && outstanding.get() == 0
                && backlog.isEmpty()
                && !committer.hasUncommitted()
                && !seeker.hasSeeks()
                && !inbox.paused()
                && inbox.isEmpty();
    }

    /** Hands backlog records to the engine while the window has room. */
    private void deliverBacklog() {
        if (backlog.isEmpty()) {
            return;
        }
        deliverLock.lock();
        try {
            if (inbox.paused() || inbox.hasSeekRequests()) {
                return; // a move is pending: hand out nothing from the old positions
            }
            int room = window - outstanding.get();
            if (room <= 0) {
                return;
            }
            List<Delivery> batch = new ArrayList<>(Math.min(room, backlog.size()));
            while (room > 0 && !backlog.isEmpty()) {
                ConsumerRecord<byte[], byte[]> r = backlog.poll();
                PartitionState state = owned.get(r.partition());
                if (state == null) {
                    continue; // revoked meanwhile
                }
                if (main && !addressedToUs(r)) {
                    state.skip(r.offset());
                    committer.countCompletion();
                    skippedForeign(r);
                    continue;
                }
                if (!state.admit(r.offset())) {
                    continue; // re-read after a seek; still in flight or done
                }
                batch.add(new KafkaDelivery(this, state, r, main));
                room--;
            }
            if (!batch.isEmpty()) {
                outstanding.addAndGet(batch.size());
                sink.deliverAll(batch);
            }
        } finally {
            deliverLock.unlock();
        }
    }

    /** A retry brought back by the hold relay carries the group it belongs to; other groups skip it. */
    private boolean addressedToUs(ConsumerRecord<byte[], byte[]> r) {
        Header h = r.headers().lastHeader(KafkaHeaders.GROUP);
        return h == null || h.value() == null || Arrays.equals(h.value(), groupIdBytes);
    }

    /** Counts a skipped retry of another group; logs the skips at DEBUG, at most once per log interval. */
    private void skippedForeign(ConsumerRecord<byte[], byte[]> r) {
        foreignRetries.increment();
        foreignSinceLog++;
        long now = System.nanoTime();
        if (foreignLogged && now - foreignLoggedNanos < FOREIGN_RETRY_LOG_INTERVAL.toNanos()) {
            return;
        }
        if (log.isDebugEnabled()) {
            log.debug(
                    "consumer {} of topic '{}' (group '{}') skipped {} retry copies of other groups since {}, the last"
                            + " {}@{} of group '{}': each group gets back its own retries only",
                    request.consumerId(),
                    queue,
                    groupId,
                    foreignSinceLog,
                    foreignLogged ? "its last report" : "it started",
                    r.partition(),
                    r.offset(),
                    printable(KafkaHeaders.get(r.headers(), KafkaHeaders.GROUP)));
        }
        foreignLogged = true;
        foreignLoggedNanos = now;
        foreignSinceLog = 0;
    }

    /** A header value fit for a log line: at most 100 characters, control characters replaced. */
    private static String printable(@Nullable String value) {
        if (value == null) {
            return "";
        }
        String capped = value.length() > 100 ? value.substring(0, 100) + "..." : value;
        return capped.replaceAll("\\p{Cntrl}", "?");
    }

    /**
     * Pauses every partition while the engine has paused us or the backlog is full; otherwise exactly the partitions
     * with records in the backlog (they have records to hand out; the others are fetched from).
     */
    private void updatePause() {
        boolean holdAll = inbox.paused() || backlog.size() >= backlogLimit;
        boolean turnsChanged = backlog.takeTurnsChanged();
        if (holdAll) {
            if (!consumerPaused) {
                consumer.pause(consumer.assignment());
                consumerPaused = true;
            }
            return;
        }
        if (!consumerPaused && !turnsChanged) {
            return;
        }
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        for (TopicPartition tp : consumer.assignment()) {
            (backlog.holds(tp.partition()) ? pause : resume).add(tp); // both idempotent in the client
        }
        consumerPaused = false;
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    // ---------------------------------------------------------------- rebalances (poll thread, inside poll)

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        joined.countDown();
        handover.assigned(partitions);
        if (consumerPaused && !partitions.isEmpty()) {
            consumer.pause(partitions);
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        handover.revoked(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        handover.lost(partitions);
    }

    // ---------------------------------------------------------------- shutdown (poll thread)

    private void shutdown() {
        try {
            try {
                inbox.apply(0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            List<PartitionState> states = new ArrayList<>(owned.values());
            committer.commitNow(states);
            if (committer.transactions() instanceof SettlementTransactions tx) {
                tx.close();
            }
            terminated = true;
            inbox.refuseSeeks(
                    "consumer " + request.consumerId() + " of topic '" + queue + "' closed before it could move");
            inbox.applyLateNotes();
            List<SettleCallback> orphans = new ArrayList<>();
            for (PartitionState state : states) {
                state.takeAll(orphans);
            }
            owned.clear();
            callbacks.fail(orphans, "the consumer closed before its offset was committed; it will be delivered again");
            try {
                consumer.close(CloseOptions.timeout(transport.config().apiTimeout()));
            } catch (RuntimeException e) {
                log.warn("closing Kafka consumer {} of topic '{}': {}", request.consumerId(), queue, e.toString());
            }
            clientMeters.ifPresent(KafkaClientMetrics::close);
        } finally {
            joined.countDown();
            finished.countDown();
        }
    }

    @Override
    public String toString() {
        return "KafkaSubscription[" + request.consumerId() + ", topic=" + queue + ", group=" + groupId + "]";
    }
}
