package dev.shove.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.recovery.AutorecoveringChannel;
import com.rabbitmq.client.impl.recovery.RecoveryAwareChannelN;
import dev.shove.BrokerUnavailableException;
import dev.shove.Position;
import dev.shove.ShoveException;
import dev.shove.TopologyException;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer of a group: one AMQP channel consuming one queue (or every shard of a sequenced topic), with {@code
 * basic.qos} set to the request's window so that the broker never has more deliveries out than the engine allows.
 *
 * <p><b>Settlement.</b> {@link #settle} only queues: a flusher virtual thread writes what has queued up, waiting at
 * most {@link #ACK_LINGER} for a batch of half the window to form, and planning the frames with the {@link
 * AckLedger} (one multiple-ack for a contiguous run, single acks for the rest, nacks for returns). Callbacks run once
 * the frames are written. A settlement with copies publishes them first through the confirm-mode pool, and only when
 * the broker confirmed every copy is the acknowledgement queued; if a copy fails, the callback reports it and the
 * delivery is returned to the broker (after {@link #FAILED_COPY_RETURN_DELAY}, so a broken DLQ cannot turn into a
 * hot redelivery loop). In transactional mode the {@link TransactionalSettler} instead publishes the copies on this
 * channel, the flusher writes the acks, then the settler commits: copies and acks of one batch take effect together
 * or not at all.
 *
 * <p><b>Recovery.</b> When the connection drops, the broker requeues every unacknowledged delivery, and the client
 * recovers the channel and its consumers by itself. Delivery tags of the lost channel mean nothing on the new one, so
 * the subscription counts channel epochs: on shutdown it starts a new epoch, fails the settlements still queued,
 * takes back from the engine the deliveries of the old epoch that have not started, and refuses to settle old-epoch
 * deliveries later (their handlers may still be running). A delivery the client dispatches late from the old channel
 * is recognised by its tag (the recovering client shifts new tags past every old one) and dropped. A channel closed
 * by a broker error is not recovered: it is reported to the engine with the broker's reason and the queue.
 *
 * <p><b>Broadcast.</b> A subscription to a broadcast topic declares a queue of its own: server-named, exclusive to the
 * connection, auto-delete and not durable, bound to the topic's fanout exchange, so it receives every message
 * published while it is subscribed, and nothing earlier. The queue goes when the consumer is cancelled (pause, close),
 * when the channel closes, and with the connection; connection recovery declares a new one and binds it again before
 * the consumer resumes (see {@link RabbitMqTransport}). What it held, and what was published while there was none, is
 * lost: a broadcast is best effort. Settlement is the same as on any queue; a return requeues to the subscription's
 * own queue, which is deleted right after.
 */
final class RabbitSubscription implements Subscription {
    private static final Logger log = LoggerFactory.getLogger(RabbitSubscription.class);

    /** How long the flusher waits for more settlements before writing a partial batch. */
    static final Duration ACK_LINGER = Duration.ofMillis(1);

    /** How long a delivery whose copy failed stays unacknowledged before it is returned to the broker. */
    static final Duration FAILED_COPY_RETURN_DELAY = Duration.ofSeconds(1);

    /** How long {@link #close()} waits for queued settlements and copies in flight. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private static final SettleCallback NONE = failure -> {};

    /** One queue this subscription consumes; a broadcast queue gets a new name when recovery declares it again. */
    private static final class Source {
        final int shard;
        final String consumerTag;
        volatile String queue;

        Source(String queue, int shard, String consumerTag) {
            this.queue = queue;
            this.shard = shard;
            this.consumerTag = consumerTag;
        }
    }

    enum Kind {
        /** Acknowledge (copies, if any, are confirmed already). */
        ACK,
        /** Return for redelivery: basic.nack with requeue. */
        RETURN,
        /** Transactional mode: publish the copies, then ack or nack, in the batch's transaction. */
        TRANSACTION
    }

    /** One settlement queued for the flusher. */
    record Op(
            long tag,
            int epoch,
            Kind kind,
            @Nullable RabbitDelivery delivery,
            @Nullable Settlement settlement,
            SettleCallback callback,
            boolean afterCopies) {}

    private final RabbitMqTransport transport;
    private final SubscriptionRequest request;
    private final DeliverySink sink;
    private final Channel channel;
    private final @Nullable TransactionalSettler transaction;
    private final boolean broadcast;
    private final List<Source> sources;
    private final int batchSize;
    private final Thread flusher;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final AckLedger ledger = new AckLedger();
    private final ArrayDeque<Op> queued = new ArrayDeque<>();
    private long firstQueuedAt;
    private int writing;
    private int copiesInFlight;
    private int epoch;
    private long staleUpTo;
    private boolean paused;
    private boolean stopping;
    private boolean closed;

    private RabbitSubscription(
            RabbitMqTransport transport,
            SubscriptionRequest request,
            DeliverySink sink,
            Channel channel,
            boolean transactional,
            List<Source> sources) {
        this.transport = transport;
        this.request = request;
        this.sink = sink;
        this.channel = channel;
        this.transaction = transactional ? new TransactionalSettler(channel, transport, request) : null;
        this.broadcast = request.topic().isBroadcast();
        this.sources = sources;
        this.batchSize = Math.max(1, request.window() / 2);
        this.flusher = Thread.ofVirtual()
                .name("shove-rabbitmq-settle-" + request.consumerId())
                .unstarted(this::flushLoop);
    }

    /**
     * Opens a channel, checks the queues exist (for a broadcast topic: the exchange, then declares and binds the
     * subscription's own queue), sets the window and starts consuming.
     *
     * @throws TopologyException when a queue (or a broadcast topic's exchange) is missing
     * @throws IllegalArgumentException when a broadcast subscription asks for a start other than the tail
     */
    static RabbitSubscription open(
            RabbitMqTransport transport,
            Connection connection,
            SubscriptionRequest request,
            DeliverySink sink,
            boolean transactional,
            String tagPrefix) {
        List<String> queues = new ArrayList<>();
        List<Integer> shards = new ArrayList<>();
        var topic = request.topic();
        if (topic.isBroadcast()) {
            checkBroadcastStart(request);
        } else if (request.source() == SubscriptionRequest.Source.MAIN && topic.isSequenced()) {
            for (int i = 0; i < topic.sequencing().orElseThrow().routingShards(); i++) {
                queues.add(topic.shardName(i));
                shards.add(i);
            }
        } else {
            queues.add(request.queue());
            shards.add(-1);
        }
        Channel channel;
        try {
            channel = connection.createChannel();
        } catch (IOException | ShutdownSignalException e) {
            throw new BrokerUnavailableException(
                    "cannot open a channel for consumer " + request.consumerId() + " of queue '" + request.queue()
                            + "': the RabbitMQ connection is down (" + RabbitTopology.describe(e) + ")",
                    e);
        }
        if (channel == null) {
            throw new BrokerUnavailableException("RabbitMQ refused a channel for consumer " + request.consumerId()
                    + ": the connection's channel limit is reached");
        }
        String current = topic.isBroadcast() ? RabbitTopology.broadcastExchange(topic) : queues.getFirst();
        @Nullable String ownQueue = null;
        try {
            if (topic.isBroadcast()) {
                channel.exchangeDeclarePassive(current);
                ownQueue = channel.queueDeclare("", false, true, true, Map.of()).getQueue();
                channel.queueBind(ownQueue, current, "");
                queues.add(ownQueue);
                shards.add(-1);
            } else {
                for (String queue : queues) {
                    current = queue;
                    channel.queueDeclarePassive(queue);
                }
            }
            // One queue: the limit per consumer. Several shards on one channel: one limit shared by all of them.
            channel.basicQos(request.window(), queues.size() > 1);
            if (transactional) {
                channel.txSelect();
            }
            List<Source> sources = new ArrayList<>();
            for (int i = 0; i < queues.size(); i++) {
                sources.add(new Source(queues.get(i), shards.get(i), tagPrefix + "-" + i));
            }
            RabbitSubscription subscription =
                    new RabbitSubscription(transport, request, sink, channel, transactional, sources);
            subscription.start();
            return subscription;
        } catch (IOException | ShutdownSignalException e) {
            if (ownQueue != null) {
                // Exclusive queues go with the connection, not the channel: until then it would collect every
                // broadcast.
                transport.deleteQueueQuietly(ownQueue);
            }
            RabbitTopology.closeQuietly(channel);
            AMQP.Channel.@Nullable Close close = RabbitTopology.channelClose(e);
            if (close != null && close.getReplyCode() == AMQP.NOT_FOUND && topic.isBroadcast()) {
                throw new TopologyException("exchange '" + current + "' of broadcast topic '" + topic.name()
                        + "' does not exist on RabbitMQ; declare the topic first with"
                        + " broker.topology().declare(topic)");
            }
            if (close != null && close.getReplyCode() == AMQP.NOT_FOUND) {
                throw new TopologyException(
                        "queue '" + current + "' of topic '" + topic.name()
                                + "' does not exist on RabbitMQ; declare the topic first with broker.topology().declare(topic)");
            }
            throw new BrokerUnavailableException(
                    "cannot start consumer " + request.consumerId() + " on queue '" + current + "': " + e, e);
        }
    }

    /** A broadcast queue has no history: only the tail (no start, or {@link Position#end()}) can be honoured. */
    private static void checkBroadcastStart(SubscriptionRequest request) {
        @Nullable Position start = request.startAt();
        if (start != null && !(start instanceof Position.End)) {
            throw new IllegalArgumentException(("topic '%s' is a broadcast topic, and RabbitMQ broadcast topics start"
                            + " at the tail: a subscriber receives what is published from the moment it subscribes."
                            + " The broker keeps no history to start at %s; remove withStartAt (or use Position.end())")
                    .formatted(request.topic().name(), start));
        }
    }

    private void start() throws IOException {
        channel.addShutdownListener(this::onShutdown);
        if (channel instanceof Recoverable recoverable) {
            recoverable.addRecoveryListener(new RecoveryListener() {
                @Override
                public void handleRecovery(Recoverable r) {
                    log.info("consumer {} of {} has its channel back", request.consumerId(), queues());
                }

                @Override
                public void handleRecoveryStarted(Recoverable r) {}
            });
        }
        flusher.start();
        try {
            for (Source source : sources) {
                if (broadcast) {
                    transport.registerBroadcastQueue(source.queue, this);
                }
                transport.registerConsumer(source.consumerTag, this);
                channel.basicConsume(source.queue, false, source.consumerTag, new SourceConsumer(source));
            }
        } catch (IOException | RuntimeException e) {
            for (Source source : sources) {
                if (broadcast) {
                    transport.unregisterBroadcastQueue(source.queue);
                }
                transport.unregisterConsumer(source.consumerTag);
            }
            lock.lock();
            try {
                stopping = true;
                closed = true;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            throw e;
        }
    }

    boolean owns(Channel candidate) {
        return candidate == channel;
    }

    String consumerId() {
        return request.consumerId();
    }

    String queues() {
        if (broadcast) {
            return "broadcast queue '" + sources.getFirst().queue + "' of topic '"
                    + request.topic().name() + "'";
        }
        return sources.size() == 1
                ? "queue '" + sources.getFirst().queue + "'"
                : "queues '" + sources.getFirst().queue + "' to '" + sources.getLast().queue + "'";
    }

    /** Connection recovery declared this broadcast subscription's queue again, under a new name. */
    void broadcastQueueRecovered(String oldName, String newName) {
        for (Source source : sources) {
            if (source.queue.equals(oldName)) {
                source.queue = newName;
            }
        }
        log.info(
                "consumer {} of broadcast topic '{}' has a new queue '{}' (was '{}'); what was published while the"
                        + " connection was down did not reach it",
                request.consumerId(),
                request.topic().name(),
                newName,
                oldName);
    }

    /** What happens to a message this subscription could not settle, for error messages. */
    private String redelivery() {
        return broadcast
                ? "a broadcast is best effort: it went with its subscriber's queue and is not delivered again"
                : "RabbitMQ delivers it again";
    }

    // ---------------------------------------------------------------- intake (the client's dispatch threads)

    private void onDelivery(Source source, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
        long tag = envelope.getDeliveryTag();
        lock.lock();
        try {
            if (tag <= staleUpTo) {
                // Dispatched late from a channel that has since been lost: the broker requeued it already.
                return;
            }
            ledger.delivered(tag);
            if (paused || closed) {
                enqueue(new Op(tag, epoch, Kind.RETURN, null, null, NONE, false));
                return;
            }
            RabbitDelivery delivery = new RabbitDelivery(
                    this, tag, epoch, source.queue, source.shard, envelope.isRedeliver(), properties, body);
            // Under the lock, so that nothing reaches the sink once pause() has returned.
            sink.deliver(delivery);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- settlement (engine threads)

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        if (!(delivery instanceof RabbitDelivery d) || d.subscription != this) {
            callback.settled(new IllegalArgumentException(
                    "delivery " + delivery.deliveryId() + " does not belong to consumer " + request.consumerId()));
            return;
        }
        boolean publishCopies = false;
        @Nullable Throwable refused = null;
        lock.lock();
        try {
            if (closed || stopping) {
                refused = new IllegalStateException("consumer " + request.consumerId() + " is closed before settling"
                        + " message " + d.deliveryId() + "; " + redelivery());
            } else if (d.epoch != epoch) {
                refused = stale(d);
            } else if (transaction != null) {
                enqueue(new Op(d.tag, d.epoch, Kind.TRANSACTION, d, settlement, callback, false));
            } else if (settlement.copies().isEmpty()) {
                Kind kind = settlement.action() == Settlement.Action.ACK ? Kind.ACK : Kind.RETURN;
                enqueue(new Op(d.tag, d.epoch, kind, d, null, callback, false));
            } else {
                copiesInFlight++;
                publishCopies = true;
            }
        } finally {
            lock.unlock();
        }
        if (refused != null) {
            callback.settled(refused);
        } else if (publishCopies) {
            publishCopies(d, settlement, callback);
        }
    }

    private ShoveException stale(RabbitDelivery d) {
        return new BrokerUnavailableException("the channel that delivered message " + d.deliveryId()
                + " was lost (connection failure); "
                + (broadcast ? redelivery() : "RabbitMQ requeued the message and delivers it again"));
    }

    private void publishCopies(RabbitDelivery d, Settlement settlement, SettleCallback callback) {
        List<CompletableFuture<Void>> copies =
                new ArrayList<>(settlement.copies().size());
        for (Settlement.Copy copy : settlement.copies()) {
            try {
                copies.add(transport.publishCopy(request.topic(), d, copy));
            } catch (RuntimeException e) {
                copies.add(CompletableFuture.failedFuture(e));
            }
        }
        CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            lock.lock();
            try {
                copiesInFlight--;
                if (failure == null) {
                    enqueue(new Op(d.tag, d.epoch, Kind.ACK, d, null, callback, true));
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            if (failure != null) {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                        ? c.getCause()
                        : failure;
                callback.settled(cause);
                transport.schedule(() -> returnLater(d), FAILED_COPY_RETURN_DELAY);
            }
        });
    }

    /** A delivery whose copy failed goes back to the broker, unless its channel is gone (then the broker has it). */
    private void returnLater(RabbitDelivery d) {
        lock.lock();
        try {
            if (!closed && d.epoch == epoch) {
                enqueue(new Op(d.tag, d.epoch, Kind.RETURN, d, null, NONE, false));
            }
        } finally {
            lock.unlock();
        }
    }

    /** Queues an op for the flusher; the caller holds the lock. */
    private void enqueue(Op op) {
        if (queued.isEmpty()) {
            firstQueuedAt = System.nanoTime();
        }
        queued.add(op);
        if (queued.size() == 1 || queued.size() >= batchSize) {
            changed.signalAll();
        }
    }

    // ---------------------------------------------------------------- the flusher

    private void flushLoop() {
        try {
            while (true) {
                List<Op> batch = new ArrayList<>();
                List<Op> refused = new ArrayList<>();
                AckLedger.Plan plan;
                int batchEpoch;
                lock.lock();
                try {
                    while (queued.isEmpty()) {
                        if (stopping) {
                            return;
                        }
                        changed.await();
                    }
                    long lingerEnd = firstQueuedAt + ACK_LINGER.toNanos();
                    long left;
                    while (queued.size() < batchSize && !stopping && (left = lingerEnd - System.nanoTime()) > 0) {
                        changed.awaitNanos(left);
                    }
                    batchEpoch = epoch;
                    List<Long> acks = new ArrayList<>();
                    List<Long> nacks = new ArrayList<>();
                    for (Op op; (op = queued.poll()) != null; ) {
                        if (op.epoch() != epoch) {
                            refused.add(op);
                            continue;
                        }
                        batch.add(op);
                        boolean ack = switch (op.kind()) {
                            case ACK -> true;
                            case RETURN -> false;
                            case TRANSACTION -> op.settlement().action() == Settlement.Action.ACK;
                        };
                        (ack ? acks : nacks).add(op.tag());
                    }
                    plan = ledger.plan(acks, nacks);
                    writing += batch.size();
                } finally {
                    lock.unlock();
                }
                for (Op op : refused) {
                    if (op.delivery() != null) {
                        op.callback().settled(stale(op.delivery()));
                    }
                }
                if (!batch.isEmpty()) {
                    write(batch, plan, batchEpoch);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.error("the settlement writer of consumer {} failed; it stops", request.consumerId(), e);
            sink.failed(e);
        }
    }

    private void write(List<Op> batch, AckLedger.Plan plan, int batchEpoch) {
        @Nullable Throwable failure = null;
        try {
            boolean copied = transaction != null
                    ? transaction.publishCopies(batch)
                    : batch.stream().anyMatch(Op::afterCopies);
            if (copied) {
                transport.afterCopies();
            }
            writeFrames(plan);
            if (transaction != null) {
                transaction.commit();
            }
        } catch (IOException | ShutdownSignalException e) {
            failure = new BrokerUnavailableException(
                    "settling " + batch.size() + " message(s) of consumer "
                            + request.consumerId() + " on " + queues() + " failed (" + RabbitTopology.describe(e)
                            + "); " + (broadcast ? "a broadcast is best effort" : "RabbitMQ delivers them again"),
                    e);
            if (transaction != null) {
                transaction.rollBack(batch);
            }
        }
        for (Op op : batch) {
            @Nullable Throwable result = failure;
            if (result == null && plan.unknown().contains(op.tag())) {
                result = new IllegalStateException("message " + op.tag() + " is not outstanding on the channel of"
                        + " consumer " + request.consumerId() + " (already settled, or from a lost channel)");
            }
            op.callback().settled(result);
        }
        lock.lock();
        try {
            writing -= batch.size();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            log.debug("consumer {} epoch {}: {}", request.consumerId(), batchEpoch, failure.getMessage());
        }
    }

    private void writeFrames(AckLedger.Plan plan) throws IOException {
        for (long tag : plan.nacks()) {
            channel.basicNack(tag, false, true);
        }
        if (plan.multipleUpTo() > 0) {
            channel.basicAck(plan.multipleUpTo(), true);
        }
        for (long tag : plan.singles()) {
            channel.basicAck(tag, false);
        }
    }

    // ---------------------------------------------------------------- channel lifecycle

    private void onShutdown(ShutdownSignalException cause) {
        long boundary = tagBoundary();
        List<Op> dropped = new ArrayList<>();
        int newEpoch;
        lock.lock();
        try {
            epoch++;
            newEpoch = epoch;
            staleUpTo = Math.max(staleUpTo, boundary);
            ledger.clear();
            for (Op op; (op = queued.poll()) != null; ) {
                dropped.add(op);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        for (Op op : dropped) {
            if (op.delivery() != null) {
                op.callback().settled(stale(op.delivery()));
            }
        }
        List<Delivery> withdrawn = sink.withdraw(d -> d instanceof RabbitDelivery r && r.epoch < newEpoch);
        if (cause.isInitiatedByApplication()) {
            return;
        }
        if (!cause.isHardError()) {
            String reason = cause.getReason() instanceof AMQP.Channel.Close close
                    ? close.getReplyCode() + " " + close.getReplyText()
                    : String.valueOf(cause.getMessage());
            sink.failed(new ShoveException(
                    "RabbitMQ closed the channel of consumer " + request.consumerId() + " on " + queues() + ": "
                            + reason + ". Its unacknowledged messages were requeued",
                    cause));
            return;
        }
        log.warn(
                "consumer {} of {} lost its channel ({}); {} unstarted message(s) handed back, {}; it resumes when the"
                        + " connection recovers",
                request.consumerId(),
                queues(),
                cause.getMessage(),
                withdrawn.size(),
                broadcast
                        ? "the broadcast queue went with the connection, and what it held is lost"
                        : "the broker requeued everything unacknowledged");
    }

    /**
     * Every tag at or below this belongs to the channel just lost: the recovering client numbers the next channel's
     * tags from here on.
     */
    private long tagBoundary() {
        if (channel instanceof AutorecoveringChannel recovering
                && recovering.getDelegate() instanceof RecoveryAwareChannelN delegate) {
            return delegate.getActiveDeliveryTagOffset() + delegate.getMaxSeenDeliveryTag();
        }
        return Long.MAX_VALUE; // not a recovering channel: it never comes back, every tag is stale
    }

    /** The client failed to re-register a consumer or reopen the channel after a connection recovery. */
    void recoveryFailed(Throwable cause) {
        sink.failed(new ShoveException(
                "consumer " + request.consumerId() + " of " + queues() + " could not resume after the RabbitMQ"
                        + " connection recovered: " + cause.getMessage(),
                cause));
    }

    @Override
    public void pause() {
        lock.lock();
        try {
            if (paused) {
                return;
            }
            paused = true;
        } finally {
            lock.unlock();
        }
        for (Source source : sources) {
            try {
                if (channel.isOpen()) {
                    channel.basicCancel(source.consumerTag);
                }
            } catch (IOException | ShutdownSignalException e) {
                log.debug("cancelling consumer {} failed: {}", source.consumerTag, e.toString());
            }
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed || stopping) {
                return;
            }
        } finally {
            lock.unlock();
        }
        pause();
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        lock.lock();
        try {
            long left;
            while ((!queued.isEmpty() || writing > 0 || copiesInFlight > 0)
                    && (left = deadline - System.nanoTime()) > 0) {
                changed.awaitNanos(left);
            }
            if (!queued.isEmpty() || writing > 0 || copiesInFlight > 0) {
                log.warn(
                        "consumer {} closes with {} settlement(s) unwritten after {}; RabbitMQ redelivers them",
                        request.consumerId(),
                        queued.size() + writing + copiesInFlight,
                        CLOSE_TIMEOUT);
            }
            stopping = true;
            changed.signalAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
        try {
            flusher.join(CLOSE_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Op> unwritten = new ArrayList<>();
        lock.lock();
        try {
            closed = true;
            for (Op op; (op = queued.poll()) != null; ) {
                unwritten.add(op);
            }
        } finally {
            lock.unlock();
        }
        for (Op op : unwritten) {
            if (op.delivery() != null) {
                op.callback()
                        .settled(new IllegalStateException("consumer " + request.consumerId()
                                + " closed before settling message "
                                + op.delivery().deliveryId() + "; "
                                + redelivery()));
            }
        }
        for (Source source : sources) {
            if (broadcast) {
                // Not to come back with a recovery; the broker deletes it with the consumer or the channel.
                transport.unregisterBroadcastQueue(source.queue);
            }
            transport.unregisterConsumer(source.consumerTag);
        }
        if (channel.isOpen()) {
            RabbitTopology.closeQuietly(channel);
        } else {
            abandon();
        }
    }

    /**
     * Drops a channel that is down (its connection recovering) from the client's recovery, which would otherwise
     * reopen it for nobody.
     */
    private void abandon() {
        try {
            channel.abort();
        } catch (IOException | RuntimeException e) {
            log.debug("abandoning the channel of consumer {} failed: {}", request.consumerId(), e.toString());
        }
    }

    @Override
    public String toString() {
        return "RabbitSubscription[" + request.consumerId() + " on " + queues() + "]";
    }

    /** The client's callbacks for one consumed queue. */
    private final class SourceConsumer implements Consumer {
        private final Source source;

        SourceConsumer(Source source) {
            this.source = source;
        }

        @Override
        public void handleDelivery(
                String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
            onDelivery(source, envelope, properties, body);
        }

        @Override
        public void handleCancel(String consumerTag) {
            sink.failed(new TopologyException(
                    broadcast
                            ? "RabbitMQ cancelled consumer " + request.consumerId() + " of " + queues()
                                    + " (the queue was deleted?); restart the group to subscribe again"
                            : "RabbitMQ cancelled consumer " + request.consumerId() + " of queue '" + source.queue
                                    + "' (the queue was deleted?); declare the topic again and restart the group"));
        }

        @Override
        public void handleConsumeOk(String consumerTag) {}

        @Override
        public void handleCancelOk(String consumerTag) {}

        @Override
        public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {}

        @Override
        public void handleRecoverOk(String consumerTag) {}
    }
}
