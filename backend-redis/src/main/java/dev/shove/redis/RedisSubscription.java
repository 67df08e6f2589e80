package dev.shove.redis;

import dev.shove.Position;
import dev.shove.ShoveException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import io.lettuce.core.Consumer;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import io.lettuce.core.models.stream.PendingMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer of a topic's main stream (or shards) or of its dead-letter stream: a member of a Redis consumer group,
 * reading with {@code XREADGROUP ... COUNT ... BLOCK} on a connection of its own, driven by one platform thread named
 * {@code shove-redis-read-{consumerId}} that never runs handlers.
 *
 * <p><b>What it holds.</b> Every entry read and not yet settled stays pending to this consumer in the group; it is
 * kept in {@code held} and renewed every {@code leaseRenewal} ({@code XCLAIM ... JUSTID} through {@link
 * RedisScripts#RENEW}), so no other consumer reclaims it while it is waiting for a handler, running, or waiting out a
 * sequenced retry in place. Entries of a consumer that stopped renewing (it crashed) are reclaimed by the others with
 * {@code XAUTOCLAIM} once they have been idle for the claim time; a returned entry is made idle at once so that the
 * next consumer takes it without waiting.
 *
 * <p><b>Settling.</b> Acknowledgements are coalesced: one {@code XACK} per stream for every {@code ackBatch} completed
 * entries or after {@code ackLinger}. A retry or a dead letter is one Lua script that writes the copy and acknowledges
 * the original together, and only while the entry is still pending to this consumer.
 *
 * <p><b>Own history.</b> A stream in "history" mode is read from this consumer's own pending entries ({@code
 * XREADGROUP ... <id>}) before new ones ({@code >}), skipping those still held or settled while the read was on its
 * way: after a shard is taken over (its previous owner's entries are claimed first), after a connection failure (a
 * reply may have been lost), and after an entry was returned while its stream stays here. That keeps a shard's order.
 *
 * <p><b>Sequenced topics.</b> Each shard stream is read by one consumer of the group at a time, which holds the
 * shard's lease ({@code SET NX PX}, renewed); the group's live consumers (a sorted set of heartbeats) share the shards
 * round-robin, and a consumer gives a shard up only once nothing of it is in flight here.
 */
final class RedisSubscription implements Subscription {
    private static final Logger log = LoggerFactory.getLogger(RedisSubscription.class);

    /** The idle time a returned entry is given, so that any consumer's next claim takes it at once. */
    private static final Duration RETURNED_IDLE = Duration.ofDays(365);

    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** One stream this consumer reads. */
    private static final class Stream {
        final String key;
        final String queue;
        final int shard;
        /** Reading own pending entries from after this id, or null: reading new entries ({@code >}). */
        volatile @Nullable String history;

        volatile boolean releasing;

        Stream(String key, String queue, int shard, @Nullable String history) {
            this.key = key;
            this.queue = queue;
            this.shard = shard;
            this.history = history;
        }
    }

    /** An acknowledgement waiting to be sent. */
    private record PendingAck(
            RedisDelivery delivery, @Nullable SettleCallback callback) {}

    private final RedisTransport transport;
    private final RedisClusterAsyncCommands<String, byte[]> redis;
    private final SubscriptionRequest request;
    private final DeliverySink sink;
    private final Topic<?> topic;
    private final String group;
    private final byte[] groupBytes;
    private final String consumer;
    private final byte[] consumerBytes;
    private final boolean main;
    private final boolean sequenced;
    private final int window;
    /**
     * How much of the window must be free before the reader refills it: half, so that a busy consumer reads and
     * hands over in runs rather than waking for every settled entry.
     */
    private final int refill;

    private final Duration claimIdle;
    private final Thread thread;
    private final RefillWakeup refillWakeup;

    private final Map<String, Stream> streams = new ConcurrentHashMap<>();
    private final Map<String, RedisDelivery> held = new ConcurrentHashMap<>();
    /**
     * Entries settled (acknowledged, or copied and acknowledged) while a read of this consumer's own pending entries
     * was on its way: the read may have been answered before the settlement reached Redis and so still list them,
     * while they are no longer {@link #held}. Filled only while {@link #rereading}; emptied before each such read.
     */
    private final Set<String> settledWhileRereading = ConcurrentHashMap.newKeySet();

    private volatile boolean rereading;
    private final AtomicInteger outstanding = new AtomicInteger();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Object ackLock = new Object();
    private List<PendingAck> acks = new ArrayList<>();
    private @Nullable ScheduledFuture<?> ackTimer;

    private volatile RedisConnector.@Nullable Reader reader;
    private volatile boolean paused;
    private volatile boolean closing;
    private volatile boolean reading;
    private boolean startCounted;

    // Reader thread only.
    private final ArrayDeque<RedisDelivery> backlog = new ArrayDeque<>();
    private long nextRenewNanos;
    private long nextClaimNanos;
    private long nextLeaseNanos;
    private long failures;

    RedisSubscription(RedisTransport transport, SubscriptionRequest request, DeliverySink sink, String group) {
        this.transport = transport;
        this.redis = transport.redis();
        this.request = request;
        this.sink = sink;
        this.topic = request.topic();
        this.group = group;
        this.groupBytes = group.getBytes(StandardCharsets.UTF_8);
        this.consumer = transport.context().clientName() + "-" + request.consumerId();
        this.consumerBytes = consumer.getBytes(StandardCharsets.UTF_8);
        this.main = request.source() == SubscriptionRequest.Source.MAIN;
        this.sequenced = main && topic.isSequenced();
        this.window = request.window();
        this.refill = Math.max(1, window / 2);
        this.claimIdle = transport.config().claimIdleFor(request.handlerTimeout());
        // A platform thread, like Kafka's poll thread: it blocks in the client on every read, and a virtual thread
        // parked there would cost a carrier hand-off per read on the hot path.
        this.thread = Thread.ofPlatform()
                .name("shove-redis-read-" + request.consumerId())
                .daemon()
                .unstarted(this::run);
        this.refillWakeup = new RefillWakeup(thread, window, refill);
    }

