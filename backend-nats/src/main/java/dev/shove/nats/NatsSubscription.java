package dev.shove.nats;

import dev.shove.BrokerUnavailableException;
import dev.shove.Position;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.DurationText;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.WireHeaders;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.KeyValue;
import io.nats.client.Message;
import io.nats.client.PullRequestOptions;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.impl.NatsJetStreamMetaData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer of a group: pull subscriptions on the group's durable JetStream consumers, one puller virtual thread
 * each ({@code shove-nats-pull-...}), handing what they fetch to the engine in batches.
 *
 * <p><b>Sources.</b> An unsequenced topic is read from two consumers: the group's main consumer (subject {@code T})
 * and its retry consumer ({@code T.retry.G}), where the engine's retry copies wait. A retry copy's first delivery is
 * never handed over: the puller nak's it with the delay still to run ({@code nakWithDelay}), so the server keeps it,
 * durably and exactly, and delivers it again when due; that second delivery goes to the engine (its delivery count
 * discounts the parking one). A sequenced topic is read from the shard consumers this member holds a lease for (see
 * {@link ShardLeases}); a dead-letter queue from the group's consumer of the DLQ stream; a broadcast topic from an
 * ephemeral consumer of this subscription alone, without acknowledgements.
 *
 * <p><b>Window.</b> At most {@code window} deliveries are with the engine unsettled. A puller reserves room before it
 * pulls (at most its share of the window) and pulls no more than it reserved; the retry puller instead waits for room
 * after it received a due copy. Deliveries kept longer than a third of {@code ack_wait}, unsettled or waiting for room,
 * are kept from redelivery with {@code +WPI} (in progress) until they are settled.
 *
 * <p><b>Settlement.</b> {@link #settle} only queues: a settler virtual thread writes the acks and naks that queued up
 * (waiting at most {@link #LINGER} for a batch to form), then one flush (a ping round trip) confirms the server has
 * them all, and the callbacks run. A settlement with copies publishes them first, each acknowledged by the stream, and
 * only then queues the ack; a copy that fails reports the failure and returns the delivery after {@link
 * #FAILED_COPY_RETURN_DELAY}.
 *
 * <p><b>Sequenced shards.</b> A shard's consumer has a generation: the member that claims a shard creates the next
 * generation at the previous one's ack floor and deletes the previous one, so the shard is read again in stream order
 * from the first unacknowledged message, and a former owner that lost its lease can no longer acknowledge anything.
 * A retry waiting in place ({@link #waiting}) is stored in a key-value bucket by stream sequence and restored onto the
 * message when it is delivered again, by whichever member.
 */
final class NatsSubscription implements Subscription, ShardLeases.Listener {
    private static final Logger log = LoggerFactory.getLogger(NatsSubscription.class);

    /** How long a pull request waits on the server for messages. */
    static final Duration PULL_EXPIRY = Duration.ofSeconds(2);

    /** How long a puller waits past a request's expiry for its last messages before it pulls again. */
    private static final long PULL_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /** How long a puller with room waits for more room before it pulls what it has. */
    private static final long PULL_LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /** How long a puller blocks at a time, so that it notices a stop. */
    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** The largest pull of the retry puller. */
    private static final int RETRY_BATCH = 64;

    /** The retry consumer's {@code max_ack_pending}: copies waiting out their delay count against it. */
    static final int RETRY_MAX_ACK_PENDING = 1_000_000;

    /** How long the settler waits for more settlements before it writes a partial batch. */
    static final Duration LINGER = Duration.ofMillis(1);

    /** The most acks and naks written before one flush. */
    private static final int MAX_SETTLE_BATCH = 1024;

    /** How long a delivery whose copy failed stays unsettled before it is returned (no hot loop on a broken DLQ). */
    static final Duration FAILED_COPY_RETURN_DELAY = Duration.ofSeconds(1);

    /**
     * The delay of a returned delivery's nak. Server 2.9 has a race: a redelivery that becomes due just as a pull request
     * arrives can be rewound and delivered again as new (delivery count 1, not flagged redelivered); in practice it
     * hits a plain nak when the next consumer subscribes right after (a drain, then a restart). A short delay lets the
     * next consumer's pull request settle first. Also used to give back a message a stopping puller received.
     */
    static final Duration RETURN_DELAY = Duration.ofMillis(100);

    /** How long {@link #close()} waits for queued settlements and copies in flight. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    /** After a failed pull, how long a puller waits before it tries again. */
    private static final long RETRY_PULL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /** Orders shard consumer names by generation ({@code ..._gN}). */
    static final Comparator<String> BY_GENERATION = Comparator.comparingLong(NatsSubscription::generationOf);

    private static final SettleCallback NONE = failure -> {};

    private enum Kind {
        MAIN,
        RETRY,
        SHARD,
        DEAD_LETTER,
        BROADCAST
    }

    private record Op(NatsDelivery delivery, boolean ack, SettleCallback callback) {}

    private final NatsTransport transport;
    private final SubscriptionRequest request;
    private final DeliverySink sink;
    private final Topic<?> topic;
    private final WireHeaders wireHeaders;
    private final String what;
    private final String memberId;
    private final int window;
    private final Duration ackWait;
    private final boolean sequenced;

    private final List<Source> sources = new CopyOnWriteArrayList<>();
    private final Set<NatsDelivery> unsettled = ConcurrentHashMap.newKeySet();
    private final ReentrantLock deliverLock = new ReentrantLock();

    // window accounting
    private final ReentrantLock roomLock = new ReentrantLock();
    private final Condition roomChanged = roomLock.newCondition();
    private int outstanding;
    private int reserved;
    /** Pullers waiting for room for deliveries they already received: they go before any new reservation. */
    private int takersWaiting;

    // settlement
    private final ReentrantLock settleLock = new ReentrantLock();
    private final Condition settleChanged = settleLock.newCondition();
    private final ArrayDeque<Op> queued = new ArrayDeque<>();
    private int writing;
    private int copiesInFlight;
    private final Thread settler;

    // sequenced
    private final @Nullable ShardLeases leases;
    private final Map<Integer, Source> shardSources = new ConcurrentHashMap<>();
    private final Set<Integer> startedShards = ConcurrentHashMap.newKeySet();
    /** Stored waits by stream sequence: the wait's retry count and due time. */
    private final Map<Long, long[]> waits = new ConcurrentHashMap<>();

    private volatile @Nullable ScheduledFuture<?> keeper;
    private volatile boolean paused;
    private volatile boolean closing;
    private volatile boolean closed;

    NatsSubscription(NatsTransport transport, SubscriptionRequest request, DeliverySink sink, String memberId) {
        this.transport = transport;
        this.request = request;
        this.sink = sink;
        this.topic = request.topic();
        this.wireHeaders = transport.context().wireHeaders();
        this.memberId = NatsTopology.token(memberId);
        this.window = request.window();
        this.ackWait = transport.config().ackWait();
        this.sequenced = request.source() == SubscriptionRequest.Source.MAIN && topic.isSequenced();
        this.what = request.source() == SubscriptionRequest.Source.MAIN
                ? "topic '" + topic.name() + "' (group '" + request.group() + "')"
                : "dead-letter queue '" + request.queue() + "' of topic '" + topic.name() + "' (group '"
                        + request.group() + "')";
        this.settler = Thread.ofVirtual()
                .name("shove-nats-settle-" + request.consumerId())
                .unstarted(this::settleLoop);
        this.leases = sequenced
                ? new ShardLeases(
                        transport.leases(),
                        NatsTopology.stream(topic.name()),
                        NatsTopology.token(request.group()),
                        this.memberId,
                        topic.sequencing().orElseThrow().routingShards(),
                        transport.config().shardLease(),
                        this,
                        what)
                : null;
    }

    // ---------------------------------------------------------------- start

    void start() {
        checkStreamExists();
        settler.start();
        String group = request.group();
        if (request.source() == SubscriptionRequest.Source.DEAD_LETTER) {
            String dlq = request.queue();
            String name = NatsTopology.mainConsumer(group);
            ensureAt(dlq, transport.topology().durable(name, NatsTopology.subject(dlq)), true);
            startSource(new Source(Kind.DEAD_LETTER, dlq, dlq, -1, name));
        } else if (topic.isBroadcast()) {
            String name = NatsTopology.token(transport.connectionName() + "-" + memberId);
            ConsumerConfiguration.Builder cc = ConsumerConfiguration.builder()
                    .name(name)
                    .filterSubject(NatsTopology.subject(topic.name()))
                    .ackPolicy(AckPolicy.None)
                    .inactiveThreshold(Duration.ofMinutes(1))
                    .deliverPolicy(DeliverPolicy.New);
            Position start = request.startAt();
            if (start != null) {
                positioned(cc, start, topic.name());
            }
            transport.topology().createConsumer(topic.name(), cc.build(), what);
            startSource(new Source(Kind.BROADCAST, topic.name(), topic.name(), -1, name));
        } else if (sequenced) {
            transport.waits(); // created now, so that a missing bucket fails the start rather than a wait
            keeper = transport.every(keepAliveInterval(), this::keepAlive);
            java.util.Objects.requireNonNull(leases).start(request.consumerId());
            return;
        } else {
            String main = NatsTopology.mainConsumer(group);
            ensureAt(topic.name(), transport.topology().durable(main, NatsTopology.subject(topic.name())), true);
            String retry = NatsTopology.retryConsumer(group);
            transport
                    .topology()
                    .ensureConsumer(
                            topic.name(),
                            transport
                                    .topology()
                                    .durable(retry, NatsTopology.retrySubject(topic, group))
                                    .maxAckPending(RETRY_MAX_ACK_PENDING)
                                    .build(),
                            "retries of " + what);
            startSource(new Source(Kind.MAIN, topic.name(), topic.name(), -1, main));
            startSource(new Source(Kind.RETRY, topic.name(), topic.name(), -1, retry));
        }
        if (!topic.isBroadcast()) {
            keeper = transport.every(keepAliveInterval(), this::keepAlive);
        }
    }

    private void checkStreamExists() {
        String queue = request.queue();
        if (transport.topology().isKnown(queue)) {
            return;
        }
        transport.topology().lastSequence(queue); // throws a TopologyException naming the stream when missing
    }

    /**
     * Makes sure the group's durable consumer exists; where the request starts at a position, the group's first
     * consumer in this process recreates it there.
     */
    private void ensureAt(String queue, ConsumerConfiguration.Builder cc, boolean durable) {
        Position start = request.startAt();
        String name = cc.build().getDurable();
        if (start != null && durable && transport.firstStart(request)) {
            transport.topology().deleteConsumer(queue, name);
            transport
                    .topology()
                    .createConsumer(queue, positioned(cc, start, queue).build(), what);
            log.info("consumer '{}' of {} starts at {}", name, what, start);
        } else {
            transport
                    .topology()
                    .ensureConsumer(queue, cc.deliverPolicy(DeliverPolicy.All).build(), what);
        }
    }

    /**
     * Sets where a new consumer starts.
     *
     * @throws IllegalArgumentException when the position is beyond the stream's end or was trimmed from it
     */
    private ConsumerConfiguration.Builder positioned(
            ConsumerConfiguration.Builder cc, Position position, String queue) {
        return switch (position) {
            case Position.Start s -> cc.deliverPolicy(DeliverPolicy.All);
            case Position.End e -> cc.deliverPolicy(DeliverPolicy.New);
            case Position.Timestamp t ->
                cc.deliverPolicy(DeliverPolicy.ByStartTime)
                        .startTime(ZonedDateTime.ofInstant(t.time(), ZoneOffset.UTC));
            case Position.Sequence s -> startAtSequence(cc, s.sequence(), queue);
            case Position.Captured c -> startAtSequence(cc, c.offset(), queue);
        };
    }

    private ConsumerConfiguration.Builder startAtSequence(
            ConsumerConfiguration.Builder cc, long sequence, String queue) {
        long last = transport.topology().lastSequence(queue);
        long first = transport.topology().firstSequence(queue);
        if (sequence > last + 1) {
            throw new IllegalArgumentException("stream '" + NatsTopology.stream(queue) + "' of " + what
                    + " ends at sequence " + last + "; sequence " + sequence + " does not exist");
        }
        if (sequence < first && sequence > 0) {
            throw new IllegalArgumentException("sequence " + sequence + " of stream '" + NatsTopology.stream(queue)
                    + "' was trimmed (the stream starts at " + first + ")");
        }
        return sequence <= 0
                ? cc.deliverPolicy(DeliverPolicy.All)
                : cc.deliverPolicy(DeliverPolicy.ByStartSequence).startSequence(sequence);
    }

    private void startSource(Source source) {
        source.bind();
        sources.add(source);
        source.started = true;
        source.thread.start();
    }

    private Duration keepAliveInterval() {
        return ackWait.dividedBy(3);
    }

    // ---------------------------------------------------------------- sources

    /** One JetStream consumer this subscription pulls from, and its puller thread. */
    final class Source {
        final Kind kind;
        /** The queue deliveries report: the topic, a shard's name, the DLQ. */
        final String queue;
        /** The queue whose stream this consumer reads. */
        final String streamQueue;

        final String stream;
        final int shard;
        final String consumer;
        final Thread thread;
        volatile @Nullable JetStreamSubscription sub;
        volatile boolean stopped;
        /** Whether its puller thread was started (a shard's starts once its lease tick is over). */
        volatile boolean started;
        /** The stream sequences of this source's deliveries not settled yet: a second delivery of one is dropped. */
        final Set<Long> held = ConcurrentHashMap.newKeySet();

        Source(Kind kind, String queue, String streamQueue, int shard, String consumer) {
            this.kind = kind;
            this.queue = queue;
            this.streamQueue = streamQueue;
            this.stream = NatsTopology.stream(streamQueue);
            this.shard = shard;
            this.consumer = consumer;
            this.thread = Thread.ofVirtual()
                    .name("shove-nats-pull-" + request.consumerId() + "-"
                            + kind.name().toLowerCase(java.util.Locale.ROOT) + (shard >= 0 ? "-" + shard : ""))
                    .unstarted(this::run);
        }

        boolean acks() {
            return kind != Kind.BROADCAST;
        }

        void bind() {
            try {
                sub = transport.jetStream().subscribe(null, PullSubscribeOptions.fastBind(stream, consumer));
            } catch (IOException | JetStreamApiException e) {
                throw new TopologyException("cannot read consumer '" + consumer + "' on stream '" + stream + "' of "
                        + what + ": " + e.getMessage());
            }
        }

        /** Stops pulling; the thread ends within a slice. */
        void stop() {
            stopped = true;
        }

        void unsubscribe() {
            JetStreamSubscription s = sub;
            if (s != null) {
                try {
                    s.unsubscribe();
                } catch (RuntimeException e) {
                    log.debug("unsubscribing from consumer '{}' failed: {}", consumer, e.toString());
                }
            }
        }

        private int share() {
            if (kind != Kind.SHARD) {
                return window;
            }
            // rounded down, so that the shards' reservations together never exceed the window
            return Math.max(1, window / Math.max(1, shardSources.size()));
        }

        private void run() {
            while (!stopped && !paused) {
                JetStreamSubscription s = sub;
                if (s == null) {
                    return;
                }
                int batch;
                boolean reserving = kind != Kind.RETRY;
                if (reserving) {
                    batch = reserve(share(), this);
                    if (batch == 0) {
                        continue;
                    }
                } else {
                    batch = RETRY_BATCH;
                }
                int[] reservation = {reserving ? batch : 0};
                try {
                    pullOnce(s, batch, reservation);
                } catch (InterruptedException e) {
                    if (stopped || paused) {
                        return;
                    }
                } catch (RuntimeException e) {
                    if (!stopped && !paused) {
                        pullFailed(e);
                    }
                } finally {
                    release(reservation[0]);
                    reservation[0] = 0;
                }
            }
        }

        private void pullOnce(JetStreamSubscription s, int batch, int[] reservation) throws InterruptedException {
            s.pull(PullRequestOptions.builder(batch).expiresIn(PULL_EXPIRY).build());
            long deadline = System.nanoTime() + PULL_EXPIRY.toNanos() + PULL_GRACE_NANOS;
            int received = 0;
            List<Message> got = new ArrayList<>(Math.min(batch, 256));
            while (received < batch && !stopped && !paused) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                Message first = s.nextMessage(Duration.ofNanos(Math.min(left, SLICE_NANOS)));
                if (first == null) {
                    yieldReservation(reservation);
                    continue;
                }
                got.add(first);
                received++;
                Message more;
                while (received < batch && (more = s.nextMessage(Duration.ofNanos(1_000))) != null) {
                    got.add(more);
                    received++;
                }
                hand(this, got, reservation);
                got.clear();
            }
        }

        private void pullFailed(RuntimeException e) {
            transport.context().backendError(transport.name(), "pull");
            String detail = String.valueOf(e.getMessage());
            if (detail.toLowerCase(java.util.Locale.ROOT).contains("deleted")) {
                consumerDeleted(this);
                return;
            }
            log.warn("{}: pulling from consumer '{}' failed: {}; trying again", what, consumer, detail);
            try {
                Thread.sleep(Duration.ofNanos(RETRY_PULL_NANOS));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return "consumer '" + consumer + "' on stream '" + stream + "'";
        }
    }

    /**
     * The server says a consumer this subscription reads was deleted. A shard's: another member took the shard over
     * (or an operator deleted it); this member stops reading it and gives its lease back, so that the shard is claimed
     * again with a generation of its own. Any other: a seek in another process replaces it under the same name, so
     * reading goes on if it is back within a few seconds; if not (an operator deleted it), the subscription fails
     * rather than create it again at the stream's start and replay everything.
     */
    private void consumerDeleted(Source source) {
        if (source.kind == Kind.SHARD) {
            log.warn(
                    "{}: the consumer '{}' of shard {} was deleted; this consumer stops reading the shard",
                    what,
                    source.consumer,
                    source.shard);
            lost(source.shard);
            ShardLeases l = leases;
            if (l != null) {
                l.giveUp(source.shard);
            }
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline && !source.stopped && !paused) {
            if (transport.topology().consumerInfo(source.stream, source.consumer, what) != null) {
                return; // replaced under the same name: the next pull reaches it
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
        if (!source.stopped && !paused) {
            sink.failed(new TopologyException("consumer '" + source.consumer + "' on stream '" + source.stream + "' of "
                    + what + " was deleted while the group was reading it; start the group again (it creates the"
                    + " consumer at the stream's start, or at its startAt position)"));
        }
    }

    // ---------------------------------------------------------------- the window

    /**
     * Waits until there is room, then reserves up to {@code max}; 0 when the source stopped meanwhile. While deliveries
     * are out, it waits up to {@link #PULL_LINGER_NANOS} for half of {@code max} to be free, so that a busy consumer
     * pulls in batches rather than one message per pull request.
     */
    private int reserve(int max, Source source) {
        roomLock.lock();
        try {
            long lingerEnd = System.nanoTime() + PULL_LINGER_NANOS;
            int enough = outstanding == 0 ? 1 : Math.max(1, max / 2);
            while (true) {
                if (source.stopped || paused) {
                    return 0;
                }
                int free = window - outstanding - reserved - takersWaiting;
                long left = lingerEnd - System.nanoTime();
                if (free >= enough || free > 0 && left <= 0) {
                    break;
                }
                roomChanged.awaitNanos(free > 0 ? left : SLICE_NANOS);
            }
            int n = Math.min(max, window - outstanding - reserved - takersWaiting);
            reserved += n;
            return n;
        } catch (InterruptedException e) {
            return 0;
        } finally {
            roomLock.unlock();
        }
    }

    private void release(int n) {
        if (n <= 0) {
            return;
        }
        roomLock.lock();
        try {
            reserved -= n;
            roomChanged.signalAll();
        } finally {
            roomLock.unlock();
        }
    }

    /**
     * Takes up to {@code wanted} places in the window: first from the reservation, then from the free room, waiting
     * for room when there is none; 0 when the source stopped meanwhile.
     */
    private int take(int wanted, int[] reservation, Source source) throws InterruptedException {
        roomLock.lock();
        try {
            int fromReservation = Math.min(wanted, reservation[0]);
            reservation[0] -= fromReservation;
            reserved -= fromReservation;
            outstanding += fromReservation;
            if (fromReservation > 0 && fromReservation == wanted) {
                return fromReservation;
            }
            if (fromReservation == 0 && window - outstanding - reserved <= 0) {
                takersWaiting++;
                roomChanged.signalAll(); // a puller holding an idle reservation gives it up
                try {
                    while (window - outstanding - reserved <= 0) {
                        if (source.stopped || paused) {
                            return 0;
                        }
                        roomChanged.awaitNanos(SLICE_NANOS);
                    }
                } finally {
                    takersWaiting--;
                }
            }
            int fromRoom = Math.max(0, Math.min(wanted - fromReservation, window - outstanding - reserved));
            outstanding += fromRoom;
            return fromReservation + fromRoom;
        } finally {
            roomLock.unlock();
        }
    }

    /**
     * Gives up what is left of a reservation while another puller waits for room for deliveries it already has (a due
     * retry copy while the main consumer's pull waits for messages): the server may still answer the pull, and what it
     * sends then takes room like any delivery beyond a reservation.
     */
    private void yieldReservation(int[] reservation) {
        roomLock.lock();
        try {
            if (takersWaiting > 0 && reservation[0] > 0) {
                reserved -= reservation[0];
                reservation[0] = 0;
                roomChanged.signalAll();
            }
        } finally {
            roomLock.unlock();
        }
    }

    private void free(int n) {
        if (n <= 0) {
            return;
        }
        roomLock.lock();
        try {
            outstanding -= n;
            roomChanged.signalAll();
        } finally {
            roomLock.unlock();
        }
    }

    // ---------------------------------------------------------------- intake (puller threads)

    private void hand(Source source, List<Message> messages, int[] reservation) throws InterruptedException {
        List<NatsDelivery> ready = new ArrayList<>(messages.size());
        long now = System.currentTimeMillis();
        for (Message m : messages) {
            if (!m.isJetStream()) {
                continue;
            }
            NatsJetStreamMetaData meta = m.metaData();
            long delivered = meta.deliveredCount();
            if (source.acks() && source.held.contains(meta.streamSequence())) {
                // Server 2.9 sometimes delivers a message again while the first delivery is still here (a parked copy
                // when its delay ends); the first one's settlement settles both, so this one is dropped.
                log.debug("{}: dropped a second delivery of {} from {}", what, meta.streamSequence(), source);
                continue;
            }
            Map<String, String> headers = NatsMessages.fromNats(m);
            int count = (int) Math.min(Integer.MAX_VALUE, delivered);
            if (source.kind == Kind.RETRY) {
                long remaining = wireHeaders.remainingMillis(headers, now);
                if (delivered == 1 || remaining > 0) {
                    // parked: the server keeps the copy and delivers it again when due
                    park(m, remaining);
                    continue;
                }
                count = count - 1;
            }
            long sequence = meta.streamSequence();
            if (log.isDebugEnabled()) {
                log.debug(
                        "{} received {} (delivered {} times) from {} reply {}",
                        request.consumerId(),
                        sequence,
                        delivered,
                        source,
                        m.getReplyTo());
            }
            if (source.kind == Kind.SHARD) {
                long[] wait = waits.get(sequence);
                if (wait != null) {
                    Map<String, String> withWait = new HashMap<>(headers);
                    withWait.put(ShoveHeaders.RETRY_COUNT, Long.toString(wait[0]));
                    withWait.put(ShoveHeaders.NOT_BEFORE, Long.toString(wait[1]));
                    headers = Map.copyOf(withWait);
                }
            }
            long timestamp =
                    meta.timestamp() == null ? -1 : meta.timestamp().toInstant().toEpochMilli();
            NatsDelivery d = new NatsDelivery(this, source, m, sequence, headers, count, timestamp);
            if (source.kind == Kind.SHARD && waits.containsKey(sequence)) {
                d.waitStored = true;
            }
            if (source.acks()) {
                source.held.add(sequence);
            }
            ready.add(d);
        }
        if (ready.isEmpty()) {
            return;
        }
        if (source.acks()) {
            unsettled.addAll(ready);
        }
        // in as many parts as the window makes room for: a part waits for room only after the previous went out
        int next = 0;
        while (next < ready.size()) {
            int n = take(ready.size() - next, reservation, source);
            deliverLock.lock();
            try {
                if (n == 0 || paused || source.stopped) {
                    // Stopped meanwhile: give them back to the server for another consumer.
                    free(n);
                    for (NatsDelivery d : ready.subList(next, ready.size())) {
                        drop(d);
                        if (source.acks() && source.kind != Kind.SHARD) {
                            nakQuietly(d.message);
                        }
                    }
                    return;
                }
                sink.deliverAll(ready.subList(next, next + n));
            } finally {
                deliverLock.unlock();
            }
            next += n;
        }
    }

    /** A delivery leaves this subscription's keeping: settled, withdrawn, or not handed over after all. */
    private void drop(NatsDelivery d) {
        unsettled.remove(d);
        d.source.held.remove(d.streamSequence);
    }

    private void park(Message m, long remainingMillis) {
        try {
            m.nakWithDelay(remainingMillis > 0 ? Duration.ofMillis(remainingMillis) : RETURN_DELAY);
        } catch (RuntimeException e) {
            log.debug(
                    "{}: parking a retry copy failed ({}); the server delivers it again after ack_wait",
                    what,
                    e.toString());
        }
    }

    private static void nakQuietly(Message m) {
        try {
            m.nakWithDelay(RETURN_DELAY);
        } catch (RuntimeException e) {
            log.debug("nak failed: {}", e.toString());
        }
    }

    /** Tells the server that deliveries held for a while are still being worked on. */
    private void keepAlive() {
        long now = System.nanoTime();
        long every = keepAliveInterval().toNanos();
        for (NatsDelivery d : unsettled) {
            if (now - d.touchedNanos >= every) {
                d.touchedNanos = now;
                try {
                    d.message.inProgress();
                } catch (RuntimeException e) {
                    log.debug("{}: keeping message {} in progress failed: {}", what, d.deliveryId(), e.toString());
                }
            }
        }
    }

    // ---------------------------------------------------------------- settlement (engine threads)

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        if (!(delivery instanceof NatsDelivery d) || d.owner != this) {
            callback.settled(new IllegalArgumentException(
                    "delivery " + delivery.deliveryId() + " does not belong to consumer " + request.consumerId()));
            return;
        }
        free(1);
        if (!d.source.acks()) {
            callback.settled(null); // a broadcast reader acknowledges nothing: best effort
            return;
        }
        if (closed) {
            drop(d);
            callback.settled(new IllegalStateException("consumer " + request.consumerId() + " of " + what
                    + " is closed before settling message " + d.deliveryId() + "; NATS delivers it again"));
            return;
        }
        if (settlement.copies().isEmpty()) {
            enqueue(new Op(d, settlement.action() == Settlement.Action.ACK, callback));
            return;
        }
        settleLock.lock();
        try {
            copiesInFlight++;
        } finally {
            settleLock.unlock();
        }
        List<CompletableFuture<Void>> copies =
                new ArrayList<>(settlement.copies().size());
        for (Settlement.Copy copy : settlement.copies()) {
            try {
                copies.add(publishCopy(d, copy));
            } catch (RuntimeException e) {
                copies.add(CompletableFuture.failedFuture(e));
            }
        }
        CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            if (failure == null) {
                enqueue(new Op(d, true, callback));
            }
            settleLock.lock();
            try {
                copiesInFlight--;
                settleChanged.signalAll();
            } finally {
                settleLock.unlock();
            }
            if (failure != null) {
                Throwable cause =
                        failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
                callback.settled(cause);
                transport.later(FAILED_COPY_RETURN_DELAY, () -> {
                    if (!closed) {
                        enqueue(new Op(d, false, NONE));
                    }
                });
            }
        });
    }

    private CompletableFuture<Void> publishCopy(NatsDelivery d, Settlement.Copy copy) {
        String id = d.headers().getOrDefault(ShoveHeaders.MESSAGE_ID, d.deliveryId());
        return switch (copy) {
            case Settlement.Copy.ToHold hold ->
                transport.send(
                        topic.name(),
                        NatsTopology.retrySubject(topic, request.group()),
                        NatsTopology.stream(topic.name()),
                        hold.headers(),
                        hold.payload(),
                        null,
                        "a retry copy of message " + id);
            case Settlement.Copy.ToDeadLetter dead ->
                transport.send(
                        dead.queue(),
                        NatsTopology.subject(dead.queue()),
                        NatsTopology.stream(dead.queue()),
                        dead.headers(),
                        dead.payload(),
                        null,
                        "a dead letter of message " + id);
            case Settlement.Copy.ToTopic reply ->
                CompletableFuture.failedFuture(new UnsupportedOperationException(
                        "the NATS backend has no transactions; replies are published before the settlement"));
        };
    }

    private void enqueue(Op op) {
        settleLock.lock();
        try {
            queued.add(op);
            if (queued.size() == 1 || queued.size() >= MAX_SETTLE_BATCH) {
                settleChanged.signalAll();
            }
        } finally {
            settleLock.unlock();
        }
    }

    private void settleLoop() {
        try {
            while (true) {
                List<Op> batch = new ArrayList<>();
                settleLock.lock();
                try {
                    while (queued.isEmpty()) {
                        if (closed) {
                            return;
                        }
                        settleChanged.await();
                    }
                    long lingerEnd = System.nanoTime() + LINGER.toNanos();
                    long left;
                    while (queued.size() < MAX_SETTLE_BATCH && !closing && (left = lingerEnd - System.nanoTime()) > 0) {
                        settleChanged.awaitNanos(left);
                    }
                    for (Op op; batch.size() < MAX_SETTLE_BATCH && (op = queued.poll()) != null; ) {
                        batch.add(op);
                    }
                    writing += batch.size();
                } finally {
                    settleLock.unlock();
                }
                write(batch);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.error("the settlement writer of consumer {} failed; it stops", request.consumerId(), e);
            sink.failed(e);
        }
    }

    private void write(List<Op> batch) {
        // naks in stream order, so that what comes back comes back in order
        batch.sort(Comparator.comparing((Op o) -> o.ack()).thenComparingLong(o -> o.delivery().streamSequence));
        @Nullable Throwable failure = null;
        for (Op op : batch) {
            if (log.isDebugEnabled()) {
                log.debug("{} {} {}", request.consumerId(), op.ack() ? "acks" : "naks", op.delivery());
            }
            try {
                if (op.ack()) {
                    op.delivery().message.ack();
                } else {
                    op.delivery().message.nakWithDelay(RETURN_DELAY);
                }
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (failure == null) {
            try {
                transport.connection().flush(transport.config().apiTimeout());
            } catch (TimeoutException | IllegalStateException e) {
                failure = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = e;
            }
        }
        Throwable reported = failure == null
                ? null
                : new BrokerUnavailableException(
                        "settling " + batch.size() + " message(s) of consumer " + request.consumerId() + " of " + what
                                + " failed (" + failure.getMessage() + "); NATS delivers them again",
                        failure);
        for (Op op : batch) {
            drop(op.delivery());
            if (reported == null && op.ack() && op.delivery().waitStored) {
                forgetWait(op.delivery());
            }
            try {
                op.callback().settled(reported);
            } catch (RuntimeException e) {
                log.warn("a settle callback of consumer {} failed: {}", request.consumerId(), e.toString());
            }
        }
        settleLock.lock();
        try {
            writing -= batch.size();
            settleChanged.signalAll();
        } finally {
            settleLock.unlock();
        }
    }

    /** Waits until everything queued so far is written (bounded by {@link #CLOSE_TIMEOUT}). */
    private void drainSettlements() {
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        settleLock.lock();
        try {
            long left;
            while ((!queued.isEmpty() || writing > 0 || copiesInFlight > 0)
                    && (left = deadline - System.nanoTime()) > 0) {
                settleChanged.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            settleLock.unlock();
        }
    }

    // ---------------------------------------------------------------- sequenced waits

    private String waitKey(long sequence, int shard) {
        return NatsTopology.stream(topic.name()) + "." + NatsTopology.token(request.group()) + "." + shard + "."
                + sequence;
    }

    @Override
    public void waiting(Delivery delivery, int retryCount, long notBeforeEpochMs) {
        if (!(delivery instanceof NatsDelivery d) || d.source.kind != Kind.SHARD) {
            return;
        }
        waits.put(d.streamSequence, new long[] {retryCount, notBeforeEpochMs});
        try {
            transport
                    .waits()
                    .put(
                            waitKey(d.streamSequence, d.source.shard),
                            (retryCount + " " + notBeforeEpochMs).getBytes(StandardCharsets.UTF_8));
            d.waitStored = true;
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            log.warn(
                    "{}: storing the wait of message {} failed ({}); if this consumer stops before it is due, the"
                            + " next one starts it from its published retry count",
                    what,
                    d.deliveryId(),
                    e.toString());
        }
    }

    private void forgetWait(NatsDelivery d) {
        waits.remove(d.streamSequence);
        d.waitStored = false;
        String key = waitKey(d.streamSequence, d.source.shard);
        Thread.ofVirtual().name("shove-nats-forget-" + request.consumerId()).start(() -> {
            try {
                transport.waits().delete(key);
            } catch (IOException | JetStreamApiException | RuntimeException e) {
                log.debug("{}: removing the wait {} failed ({}); it expires by itself", what, key, e.toString());
            }
        });
    }

    /** Loads the waits stored for a shard (by any member) before reading it. */
    private void loadWaits(int shard) {
        KeyValue kv = transport.waits();
        String prefix =
                NatsTopology.stream(topic.name()) + "." + NatsTopology.token(request.group()) + "." + shard + ".";
        try {
            for (String key : kv.keys(prefix + "*")) {
                KeyValueEntry entry = kv.get(key);
                if (entry == null || entry.getValue() == null) {
                    continue;
                }
                String[] parts = entry.getValueAsString().trim().split(" ");
                long sequence = Long.parseLong(key.substring(prefix.length()));
                if (parts.length == 2) {
                    waits.put(sequence, new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])});
                }
            }
        } catch (IOException | JetStreamApiException | NumberFormatException e) {
            log.warn(
                    "{}: reading the stored waits of shard {} failed ({}); those messages start from their published"
                            + " retry count",
                    what,
                    shard,
                    e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- shards (the leases' timer)

    @Override
    public boolean claimed(int shard) {
        if (paused || closing) {
            return false;
        }
        String queue = topic.shardName(shard);
        String prefix = NatsTopology.shardConsumerPrefix(request.group(), shard);
        Position start = startedShards.add(shard) ? request.startAt() : null;
        Source source = newGeneration(shard, prefix, start);
        loadWaits(shard);
        source.bind();
        shardSources.put(shard, source);
        sources.add(source);
        log.info("{}: consumer {} reads shard {} ({})", what, request.consumerId(), shard, queue);
        return true;
    }

    /**
     * The leases' tick is over: the shards claimed in it start pulling together, each with its share of the window
     * (started one by one, the first would take the whole window while its siblings are still being claimed).
     */
    @Override
    public void dealt() {
        for (Source source : shardSources.values()) {
            if (!source.started && !source.stopped && !paused) {
                source.started = true;
                source.thread.start();
            }
        }
    }

    /**
     * Creates the next generation of a shard's consumer: at {@code start} if given, else at the previous generation's
     * ack floor (or the stream's start, for the first one); then deletes the previous generations.
     */
    private Source newGeneration(int shard, String prefix, @Nullable Position start) {
        NatsTopology topology = transport.topology();
        List<String> previous = topology.consumerNames(topic.name(), what).stream()
                .filter(n -> n.startsWith(prefix))
                .sorted(BY_GENERATION)
                .toList();
        long generation = previous.isEmpty() ? 1 : generationOf(previous.getLast()) + 1;
        String name = prefix + generation;
        ConsumerConfiguration.Builder cc = topology.durable(name, NatsTopology.shardSubject(topic, shard));
        if (start != null) {
            positioned(cc, start, topic.name());
        } else if (previous.isEmpty()) {
            cc.deliverPolicy(DeliverPolicy.All);
        } else {
            ConsumerInfo last = topology.consumerInfo(NatsTopology.stream(topic.name()), previous.getLast(), what);
            long floor = last == null ? 0 : last.getAckFloor().getStreamSequence();
            cc.deliverPolicy(DeliverPolicy.ByStartSequence).startSequence(floor + 1);
        }
        topology.createConsumer(topic.name(), cc.build(), what);
        for (String old : previous) {
            topology.deleteConsumer(topic.name(), old);
        }
        return new Source(Kind.SHARD, topic.shardName(shard), topic.name(), shard, name);
    }

    static long generationOf(String consumer) {
        int g = consumer.lastIndexOf("_g");
        try {
            return g < 0 ? 0 : Long.parseLong(consumer.substring(g + 2));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public void lost(int shard) {
        Source source = shardSources.remove(shard);
        if (source == null) {
            return;
        }
        source.stop();
        List<Delivery> withdrawn = sink.withdraw(d -> d instanceof NatsDelivery n && n.source == source);
        forget(withdrawn);
        source.unsubscribe();
    }

    @Override
    public void release(int shard, Runnable released) {
        Source source = shardSources.remove(shard);
        if (source == null) {
            released.run();
            return;
        }
        source.stop();
        forget(sink.withdraw(d -> d instanceof NatsDelivery n && n.source == source));
        Thread.ofVirtual()
                .name("shove-nats-release-" + request.consumerId() + "-" + shard)
                .start(() -> {
                    long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
                    while (unsettled.stream().anyMatch(d -> d.source == source) && System.nanoTime() < deadline) {
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException e) {
                            break;
                        }
                    }
                    drainSettlements();
                    source.unsubscribe();
                    released.run();
                });
    }

    /** Deliveries the engine gave back: they leave the window; their shard's next generation reads them again. */
    private void forget(List<Delivery> withdrawn) {
        for (Delivery d : withdrawn) {
            drop((NatsDelivery) d);
        }
        free(withdrawn.size());
    }

    // ---------------------------------------------------------------- seek

    @Override
    public void seek(Position position, List<Delivery> abandoned) {
        List<Source> moving = new ArrayList<>();
        for (Source s : sources) {
            if (s.stopped || s.kind == Kind.RETRY) {
                continue;
            }
            if (position instanceof Position.Captured c
                    && s.kind == Kind.SHARD
                    && !c.queue().equals(s.queue)) {
                continue;
            }
            moving.add(s);
        }
        // Check the position before anything moves, so that a refused seek leaves the subscription where it was.
        positioned(ConsumerConfiguration.builder(), position, request.queue());
        forget(abandoned);
        for (Source s : moving) {
            s.stop();
        }
        for (Source s : moving) {
            try {
                s.thread.join(SLICE_NANOS / 1_000_000 * 3 + PULL_EXPIRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            s.unsubscribe();
            sources.remove(s);
        }
        // what a puller handed over while the engine was already moving: read again from the new position
        forget(sink.withdraw(d -> d instanceof NatsDelivery n && moving.contains(n.source)));
        // acks already queued go to the consumers they belong to before those are replaced
        drainSettlements();
        for (Source s : moving) {
            Source moved;
            switch (s.kind) {
                case SHARD -> {
                    moved = newGeneration(
                            s.shard, NatsTopology.shardConsumerPrefix(request.group(), s.shard), position);
                    shardSources.put(s.shard, moved);
                }
                case BROADCAST -> {
                    transport.topology().deleteConsumer(s.streamQueue, s.consumer);
                    ConsumerConfiguration.Builder cc = ConsumerConfiguration.builder()
                            .name(s.consumer)
                            .filterSubject(NatsTopology.subject(topic.name()))
                            .ackPolicy(AckPolicy.None)
                            .inactiveThreshold(Duration.ofMinutes(1));
                    transport
                            .topology()
                            .createConsumer(
                                    s.streamQueue,
                                    positioned(cc, position, s.streamQueue).build(),
                                    what);
                    moved = new Source(s.kind, s.queue, s.streamQueue, -1, s.consumer);
                }
                default -> {
                    String subject = s.kind == Kind.DEAD_LETTER
                            ? NatsTopology.subject(request.queue())
                            : NatsTopology.subject(topic.name());
                    transport.topology().deleteConsumer(s.streamQueue, s.consumer);
                    transport
                            .topology()
                            .createConsumer(
                                    s.streamQueue,
                                    positioned(
                                                    transport.topology().durable(s.consumer, subject),
                                                    position,
                                                    s.streamQueue)
                                            .build(),
                                    what);
                    moved = new Source(s.kind, s.queue, s.streamQueue, -1, s.consumer);
                }
            }
            startSource(moved);
        }
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void pause() {
        deliverLock.lock();
        try {
            paused = true;
        } finally {
            deliverLock.unlock();
        }
        for (Source s : sources) {
            s.stop();
            // no pull request may stay open on the server: it would take messages returned meanwhile
            s.unsubscribe();
        }
        roomLock.lock();
        try {
            roomChanged.signalAll();
        } finally {
            roomLock.unlock();
        }
    }

    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        pause();
        for (Source s : sources) {
            try {
                s.thread.join(SLICE_NANOS / 1_000_000 * 3 + PULL_EXPIRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        drainSettlements();
        settleLock.lock();
        try {
            if (!queued.isEmpty() || writing > 0 || copiesInFlight > 0) {
                log.warn(
                        "consumer {} of {} closes with {} settlement(s) unwritten after {}; NATS delivers them again",
                        request.consumerId(),
                        what,
                        queued.size() + writing + copiesInFlight,
                        DurationText.of(CLOSE_TIMEOUT));
            }
            closed = true;
            settleChanged.signalAll();
        } finally {
            settleLock.unlock();
        }
        ScheduledFuture<?> k = keeper;
        if (k != null) {
            k.cancel(false);
        }
        for (Source s : sources) {
            s.unsubscribe();
            if (s.kind == Kind.BROADCAST) {
                transport.topology().deleteConsumer(s.streamQueue, s.consumer);
            }
        }
        if (leases != null) {
            leases.close();
        }
        List<Op> unwritten = new ArrayList<>();
        settleLock.lock();
        try {
            for (Op op; (op = queued.poll()) != null; ) {
                unwritten.add(op);
            }
        } finally {
            settleLock.unlock();
        }
        for (Op op : unwritten) {
            op.callback()
                    .settled(new IllegalStateException("consumer " + request.consumerId() + " closed before settling"
                            + " message " + op.delivery().deliveryId() + "; NATS delivers it again"));
        }
        transport.closed(this);
    }

    @Override
    public String toString() {
        return "NatsSubscription[" + request.consumerId() + " of " + what + "]";
    }
}
