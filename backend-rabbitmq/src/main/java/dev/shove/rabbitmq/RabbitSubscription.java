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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
 * hot redelivery loop). In transactional mode the flusher instead publishes the copies on this channel, then acks,
 * then commits: copies and acks of one batch take effect together or not at all.
 *
 * <p><b>Recovery.</b> When the connection drops, the broker requeues every unacknowledged delivery, and the client
 * recovers the channel and its consumers by itself. Delivery tags of the lost channel mean nothing on the new one, so
 * the subscription counts channel epochs: on shutdown it starts a new epoch, fails the settlements still queued,
 * takes back from the engine the deliveries of the old epoch that have not started, and refuses to settle old-epoch
 * deliveries later (their handlers may still be running). A delivery the client dispatches late from the old channel
 * is recognised by its tag (the recovering client shifts new tags past every old one) and dropped. A channel closed
 * by a broker error is not recovered: it is reported to the engine with the broker's reason and the queue.
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

    /** One queue this subscription consumes. */
    private record Source(String queue, int shard, String consumerTag) {}

    private enum Kind {
        /** Acknowledge (copies, if any, are confirmed already). */
        ACK,
        /** Return for redelivery: basic.nack with requeue. */
        RETURN,
        /** Transactional mode: publish the copies, then ack or nack, in the batch's transaction. */
        TRANSACTION
    }

    private record Op(
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
    private final boolean transactional;
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
        this.transactional = transactional;
        this.sources = sources;
        this.batchSize = Math.max(1, request.window() / 2);
        this.flusher = Thread.ofVirtual()
                .name("shove-rabbitmq-settle-" + request.consumerId())
                .unstarted(this::flushLoop);
    }

    /**
     * Opens a channel, checks the queues exist, sets the window and starts consuming.
     *
     * @throws TopologyException when a queue is missing
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
        if (request.source() == SubscriptionRequest.Source.MAIN && topic.isSequenced()) {
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
        String current = queues.getFirst();
        try {
            for (String queue : queues) {
                current = queue;
                channel.queueDeclarePassive(queue);
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
            RabbitTopology.closeQuietly(channel);
            AMQP.Channel.@Nullable Close close = RabbitTopology.channelClose(e);
            if (close != null && close.getReplyCode() == AMQP.NOT_FOUND) {
                throw new TopologyException(
                        "queue '" + current + "' of topic '" + topic.name()
                                + "' does not exist on RabbitMQ; declare the topic first with broker.topology().declare(topic)");
            }
            throw new BrokerUnavailableException(
                    "cannot start consumer " + request.consumerId() + " on queue '" + current + "': " + e, e);
        }
    }

    private void start() throws IOException {
        channel.addShutdownListener(this::onShutdown);
        if (channel instanceof Recoverable recoverable) {
            recoverable.addRecoveryListener(new RecoveryListener() {
                @Override
                public void handleRecovery(Recoverable r) {
                    log.info("consumer {} of queue '{}' has its channel back", request.consumerId(), request.queue());
                }

                @Override
                public void handleRecoveryStarted(Recoverable r) {}
            });
        }
        flusher.start();
        try {
            for (Source source : sources) {
                transport.registerConsumer(source.consumerTag(), this);
                channel.basicConsume(source.queue(), false, source.consumerTag(), new SourceConsumer(source));
            }
        } catch (IOException | RuntimeException e) {
            for (Source source : sources) {
                transport.unregisterConsumer(source.consumerTag());
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
        return sources.size() == 1
                ? "queue '" + sources.getFirst().queue() + "'"
                : "queues '" + sources.getFirst().queue() + "' to '"
                        + sources.getLast().queue() + "'";
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
                    this, tag, epoch, source.queue(), source.shard(), envelope.isRedeliver(), properties, body);
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
                refused = new IllegalStateException("consumer " + request.consumerId() + " is closed; the broker"
                        + " redelivers message " + d.deliveryId());
            } else if (d.epoch != epoch) {
                refused = stale(d);
            } else if (transactional) {
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
                + " was lost (connection failure); RabbitMQ requeued the message and delivers it again");
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
            if (transactional) {
                writeTransaction(batch, plan);
            } else {
                if (batch.stream().anyMatch(Op::afterCopies)) {
                    transport.afterCopies();
                }
                writeFrames(plan);
            }
        } catch (IOException | ShutdownSignalException e) {
            failure = new BrokerUnavailableException(
                    "settling " + batch.size() + " message(s) of consumer "
                            + request.consumerId() + " on " + queues() + " failed (" + RabbitTopology.describe(e)
                            + "); RabbitMQ delivers them again",
                    e);
            if (transactional) {
                undoTransaction(batch);
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

    /**
     * One transaction for the batch: check the copies' queues exist (a missing one closes the channel, which aborts
     * the transaction: nothing is lost), publish the copies, ack and nack, commit.
     */
    private void writeTransaction(List<Op> batch, AckLedger.Plan plan) throws IOException {
        Set<String> targets = new LinkedHashSet<>();
        List<Runnable> publishes = new ArrayList<>();
        for (Op op : batch) {
            Settlement s = op.settlement();
            RabbitDelivery d = op.delivery();
            if (s == null || d == null) {
                continue;
            }
            for (Settlement.Copy copy : s.copies()) {
                String target = transport.copyTarget(request.topic(), d, copy);
                targets.add(target);
                AMQP.BasicProperties props = RabbitMqTransport.copyProperties(d, copy);
                publishes.add(() -> {
                    try {
                        channel.basicPublish("", target, true, props, copy.payload());
                    } catch (IOException e) {
                        throw new TransactionAborted(e);
                    }
                });
            }
        }
        try {
            for (String target : targets) {
                channel.queueDeclarePassive(target);
            }
            for (Runnable publish : publishes) {
                publish.run();
            }
        } catch (TransactionAborted e) {
            throw e.io;
        }
        if (!publishes.isEmpty()) {
            transport.afterCopies();
        }
        writeFrames(plan);
        channel.txCommit();
    }

    /** After a failed transaction on a channel still open: roll back and return the batch's deliveries. */
    private void undoTransaction(List<Op> batch) {
        if (!channel.isOpen()) {
            return; // the broker discarded the transaction and requeued everything unacknowledged
        }
        try {
            channel.txRollback();
            for (Op op : batch) {
                channel.basicNack(op.tag(), false, true);
            }
            channel.txCommit();
        } catch (IOException | ShutdownSignalException e) {
            log.debug("rolling back the transaction of consumer {} failed: {}", request.consumerId(), e.toString());
        }
    }

    private static final class TransactionAborted extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final IOException io;

        TransactionAborted(IOException io) {
            super(io.getMessage(), io, false, false);
            this.io = io;
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
                "consumer {} of {} lost its channel ({}); {} unstarted message(s) handed back, the broker requeued"
                        + " everything unacknowledged; it resumes when the connection recovers",
                request.consumerId(),
                queues(),
                cause.getMessage(),
                withdrawn.size());
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
                    channel.basicCancel(source.consumerTag());
                }
            } catch (IOException | ShutdownSignalException e) {
                log.debug("cancelling consumer {} failed: {}", source.consumerTag(), e.toString());
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
                        .settled(new IllegalStateException(
                                "consumer " + request.consumerId() + " closed before settling message "
                                        + op.delivery().deliveryId() + "; the broker redelivers it"));
            }
        }
        for (Source source : sources) {
            transport.unregisterConsumer(source.consumerTag());
        }
        RabbitTopology.closeQuietly(channel);
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
            sink.failed(new TopologyException("RabbitMQ cancelled consumer " + request.consumerId() + " of queue '"
                    + source.queue() + "' (the queue was deleted?); declare the topic again and restart the group"));
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