    /** Creates the group where missing, applies the start position, connects the reader and starts reading. */
    void start() {
        List<String> keys = main
                ? transport.keys().streams(topic)
                : List.of(transport.keys().deadLetters(topic, request.queue()));
        for (String key : keys) {
            transport.ensureGroup(topic, key, group);
        }
        Position start = request.startAt();
        if (start != null) {
            startCounted = true;
            if (transport.firstStart(group, keys.getFirst())) {
                for (String key : keys) {
                    try {
                        setId(key, start);
                        log.info(
                                "consumer {} of topic '{}' starts at {}", request.consumerId(), request.queue(), start);
                    } catch (RuntimeException e) {
                        log.warn(
                                "consumer {} of topic '{}' cannot start at {}: {}; it starts at the group's position",
                                request.consumerId(),
                                request.queue(),
                                start,
                                e.getMessage());
                    }
                }
            }
        }
        if (!sequenced) {
            String key = keys.getFirst();
            streams.put(key, new Stream(key, request.queue(), -1, null));
        }
        reader = transport.connector().openReader(keys.getFirst());
        long now = System.nanoTime();
        nextRenewNanos = now + transport.config().leaseRenewal().toNanos();
        nextClaimNanos = now; // take over what was returned or orphaned at once
        nextLeaseNanos = now;
        thread.start();
    }

    private String streamKeyOfRequest() {
        return main
                ? transport.keys().streams(topic).getFirst()
                : transport.keys().deadLetters(topic, request.queue());
    }

