package dev.shove.memory;

import dev.shove.BrokerUnavailableException;
import dev.shove.Position;
import dev.shove.PublishException;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.Capabilities;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process broker. Queues are bounded deques pushing to subscriptions that have window to spare; hold copies
 * wait on a timer and rejoin the queue they came from; the shards of a sequenced topic have a single active consumer
 * each. Pure transport: it carries out the engine's settlements and decides nothing.
 */
final class InMemoryTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(InMemoryTransport.class);

    /** Exact delays of up to a year: timers, so any duration works. */
    static final Duration MAX_DELAY = Duration.ofDays(365);

    private final Capabilities capabilities;
    private final int capacity;
    private final int retention;
    private final ConcurrentHashMap<String, MemBroadcast> broadcasts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, MemQueue> queues = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> topics = new ConcurrentHashMap<>();
    private final Set<String> deadLetterQueues = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timers;
    private final AtomicInteger pendingTimers = new AtomicInteger();
    /** Hold copies waiting on a timer, by the queue they rejoin. */
    private final ConcurrentHashMap<String, AtomicInteger> held = new ConcurrentHashMap<>();

    private final AtomicInteger subscriptionIds = new AtomicInteger();
    private volatile boolean closed;

    InMemoryTransport(InMemoryConfig config, TransportContext context) {
        this.capacity = config.capacity();
        this.retention = config.retention();
        Capabilities.Builder caps = Capabilities.builder()
                .exactDelays(MAX_DELAY)
                .deliveryCount()
                .redeliveryFlag()
                .timestamps()
                .competingConsumers()
                .transactions()
                .broadcast()
                .durableSequencedRetries();
        // A log is read in runs, handed over together: log mode batches natively (core gathers none).
        this.capabilities = (retention > 0 ? caps.seek().nativeBatches() : caps).build();
        this.timers = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .daemon()
                .name("shove-memory-timer-" + context.clientName())
                .factory());
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public void declare(Topic<?> topic) {
        checkOpen();
        String shape = shape(topic);
        String existing = topics.putIfAbsent(topic.name(), shape);
        if (existing != null && !existing.equals(shape)) {
            throw new TopologyException("topic '%s' is already declared as %s; it cannot be redeclared as %s"
                    .formatted(topic.name(), existing, shape));
        }
        if (topic.isBroadcast()) {
            broadcasts.computeIfAbsent(topic.name(), n -> new MemBroadcast(capacity));
            return;
        }
        topic.sequencing()
                .ifPresentOrElse(
                        s -> {
                            for (int i = 0; i < s.routingShards(); i++) {
                                queue(topic.shardName(i), true);
                            }
                        },
                        () -> queue(topic.name(), false));
        topic.dlq().ifPresent(dlq -> {
            queue(dlq, false);
            deadLetterQueues.add(dlq);
        });
    }

    private static String shape(Topic<?> topic) {
        if (topic.isBroadcast()) {
            return "broadcast";
        }
        return topic.sequencing()
                        .map(s -> "sequenced(" + s.routingShards() + " shards)")
                        .orElse("unsequenced")
                + ", dlq " + topic.dlq().orElse("none");
    }

    private MemQueue queue(String name, boolean exclusive) {
        MemQueue q = queues.computeIfAbsent(name, n -> new MemQueue(n, capacity, retention, exclusive));
        if (q.exclusive != exclusive) {
            throw new TopologyException(
                    "queue '%s' already exists as a %s queue".formatted(name, q.exclusive ? "shard" : "plain"));
        }
        return q;
    }

    MemQueue existing(String name) {
        MemQueue q = queues.get(name);
        if (q == null) {
            throw new TopologyException(
                    "queue '%s' is not declared on the in-memory broker; declare its topic first with".formatted(name)
                            + " broker.topology().declare(topic)");
        }
        return q;
    }

    @Override
    public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
        try {
            checkOpen();
            MemMessage m = new MemMessage(message.payload(), message.headers(), System.currentTimeMillis());
            if (topic.isBroadcast()) {
                broadcast(topic).publish(m);
            } else {
                existing(target(topic, message)).put(m, false);
            }
            return CompletableFuture.completedFuture(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(new PublishException(
                    "interrupted while waiting for room in queue of topic '" + topic.name() + "'", e));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A batch for one plain queue goes in under one lock per chunk ({@link MemQueue#putAll}) and shares one completed
     * future; a broadcast or sequenced topic publishes message by message.
     */
    @Override
    public List<CompletableFuture<Void>> publishAll(Topic<?> topic, List<OutboundMessage> messages) {
        if (topic.isBroadcast() || topic.isSequenced()) {
            return Transport.super.publishAll(topic, messages);
        }
        MemQueue queue;
        try {
            checkOpen();
            queue = existing(topic.name());
        } catch (RuntimeException e) {
            return Collections.nCopies(messages.size(), CompletableFuture.failedFuture(e));
        }
        List<MemMessage> batch = new ArrayList<>(messages.size());
        for (OutboundMessage m : messages) {
            batch.add(new MemMessage(m.payload(), m.headers(), System.currentTimeMillis()));
        }
        int done = queue.putAll(batch);
        CompletableFuture<Void> accepted = CompletableFuture.completedFuture(null);
        if (done == messages.size()) {
            return Collections.nCopies(done, accepted);
        }
        PublishException failure = Thread.currentThread().isInterrupted()
                ? new PublishException(
                        "interrupted while waiting for room in queue of topic '" + topic.name() + "'", null)
                : new PublishException(
                        "the in-memory broker closed while publishing to queue '" + topic.name() + "'", null, false);
        List<CompletableFuture<Void>> results = new ArrayList<>(messages.size());
        results.addAll(Collections.nCopies(done, accepted));
        results.addAll(Collections.nCopies(messages.size() - done, CompletableFuture.failedFuture(failure)));
        return results;
    }

    private static String target(Topic<?> topic, OutboundMessage message) {
        return message.shard() >= 0 ? topic.shardName(message.shard()) : topic.name();
    }

    private MemBroadcast broadcast(Topic<?> topic) {
        MemBroadcast b = broadcasts.get(topic.name());
        if (b == null) {
            throw new TopologyException(
                    "broadcast topic '%s' is not declared on the in-memory broker; declare it".formatted(topic.name())
                            + " first with broker.topology().declare(topic)");
        }
        return b;
    }

    /** Publishes a reply that travels in a settlement; never refused for capacity. */
    void publishCopy(Topic<?> topic, OutboundMessage message) {
        MemMessage m = new MemMessage(message.payload(), message.headers(), System.currentTimeMillis());
        try {
            if (topic.isBroadcast()) {
                broadcast(topic).publish(m);
            } else {
                existing(target(topic, message)).put(m, true);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("interrupted while publishing a reply to '" + topic.name() + "'", e);
        }
    }

    @Override
    public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
        checkOpen();
        Topic<?> topic = request.topic();
        if (topic.isBroadcast()) {
            return subscribeBroadcast(request, sink);
        }
        List<MemQueue> sources = new ArrayList<>();
        if (request.source() == SubscriptionRequest.Source.DEAD_LETTER) {
            sources.add(existing(request.queue()));
        } else if (topic.isSequenced()) {
            int shards = topic.sequencing().orElseThrow().routingShards();
            for (int i = 0; i < shards; i++) {
                sources.add(existing(topic.shardName(i)));
            }
        } else {
            sources.add(existing(topic.name()));
        }
        MemSubscription subscription = new MemSubscription(
                this, subscriptionIds.incrementAndGet(), sources, request.group(), sink, request.window(), () -> {});
        subscription.attach(request.startAt());
        return subscription;
    }

    private Subscription subscribeBroadcast(SubscriptionRequest request, DeliverySink sink) {
        MemBroadcast broadcast = broadcast(request.topic());
        int id = subscriptionIds.incrementAndGet();
        MemQueue own = new MemQueue(request.topic().name() + "#" + id, capacity, 0, false);
        MemSubscription subscription = new MemSubscription(
                this, id, List.of(own), request.group(), sink, request.window(), () -> broadcast.unsubscribe(own));
        Position start = request.startAt() != null ? request.startAt() : Position.end();
        try {
            broadcast.subscribe(own, start);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while subscribing to " + request.topic(), e);
        }
        subscription.attach(null);
        return subscription;
    }

    /** Publishes a retry or dead-letter copy; never refused for capacity. */
    void putCopy(String queue, byte[] payload, Map<String, String> headers) {
        try {
            existing(queue).put(new MemMessage(payload, headers, System.currentTimeMillis()), true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("interrupted while publishing a copy to '" + queue + "'", e);
        }
    }

    /** Puts a hold copy back on its queue after {@code delay}. */
    void hold(String queue, Settlement.Copy.ToHold copy) {
        existing(queue); // fail now, not when the timer fires
        pendingTimers.incrementAndGet();
        AtomicInteger heldHere = held.computeIfAbsent(queue, q -> new AtomicInteger());
        heldHere.incrementAndGet();
        try {
            timers.schedule(
                    () -> {
                        try {
                            if (!closed) {
                                putCopy(queue, copy.payload(), copy.headers());
                            }
                        } catch (RuntimeException e) {
                            log.warn("a held message for queue '{}' was lost: {}", queue, e.toString());
                        } finally {
                            heldHere.decrementAndGet();
                            pendingTimers.decrementAndGet();
                        }
                    },
                    copy.delay().toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            heldHere.decrementAndGet();
            pendingTimers.decrementAndGet();
            throw new PublishException("the in-memory broker is closed; cannot hold a copy for '" + queue + "'", e);
        }
    }

    @Override
    public DeadLetterStore deadLetters(Topic<?> topic, String group) {
        checkOpen();
        return new MemDeadLetters(existing(topic.dlq().orElseThrow()), group);
    }

    @Override
    public QueueStats stats(Topic<?> topic) {
        if (topic.isBroadcast()) {
            return new QueueStats(0, 0);
        }
        long ready = 0;
        long inFlight = 0;
        long holding = 0;
        List<String> names = new ArrayList<>();
        topic.sequencing()
                .ifPresentOrElse(
                        s -> {
                            for (int i = 0; i < s.routingShards(); i++) {
                                names.add(topic.shardName(i));
                            }
                        },
                        () -> names.add(topic.name()));
        for (String name : names) {
            MemQueue q = existing(name);
            ready += q.depth();
            inFlight += q.inFlight();
            AtomicInteger h = held.get(name);
            holding += h == null ? 0 : h.get();
        }
        return new QueueStats(ready, inFlight, holding);
    }

    /** Messages waiting in a queue (not delivered), for the probe. */
    int depth(String queue) {
        return existing(queue).depth();
    }

    /** A snapshot of the messages waiting in a queue, oldest first, for the probe. */
    List<MemMessage> peek(String queue) {
        return existing(queue).snapshot();
    }

    /**
     * Whether nothing is in motion: no delivery unsettled, nothing waiting on a timer, nothing queued except dead
     * letters (which stay until somebody reads them).
     */
    boolean isIdle() {
        if (pendingTimers.get() > 0) {
            return false;
        }
        for (MemQueue q : queues.values()) {
            if (q.inFlight() > 0 || (q.depth() > 0 && !deadLetterQueues.contains(q.name))) {
                return false;
            }
        }
        for (MemBroadcast b : broadcasts.values()) {
            for (MemQueue q : b.queues()) {
                if (q.depth() > 0 || q.inFlight() > 0) {
                    return false;
                }
            }
        }
        return true;
    }

    int pendingTimers() {
        return pendingTimers.get();
    }

    @Override
    public void ping(Duration timeout) {
        checkOpen();
    }

    private void checkOpen() {
        if (closed) {
            throw new BrokerUnavailableException("the in-memory broker is closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (MemQueue q : queues.values()) {
            q.close();
        }
        int dropped = pendingTimers.get();
        timers.shutdownNow();
        if (dropped > 0) {
            log.warn("in-memory broker closed with {} held message(s) still waiting; they are gone", dropped);
        }
    }
}