    // ---------------------------------------------------------------- engine side (any thread)

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        if (!(delivery instanceof RedisDelivery d) || d.owner != this) {
            throw new IllegalArgumentException("delivery " + delivery.deliveryId() + " does not belong to consumer "
                    + request.consumerId() + " of topic '" + request.queue() + "'");
        }
        if (settlement.action() == Settlement.Action.RETURN) {
            giveBack(d, callback); // first: the room it frees must not be filled with what comes after it
            freed();
            return;
        }
        freed();
        List<Settlement.Copy> copies = settlement.copies();
        if (copies.isEmpty()) {
            ack(d, callback);
            return;
        }
        if (copies.size() != 1) {
            throw new IllegalArgumentException("the Redis backend settles with at most one copy, got " + copies.size());
        }
        switch (copies.getFirst()) {
            case Settlement.Copy.ToHold hold -> hold(d, hold, callback);
            case Settlement.Copy.ToDeadLetter dead -> deadLetter(d, dead, callback);
            case Settlement.Copy.ToTopic reply ->
                throw new IllegalArgumentException(
                        "the Redis backend has no transactions: replies are published before the settlement");
        }
    }

    /** One delivery left the window; when half the window is free the reader is woken to refill it in one go. */
    private void freed() {
        refillWakeup.freed(outstanding.decrementAndGet());
    }

    private void ack(RedisDelivery d, @Nullable SettleCallback callback) {
        List<PendingAck> flush = null;
        synchronized (ackLock) {
            acks.add(new PendingAck(d, callback));
            if (acks.size() >= transport.config().ackBatch() || closing) {
                flush = takeAcks();
            } else if (ackTimer == null) {
                ackTimer = transport
                        .timer()
                        .schedule(
                                this::flushAcks, transport.config().ackLinger().toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        if (flush != null) {
            sendAcks(flush);
        }
    }

    private List<PendingAck> takeAcks() {
        List<PendingAck> out = acks;
        acks = new ArrayList<>();
        if (ackTimer != null) {
            ackTimer.cancel(false);
            ackTimer = null;
        }
        return out;
    }

    private void flushAcks() {
        List<PendingAck> flush;
        synchronized (ackLock) {
            ackTimer = null;
            if (acks.isEmpty()) {
                return;
            }
            flush = takeAcks();
        }
        sendAcks(flush);
    }

    /** One {@code XACK} per stream for the batch; callbacks once Redis answered. */
    private CompletableFuture<Void> sendAcks(List<PendingAck> batch) {
        Map<String, List<PendingAck>> byStream = new HashMap<>();
        for (PendingAck a : batch) {
            byStream.computeIfAbsent(a.delivery().stream, k -> new ArrayList<>())
                    .add(a);
        }
        List<CompletableFuture<Void>> all = new ArrayList<>(byStream.size());
        for (Map.Entry<String, List<PendingAck>> e : byStream.entrySet()) {
            List<PendingAck> list = e.getValue();
            String[] ids = new String[list.size()];
            List<String> waits = null;
            for (int i = 0; i < ids.length; i++) {
                RedisDelivery d = list.get(i).delivery();
                ids[i] = d.id;
                if (d.hasWait || sequenced && withWaits.contains(d.key())) {
                    if (waits == null) {
                        waits = new ArrayList<>();
                    }
                    waits.add(d.key());
                }
            }
            CompletableFuture<Void> done;
            try {
                done = redis.xack(e.getKey(), group, ids).toCompletableFuture().handle((n, error) -> {
                    for (PendingAck a : list) {
                        released(a.delivery(), error == null);
                        if (a.callback() != null) {
                            invoke(a.callback(), error == null ? null : settleFailure(a.delivery(), error));
                        }
                    }
                    return null;
                });
            } catch (RuntimeException ex) {
                for (PendingAck a : list) {
                    held.remove(a.delivery().key());
                    if (a.callback() != null) {
                        invoke(a.callback(), settleFailure(a.delivery(), ex));
                    }
                }
                done = CompletableFuture.completedFuture(null);
            }
            if (waits != null) {
                forgetWaits(waits);
            }
            all.add(done);
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    private void hold(RedisDelivery d, Settlement.Copy.ToHold hold, SettleCallback callback) {
        Map<String, byte[]> fields = RedisEntries.fields(hold.payload(), hold.headers());
        fields.put(RedisEntries.GROUP, groupBytes);
        long due = System.currentTimeMillis() + hold.delay().toMillis();
        String tier = transport.keys().hold(topic, topic.holdTiers().get(hold.tier()));
        String mainStream = transport.keys().main(topic);
        if (!d.stream.equals(mainStream)) {
            // a copy returns to the main stream: only deliveries of it are ever held
            invoke(
                    callback,
                    new ShoveException("entry " + d.deliveryId() + " of '" + d.queue()
                            + "' cannot be held: only the main stream of topic '" + topic.name() + "' has hold tiers"));
            return;
        }
        run(
                RedisScripts.HOLD,
                new String[] {d.stream, tier},
                d,
                callback,
                groupBytes,
                consumerBytes,
                ascii(d.id),
                ascii(Long.toString(due)),
                RedisEntries.member(fields));
    }

    private void deadLetter(RedisDelivery d, Settlement.Copy.ToDeadLetter dead, SettleCallback callback) {
        Map<String, byte[]> fields = RedisEntries.fields(dead.payload(), dead.headers());
        byte[][] trim = transport.trimArgs(topic);
        List<byte[]> args = new ArrayList<>();
        args.add(groupBytes);
        args.add(consumerBytes);
        args.add(ascii(d.id));
        args.add(trim[0]);
        args.add(trim[1]);
        args.addAll(RedisEntries.flatten(fields));
        run(
                RedisScripts.DEAD_LETTER,
                new String[] {d.stream, transport.keys().deadLetters(topic, dead.queue())},
                d,
                callback,
                args.toArray(byte[][]::new));
    }

    private void run(
            RedisScripts.Script script, String[] keys, RedisDelivery d, SettleCallback callback, byte[]... args) {
        CompletableFuture<Long> result;
        try {
            result = script.run(redis, ScriptOutputType.INTEGER, keys, args);
        } catch (RuntimeException e) {
            held.remove(d.key());
            invoke(callback, settleFailure(d, e));
            return;
        }
        result.whenComplete((n, error) -> {
            released(d, error == null);
            if (error != null) {
                invoke(callback, settleFailure(d, error));
            } else if (n == null || n != 1) {
                invoke(
                        callback,
                        new ShoveException("entry " + d.deliveryId() + " of topic '" + request.queue()
                                + "' is no longer pending to consumer " + consumer
                                + " (reclaimed by another consumer, or acknowledged); its copy was not written"));
            } else {
                if (d.hasWait || sequenced && withWaits.contains(d.key())) {
                    forgetWaits(List.of(d.key()));
                }
                invoke(callback, null);
            }
        });
    }

    /**
     * Returns an entry. While this consumer goes on reading its stream (a refused move gave it back), the entry is read
     * again from this consumer's own pending entries, before anything newer, so the order is kept. A consumer that
     * is stopping leaves it: a sequenced shard's next owner claims it with the shard; an unsequenced entry is made
     * idle at once, so that the next claim by any consumer of the group takes it.
     */
    private void giveBack(RedisDelivery d, SettleCallback callback) {
        held.remove(d.key());
        Stream s = streams.get(d.stream);
        if (s != null && !paused && !closing && !s.releasing) {
            s.history = "0";
            wake();
            invoke(callback, null);
            return;
        }
        if (sequenced) {
            invoke(callback, null);
            return;
        }
        makeIdle(d.stream, List.of(d.id)).whenComplete((v, error) -> invoke(callback, null));
    }

    /**
     * A delivery is no longer this consumer's to renew: its settlement reached Redis ({@code settled}) or failed. A
     * settled entry is noted first for a read of own pending entries that may be in flight, so that the read, answered
     * before the settlement, does not hand it out again once it is no longer held.
     */
    private void released(RedisDelivery d, boolean settled) {
        if (settled && rereading) {
            settledWhileRereading.add(d.key());
        }
        held.remove(d.key());
    }

    /** Makes entries of this consumer idle for long, so that any consumer's next {@code XAUTOCLAIM} takes them. */
    private CompletableFuture<Void> makeIdle(String stream, List<String> ids) {
        if (ids.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            return redis.xclaim(
                            stream,
                            Consumer.from(group, consumer),
                            new XClaimArgs().minIdleTime(0).idle(RETURNED_IDLE).justid(),
                            ids.toArray(String[]::new))
                    .toCompletableFuture()
                    .handle((r, error) -> {
                        if (error != null) {
                            log.debug("could not hand back {} entries of {}: {}", ids.size(), stream, error.toString());
                        }
                        return null;
                    });
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Keeps a sequenced retry's count and due time beside its pending entry, so that whoever reads the entry next, after
     * a restart or a shard hand-over, goes on from there.
     */
    @Override
    public void waiting(Delivery delivery, int retryCount, long notBeforeEpochMs) {
        if (!sequenced || !(delivery instanceof RedisDelivery d) || d.owner != this) {
            return;
        }
        try {
            redis.hset(transport.keys().waits(topic, group), d.key(), ascii(retryCount + ":" + notBeforeEpochMs))
                    .whenComplete((r, error) -> {
                        if (error != null) {
                            log.debug("could not store the wait of {}: {}", d.deliveryId(), error.toString());
                        }
                    });
            markWait(d);
        } catch (RuntimeException e) {
            log.debug("could not store the wait of {}: {}", d.deliveryId(), e.toString());
        }
    }

    /** Entries whose waits were stored: forgotten when they settle. */
    private final Set<String> withWaits = ConcurrentHashMap.newKeySet();

    private void markWait(RedisDelivery d) {
        withWaits.add(d.key());
    }

    private void forgetWaits(Collection<String> entryKeys) {
        try {
            redis.hdel(transport.keys().waits(topic, group), entryKeys.toArray(String[]::new));
        } catch (RuntimeException e) {
            log.debug("could not forget waits: {}", e.toString());
        }
        withWaits.removeAll(entryKeys);
    }

    // ---------------------------------------------------------------- seek

    @Override
    public void seek(Position position, List<Delivery> abandoned) {
        if (closing || paused) {
            throw new IllegalStateException("consumer " + request.consumerId() + " of topic '" + request.queue()
                    + "' is stopping and cannot move");
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        List<Delivery> dropped = List.copyOf(abandoned);
        tasks.add(() -> {
            try {
                moveTo(position, dropped);
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        wake();
        try {
            done.get(transport.config().responseTimeout().toMillis() * 3 + 5_000, TimeUnit.MILLISECONDS);
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
                    "consumer " + request.consumerId() + " of topic '" + request.queue() + "' did not move in time", e);
        }
    }

    /** Carries out a move on the reader thread (see {@link Subscription#seek}). */
    private void moveTo(Position position, List<Delivery> abandoned) {
        List<Stream> targets = new ArrayList<>();
        if (position instanceof Position.Captured captured) {
            for (Stream s : streams.values()) {
                if (s.queue.equals(captured.queue()) && !s.releasing) {
                    targets.add(s);
                }
            }
            if (targets.isEmpty()) {
                throw new IllegalArgumentException("position " + captured + " is not in a stream of topic '"
                        + request.queue() + "' read by consumer " + request.consumerId());
            }
        } else {
            for (Stream s : streams.values()) {
                if (!s.releasing) {
                    targets.add(s);
                }
            }
        }
        Map<String, String> ids = new HashMap<>();
        for (Stream s : targets) {
            ids.put(s.key, lastDeliveredFor(s.key, position)); // throws before anything moved
        }
        Set<String> moved = new HashSet<>();
        targets.forEach(s -> moved.add(s.key));
        // What the engine dropped, and what was handed out after it did: forgotten, and acknowledged, so that
        // nobody reclaims it; entries at or after the new position are read again from there.
        List<RedisDelivery> drop = new ArrayList<>();
        for (Delivery d : abandoned) {
            if (d instanceof RedisDelivery rd && rd.owner == this) {
                outstanding.decrementAndGet();
                drop.add(rd);
            }
        }
        for (Delivery d :
                sink.withdraw(d -> d instanceof RedisDelivery rd && rd.owner == this && moved.contains(rd.stream))) {
            outstanding.decrementAndGet();
            drop.add((RedisDelivery) d);
        }
        backlog.removeIf(d -> {
            if (moved.contains(d.stream)) {
                drop.add(d);
                return true;
            }
            return false;
        });
        // Settled entries whose XACK is still lingering: sent now, so that none of them acknowledges an entry
        // delivered again after the move.
        List<PendingAck> lingering;
        synchronized (ackLock) {
            lingering = takeAcks();
        }
        try {
            sendAcks(lingering).get(transport.config().responseTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new ShoveException(
                    "consumer " + request.consumerId() + " cannot move: its acknowledgements failed ("
                            + RedisTransport.rootMessage(e) + ")",
                    e);
        }
        Map<String, List<String>> byStream = new HashMap<>();
        for (RedisDelivery d : drop) {
            held.remove(d.key());
            byStream.computeIfAbsent(d.stream, k -> new ArrayList<>()).add(d.id);
        }
        for (Map.Entry<String, List<String>> e : byStream.entrySet()) {
            transport.await(
                    redis.xack(e.getKey(), group, e.getValue().toArray(String[]::new))
                            .toCompletableFuture(),
                    "acknowledge entries skipped by a move");
        }
        for (Stream s : targets) {
            transport.await(
                    redis.xgroupSetid(XReadArgs.StreamOffset.from(s.key, ids.get(s.key)), group)
                            .toCompletableFuture(),
                    "move consumer group '" + group + "'");
            s.history = null;
        }
        log.info(
                "consumer {} of topic '{}' moved to {} (outstanding {}, dropped {}, held {})",
                request.consumerId(),
                request.queue(),
                position,
                outstanding.get(),
                drop.size(),
                held.size());
    }

    /** Moves the group on {@code key} to {@code position} (a start position). */
    private void setId(String key, Position position) {
        String id = lastDeliveredFor(key, position);
        transport.await(
                redis.xgroupSetid(XReadArgs.StreamOffset.from(key, id), group).toCompletableFuture(),
                "move consumer group '" + group + "'");
    }

    /**
     * The last-delivered id that makes {@code position} the next entry of the group on {@code key}.
     *
     * @throws IllegalArgumentException when the position is not in the stream (trimmed, or beyond its end)
     */
    private String lastDeliveredFor(String key, Position position) {
        return switch (position) {
            case Position.Start s -> "0-0";
            case Position.End e -> "$";
            case Position.Timestamp t ->
                RedisEntries.before(Math.max(0, t.time().toEpochMilli()) + "-0");
            case Position.Sequence s ->
                RedisEntries.before(checkInStream(key, RedisEntries.idOf(s.sequence()), position));
            case Position.Captured c ->
                RedisEntries.before(checkInStream(key, RedisEntries.idOf(c.offset()), position));
        };
    }

    private String checkInStream(String key, String id, Position position) {
        List<StreamMessage<String, byte[]>> first = transport.await(
                redis.xrange(key, Range.create("-", "+"), Limit.create(0, 1)).toCompletableFuture(),
                "read the first entry of " + key);
        List<StreamMessage<String, byte[]>> last = transport.await(
                redis.xrevrange(key, Range.create("-", "+"), Limit.create(0, 1)).toCompletableFuture(),
                "read the last entry of " + key);
        if (first.isEmpty()
                || RedisEntries.compare(id, first.getFirst().getId()) < 0
                || RedisEntries.compare(id, last.getFirst().getId()) > 0) {
            throw new IllegalArgumentException("position " + position + " (entry " + id + ") is not in stream " + key
                    + ", which holds "
                    + (first.isEmpty()
                            ? "no entries"
                            : "entries " + first.getFirst().getId() + " to "
                                    + last.getFirst().getId()));
        }
        return id;
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void close() {
        if (closing) {
            awaitFinished();
            return;
        }
        paused = true;
        closing = true;
        wake();
        awaitFinished();
        transport.closed(this, main ? topic : null);
    }

    private void awaitFinished() {
        if (Thread.currentThread() == thread || !thread.isAlive() && finished.getCount() > 0 && reader == null) {
            return;
        }
        try {
            long wait = transport.config().responseTimeout().toMillis() * 2 + 5_000;
            if (!finished.await(wait, TimeUnit.MILLISECONDS)) {
                log.warn(
                        "consumer {} of topic '{}' did not stop within {} ms",
                        request.consumerId(),
                        request.queue(),
                        wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Wakes the reader: out of a park, or out of a blocking read. */
    private void wake() {
        LockSupport.unpark(thread);
        RedisConnector.Reader r = reader;
        if (reading && r != null) {
            transport.connector().unblock(r);
        }
    }

    // ---------------------------------------------------------------- reader thread

    private void run() {
        try {
            while (!closing) {
                runTasks();
                maintain();
                if (paused) {
                    park(PARK_NANOS);
                    continue;
                }
                deliverBacklog();
                int room = window - outstanding.get();
                List<Stream> readable = readable();
                if (room < refill || !backlog.isEmpty() || readable.isEmpty()) {
                    park(PARK_NANOS);
                    continue;
                }
                // A whole window at a time: what does not fit waits in the backlog (held, so renewed) and goes out
                // as settlements make room, so the window stays full without a round trip per freed slot.
                read(readable, window);
            }
        } catch (Throwable t) {
            if (!closing) {
                log.error(
                        "consumer {} of topic '{}' failed: {}", request.consumerId(), request.queue(), t.toString(), t);
                closing = true;
                sink.failed(new ShoveException(
                        "Redis consumer " + request.consumerId() + " of topic '" + request.queue() + "' failed: " + t,
                        t));
            }
        } finally {
            shutdown();
        }
    }

    private void park(long nanos) {
        if (tasks.isEmpty() && !closing) {
            LockSupport.parkNanos(this, nanos);
        }
    }

    private void runTasks() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            task.run();
        }
    }

    private List<Stream> readable() {
        List<Stream> out = new ArrayList<>(streams.size());
        for (Stream s : streams.values()) {
            if (!s.releasing) {
                out.add(s);
            }
        }
        return out;
    }

    /** One {@code XREADGROUP}: own history where asked, new entries elsewhere (blocking when all are new). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void read(List<Stream> readable, int room) {
        boolean history = false;
        XReadArgs.StreamOffset<String>[] offsets = new XReadArgs.StreamOffset[readable.size()];
        for (int i = 0; i < offsets.length; i++) {
            Stream s = readable.get(i);
            String h = s.history;
            history |= h != null;
            offsets[i] = h != null ? XReadArgs.StreamOffset.from(s.key, h) : XReadArgs.StreamOffset.lastConsumed(s.key);
        }
        XReadArgs args = XReadArgs.Builder.count(room);
        if (!history) {
            args.block(blockMillis());
        }
        RedisConnector.Reader r = reader;
        List<StreamMessage<String, byte[]>> messages;
        try {
            if (r == null) {
                r = transport.connector().openReader(readable.getFirst().key);
                reader = r;
            }
            reading = true;
            if (!tasks.isEmpty() || closing || paused) {
                return;
            }
            if (history) {
                startRereading();
            }
            messages = r.connection().sync().xreadgroup(Consumer.from(group, consumer), args, offsets);
            failures = 0;
        } catch (RuntimeException e) {
            reading = false;
            rereading = false;
            readFailed(e, r);
            return;
        } finally {
            reading = false;
        }
        if (messages == null || messages.isEmpty()) {
            rereading = false;
            if (history) {
                for (Stream s : readable) {
                    s.history = null;
                }
            }
            return;
        }
        Map<String, Integer> perStream = new HashMap<>();
        Map<String, String> lastId = new HashMap<>();
        for (StreamMessage<String, byte[]> m : messages) {
            perStream.merge(m.getStream(), 1, Integer::sum);
            lastId.put(m.getStream(), m.getId());
        }
        for (Stream s : readable) {
            if (s.history != null) {
                s.history = perStream.containsKey(s.key) ? lastId.get(s.key) : null;
            }
        }
        admit(messages, history);
        rereading = false;
    }

    /** Before a read of own pending entries (or a claim, which may return them too): see {@link #released}. */
    private void startRereading() {
        settledWhileRereading.clear();
        rereading = true;
    }

    /**
     * How long a blocking read may wait: the block timeout, but never past the next renewal, claim or lease round, so
     * that an idle consumer still renews what it holds in time.
     */
    private long blockMillis() {
        long now = System.nanoTime();
        long next = nextRenewNanos;
        if (sequenced) {
            next = Math.min(next, nextLeaseNanos);
        } else {
            next = Math.min(next, nextClaimNanos);
        }
        long untilNext = TimeUnit.NANOSECONDS.toMillis(next - now);
        return Math.max(10, Math.min(transport.config().blockTimeout().toMillis(), untilNext));
    }

    private void readFailed(RuntimeException e, RedisConnector.@Nullable Reader r) {
        if (closing) {
            return;
        }
        String message = String.valueOf(e.getMessage());
        if (message.contains("UNBLOCKED") || paused) {
            return; // woken on purpose
        }
        failures++;
        transport.context().backendError("redis", "read");
        if (message.startsWith("NOGROUP")) {
            log.warn(
                    "the consumer group '{}' of topic '{}' is gone ({}); creating it again from the start of the stream",
                    group,
                    request.queue(),
                    message);
            for (Stream s : streams.values()) {
                try {
                    transport.ensureGroup(topic, s.key, group);
                } catch (RuntimeException ex) {
                    log.debug("could not create group '{}' on {}: {}", group, s.key, ex.toString());
                }
            }
        } else if (failures == 1 || failures % 50 == 0) {
            log.warn(
                    "consumer {} of topic '{}' cannot read from Redis ({}); retrying",
                    request.consumerId(),
                    request.queue(),
                    RedisTransport.rootMessage(e));
        }
        if (message.startsWith("MOVED")
                || message.startsWith("ASK")
                || e instanceof RedisCommandExecutionException == false) {
            if (r != null && message.startsWith("MOVED")) {
                transport.connector().refreshTopology();
                reader = null;
                r.close();
            }
        }
        // A reply may have been lost with the connection: read this consumer's own pending entries again.
        for (Stream s : streams.values()) {
            if (!s.releasing) {
                s.history = "0";
            }
        }
        park(TimeUnit.MILLISECONDS.toNanos(Math.min(2_000, 100L * failures)));
    }

    /**
     * Takes entries read (or claimed) into the backlog and hands them out: skips those still held (own history),
     * acknowledges retries addressed to another group, and looks up counts and stored waits for redeliveries.
     */
    private void admit(List<StreamMessage<String, byte[]>> messages, boolean redeliveries) {
        Map<String, Map<String, Long>> counts = redeliveries ? pendingCounts(messages) : Map.of();
        Map<String, String> waits = redeliveries && sequenced ? storedWaits(messages) : Map.of();
        List<RedisDelivery> foreign = new ArrayList<>();
        for (StreamMessage<String, byte[]> m : messages) {
            Stream s = streams.get(m.getStream());
            if (s == null || s.releasing) {
                continue;
            }
            String entryKey = m.getStream() + " " + m.getId();
            if (redeliveries && (held.containsKey(entryKey) || settledWhileRereading.contains(entryKey))) {
                log.debug("skipping {}: still held, or settled while it was read", entryKey);
                continue;
            }
            Map<String, byte[]> body = m.getBody();
            if (body == null || body.isEmpty()) {
                // trimmed or deleted while pending: nothing to deliver
                RedisDelivery gone =
                        new RedisDelivery(this, m.getStream(), s.queue, m.getId(), new byte[0], Map.of(), 1, false);
                held.put(entryKey, gone);
                foreign.add(gone);
                continue;
            }
            RedisEntries.Message message = RedisEntries.read(body);
            Map<String, String> headers = message.headers();
            String wait = waits.get(entryKey);
            if (wait != null) {
                int colon = wait.indexOf(':');
                Map<String, String> withWait = new HashMap<>(headers);
                withWait.put(ShoveHeaders.RETRY_COUNT, wait.substring(0, colon));
                withWait.put(ShoveHeaders.NOT_BEFORE, wait.substring(colon + 1));
                headers = Map.copyOf(withWait);
            }
            long count =
                    redeliveries ? counts.getOrDefault(m.getStream(), Map.of()).getOrDefault(m.getId(), 2L) : 1L;
            RedisDelivery d = new RedisDelivery(
                    this,
                    m.getStream(),
                    s.queue,
                    m.getId(),
                    message.payload(),
                    headers,
                    (int) Math.min(Integer.MAX_VALUE, Math.max(1, count)),
                    wait != null || withWaits.contains(entryKey));
            held.put(entryKey, d);
            if (message.group() != null && !message.group().equals(group)) {
                foreign.add(d); // a retry of another consumer group of this topic
            } else {
                backlog.addLast(d);
            }
        }
        for (RedisDelivery d : foreign) {
            ack(d, null);
        }
        deliverBacklog();
    }

    /** The delivery counts of redelivered entries ({@code XPENDING} over their range). */
    private Map<String, Map<String, Long>> pendingCounts(List<StreamMessage<String, byte[]>> messages) {
        Map<String, List<String>> ids = new LinkedHashMap<>();
        for (StreamMessage<String, byte[]> m : messages) {
            ids.computeIfAbsent(m.getStream(), k -> new ArrayList<>()).add(m.getId());
        }
        Map<String, Map<String, Long>> out = new HashMap<>();
        for (Map.Entry<String, List<String>> e : ids.entrySet()) {
            List<String> list = e.getValue();
            try {
                List<PendingMessage> pending = transport.await(
                        redis.xpending(
                                        e.getKey(),
                                        Consumer.from(group, consumer),
                                        Range.create(list.getFirst(), list.getLast()),
                                        Limit.create(0, list.size() * 2L + 10))
                                .toCompletableFuture(),
                        "read delivery counts");
                Map<String, Long> counts = new HashMap<>();
                for (PendingMessage p : pending) {
                    counts.put(p.getId(), p.getRedeliveryCount());
                }
                out.put(e.getKey(), counts);
            } catch (RuntimeException ex) {
                log.debug("could not read delivery counts of {}: {}", e.getKey(), ex.toString());
            }
        }
        return out;
    }

    /** The sequenced retries waiting in place stored for these entries. */
    private Map<String, String> storedWaits(List<StreamMessage<String, byte[]>> messages) {
        String[] fields = new String[messages.size()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = messages.get(i).getStream() + " " + messages.get(i).getId();
        }
        try {
            var values = transport.await(
                    redis.hmget(transport.keys().waits(topic, group), fields).toCompletableFuture(),
                    "read stored retry waits");
            Map<String, String> out = new HashMap<>();
            for (var kv : values) {
                if (kv.hasValue()) {
                    out.put(kv.getKey(), new String(kv.getValue(), StandardCharsets.UTF_8));
                }
            }
            return out;
        } catch (RuntimeException e) {
            log.warn(
                    "consumer {} of topic '{}' could not read stored retry waits: {}; those retries start again from"
                            + " their published retry count",
                    request.consumerId(),
                    request.queue(),
                    e.toString());
            return Map.of();
        }
    }

    /** Hands backlog entries to the engine while the window has room. */
    private void deliverBacklog() {
        if (backlog.isEmpty() || paused) {
            return;
        }
        int room = window - outstanding.get();
        if (room <= 0) {
            return;
        }
        List<Delivery> batch = new ArrayList<>(Math.min(room, backlog.size()));
        while (room > 0 && !backlog.isEmpty()) {
            batch.add(backlog.pollFirst());
            room--;
        }
        outstanding.addAndGet(batch.size());
        sink.deliverAll(batch);
    }

    /** Renewals, claims of idle entries, and (sequenced) shard leases, each when due. */
    private void maintain() {
        long now = System.nanoTime();
        if (sequenced && now >= nextLeaseNanos) {
            nextLeaseNanos = now + transport.config().shardLease().toNanos() / 3;
            try {
                coordinateShards();
            } catch (RuntimeException e) {
                log.warn(
                        "consumer {} of topic '{}' could not coordinate its shards: {}",
                        request.consumerId(),
                        request.queue(),
                        RedisTransport.rootMessage(e));
            }
        }
        if (sequenced) {
            finishReleases();
        }
        if (now >= nextRenewNanos) {
            nextRenewNanos = now + transport.config().leaseRenewal().toNanos();
            renewHeld();
        }
        if (!sequenced && !paused && now >= nextClaimNanos) {
            long interval = Math.clamp(claimIdle.toMillis() / 4, 1_000, 10_000);
            nextClaimNanos = now + TimeUnit.MILLISECONDS.toNanos(interval);
            claimIdleEntries();
        }
    }

    private void renewHeld() {
        Map<String, List<String>> byStream = new HashMap<>();
        for (RedisDelivery d : held.values()) {
            byStream.computeIfAbsent(d.stream, k -> new ArrayList<>()).add(d.id);
        }
        for (Map.Entry<String, List<String>> e : byStream.entrySet()) {
            List<byte[]> args = new ArrayList<>();
            args.add(groupBytes);
            args.add(consumerBytes);
            e.getValue().forEach(id -> args.add(ascii(id)));
            try {
                RedisScripts.RENEW
                        .<List<Object>>run(
                                redis, ScriptOutputType.MULTI, new String[] {e.getKey()}, args.toArray(byte[][]::new))
                        .whenComplete((lost, error) -> {
                            if (error != null) {
                                log.debug("renewing entries of {} failed: {}", e.getKey(), error.toString());
                            } else if (lost != null && !lost.isEmpty()) {
                                log.debug(
                                        "consumer {} no longer holds {} entries of {}",
                                        consumer,
                                        lost.size(),
                                        e.getKey());
                            }
                        });
            } catch (RuntimeException ex) {
                log.debug("renewing entries of {} failed: {}", e.getKey(), ex.toString());
            }
        }
    }

    /** Takes over entries that another consumer (or this one) left pending longer than the claim time. */
    private void claimIdleEntries() {
        int room = window - outstanding.get() - backlog.size();
        if (room <= 0) {
            nextClaimNanos = System.nanoTime(); // try again as soon as there is room
            return;
        }
        for (Stream s : streams.values()) {
            try {
                startRereading();
                ClaimedMessages<String, byte[]> claimed = transport.await(
                        redis.xautoclaim(
                                        s.key,
                                        new XAutoClaimArgs<String>()
                                                .consumer(Consumer.from(group, consumer))
                                                .minIdleTime(claimIdle)
                                                .startId("0-0")
                                                .count(room))
                                .toCompletableFuture(),
                        "claim idle entries");
                List<StreamMessage<String, byte[]>> messages = claimed.getMessages();
                if (!messages.isEmpty()) {
                    log.debug("consumer {} claimed {} idle entries of {}", consumer, messages.size(), s.key);
                    admit(messages, true);
                }
            } catch (RuntimeException e) {
                if (!closing) {
                    log.debug("claiming idle entries of {} failed: {}", s.key, e.toString());
                }
            } finally {
                rereading = false;
            }
        }
    }

    // ---------------------------------------------------------------- shard leases (sequenced)

    private void coordinateShards() {
        if (paused) {
            return;
        }
        long nowMs = System.currentTimeMillis();
        long ttl = transport.config().shardLease().toMillis();
        String members = transport.keys().members(topic, group);
        transport.await(redis.zadd(members, (double) nowMs, ascii(consumer)).toCompletableFuture(), "heartbeat");
        redis.pexpire(members, ttl * 10);
        redis.zremrangebyscore(members, Range.create(Double.NEGATIVE_INFINITY, (double) (nowMs - ttl)));
        List<byte[]> liveBytes = transport.await(
                redis.zrangebyscore(members, Range.create((double) (nowMs - ttl), Double.POSITIVE_INFINITY))
                        .toCompletableFuture(),
                "read live consumers");
        List<String> live = new ArrayList<>();
        for (byte[] b : liveBytes) {
            live.add(new String(b, StandardCharsets.UTF_8));
        }
        if (!live.contains(consumer)) {
            live.add(consumer);
        }
        live.sort(null);
        int shards = topic.sequencing().orElseThrow().routingShards();
        Set<Integer> targets = new HashSet<>();
        for (int i = 0; i < shards; i++) {
            if (live.get(i % live.size()).equals(consumer)) {
                targets.add(i);
            }
        }
        // renew what is held; note what was lost
        for (Stream s : List.copyOf(streams.values())) {
            Long kept = transport.await(
                    RedisScripts.LEASE_RENEW.<Long>run(
                            redis,
                            ScriptOutputType.INTEGER,
                            new String[] {transport.keys().lease(topic, group, s.shard)},
                            consumerBytes,
                            ascii(Long.toString(ttl))),
                    "renew a shard lease");
            if (kept == null || kept != 1) {
                log.warn(
                        "consumer {} lost its lease on shard {} of topic '{}'; letting it go",
                        request.consumerId(),
                        s.shard,
                        topic.name());
                letGo(s, false);
            } else if (!targets.contains(s.shard) && !s.releasing) {
                letGo(s, true);
            }
        }
        for (int i : targets) {
            String key = transport.keys().shard(topic, i);
            if (streams.containsKey(key)) {
                continue;
            }
            String ok = transport.await(
                    redis.set(
                                    transport.keys().lease(topic, group, i),
                                    consumerBytes,
                                    SetArgs.Builder.nx().px(ttl))
                            .toCompletableFuture(),
                    "take a shard lease");
            if ("OK".equals(ok)) {
                takeOver(i, key);
            }
        }
    }

    /** A shard's lease is ours: claim every entry its previous owners left pending, then read them in order. */
    private void takeOver(int shard, String key) {
        String cursor = "0-0";
        int claimed = 0;
        do {
            ClaimedMessages<String, byte[]> batch = transport.await(
                    redis.xautoclaim(
                                    key,
                                    new XAutoClaimArgs<String>()
                                            .consumer(Consumer.from(group, consumer))
                                            .minIdleTime(0)
                                            .startId(cursor)
                                            .count(1000)
                                            .justid())
                            .toCompletableFuture(),
                    "claim the pending entries of shard " + shard);
            claimed += batch.getMessages().size();
            cursor = batch.getId();
        } while (cursor != null && !cursor.equals("0-0"));
        streams.put(key, new Stream(key, topic.shardName(shard), shard, "0"));
        log.debug(
                "consumer {} took shard {} of topic '{}' ({} pending entries taken over)",
                request.consumerId(),
                shard,
                topic.name(),
                claimed);
    }

    /**
     * Gives a shard up: unstarted entries are taken back from the engine (they stay pending; the next owner claims
     * them), and once nothing of the shard is held here the lease is released ({@code release}) or simply dropped.
     */
    private void letGo(Stream s, boolean release) {
        s.releasing = true;
        backlog.removeIf(d -> {
            if (d.stream.equals(s.key)) {
                held.remove(d.key());
                return true;
            }
            return false;
        });
        List<Delivery> withdrawn =
                sink.withdraw(d -> d instanceof RedisDelivery rd && rd.owner == this && rd.stream.equals(s.key));
        for (Delivery d : withdrawn) {
            outstanding.decrementAndGet();
            held.remove(((RedisDelivery) d).key());
        }
        if (!release) {
            streams.remove(s.key);
            for (RedisDelivery d : List.copyOf(held.values())) {
                if (d.stream.equals(s.key)) {
                    held.remove(d.key());
                }
            }
        }
    }

    private void finishReleases() {
        for (Stream s : List.copyOf(streams.values())) {
            if (!s.releasing) {
                continue;
            }
            boolean busy = false;
            for (RedisDelivery d : held.values()) {
                if (d.stream.equals(s.key)) {
                    busy = true;
                    break;
                }
            }
            if (!busy) {
                streams.remove(s.key);
                releaseLease(s.shard);
                log.debug("consumer {} gave shard {} of topic '{}' up", request.consumerId(), s.shard, topic.name());
            }
        }
    }

    private void releaseLease(int shard) {
        try {
            transport.await(
                    RedisScripts.LEASE_RELEASE.<Long>run(
                            redis,
                            ScriptOutputType.INTEGER,
                            new String[] {transport.keys().lease(topic, group, shard)},
                            consumerBytes),
                    "release a shard lease");
        } catch (RuntimeException e) {
            log.debug("could not release shard {} of '{}': {}", shard, topic.name(), e.toString());
        }
    }

    // ---------------------------------------------------------------- shutdown (reader thread)

    private void shutdown() {
        try {
            runTasks();
            List<PendingAck> last;
            synchronized (ackLock) {
                last = takeAcks();
            }
            try {
                sendAcks(last).get(transport.config().responseTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                log.debug("last acknowledgements of consumer {} failed: {}", consumer, e.toString());
            }
            // Entries read and never settled: the next consumer takes them at once.
            Map<String, List<String>> left = new HashMap<>();
            for (RedisDelivery d : held.values()) {
                left.computeIfAbsent(d.stream, k -> new ArrayList<>()).add(d.id);
            }
            backlog.clear();
            if (!sequenced) {
                for (Map.Entry<String, List<String>> e : left.entrySet()) {
                    try {
                        makeIdle(e.getKey(), e.getValue())
                                .get(transport.config().responseTimeout().toMillis(), TimeUnit.MILLISECONDS);
                    } catch (Exception ex) {
                        log.debug("could not hand back entries of {}: {}", e.getKey(), ex.toString());
                    }
                }
            }
            if (sequenced) {
                for (Stream s : List.copyOf(streams.values())) {
                    releaseLease(s.shard);
                }
                try {
                    redis.zrem(transport.keys().members(topic, group), ascii(consumer))
                            .get(transport.config().responseTimeout().toMillis(), TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    log.debug("could not leave the members of '{}': {}", topic.name(), e.toString());
                }
            }
            forgetConsumer();
        } finally {
            RedisConnector.Reader r = reader;
            reader = null;
            if (r != null) {
                r.close();
            }
            if (startCounted) {
                transport.startEnded(group, streamKeyOfRequest());
            }
            finished.countDown();
        }
    }

    /** Deletes this consumer from the group on every stream where it holds nothing (it never comes back). */
    private void forgetConsumer() {
        List<String> keys = main
                ? transport.keys().streams(topic)
                : List.of(transport.keys().deadLetters(topic, request.queue()));
        List<CompletableFuture<Long>> all = new ArrayList<>();
        for (String key : keys) {
            try {
                all.add(RedisScripts.FORGET_CONSUMER.run(
                        redis, ScriptOutputType.INTEGER, new String[] {key}, groupBytes, consumerBytes));
            } catch (RuntimeException e) {
                log.debug("could not forget consumer {} on {}: {}", consumer, key, e.toString());
            }
        }
        for (CompletableFuture<Long> f : all) {
            try {
                f.get(transport.config().responseTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                log.debug("could not forget consumer {}: {}", consumer, e.toString());
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private ShoveException settleFailure(RedisDelivery d, Throwable error) {
        return new ShoveException(
                "settling entry " + d.deliveryId() + " of topic '" + request.queue() + "' on Redis failed ("
                        + RedisTransport.rootMessage(error) + "); it stays pending and will be delivered again",
                error);
    }

    private void invoke(SettleCallback callback, @Nullable Throwable failure) {
        try {
            callback.settled(failure);
        } catch (RuntimeException e) {
            log.error("a settle callback of consumer {} threw", request.consumerId(), e);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "RedisSubscription[" + request.consumerId() + ", topic=" + request.queue() + ", group=" + group + "]";
    }
}
