package dev.shove.rabbitmq;

import dev.shove.BrokerUnavailableException;
import dev.shove.ShoveException;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.DurationText;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.SubscriptionRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settlement bookkeeping of one consumer channel: the delivery tags it has outstanding (an {@link AckLedger}) in
 * the current channel epoch, and the settlements queued for its {@link AckFlusher}.
 *
 * <p>{@link #settle} only queues. A settlement with copies publishes them first through the confirm-mode pool, and
 * only when the broker confirmed every copy is the acknowledgement queued; if a copy fails, the callback reports it
 * and the delivery is returned to the broker (after {@link #FAILED_COPY_RETURN_DELAY}, so a broken DLQ cannot turn
 * into a hot redelivery loop). In transactional mode the copies go into the queue with the settlement, for the
 * flusher to publish in the batch's transaction.
 *
 * <p>Deliveries pass through it on their way to the engine ({@link #deliver}): recording a tag, stamping the delivery
 * with its epoch and handing it over must be atomic with a channel loss ({@link #channelLost}) and a pause ({@link
 * #stopIntake}), so that no delivery slips past either.
 *
 * <p><b>Returns on quorum queues.</b> A quorum queue puts a message returned with {@code basic.nack} behind the
 * messages returned before it, while the messages of a closed channel go back in their original order, ahead of the
 * rest. So once intake has stopped (the subscription is draining and closes next), a return on a quorum queue writes
 * nothing: the delivery stays unacknowledged and the channel's close gives it back, in order with the others (a
 * sequenced key's messages come back in their order for the next consumer). Classic queues put a nacked message back
 * in its place, so there a return is a {@code basic.nack} at once.
 *
 * <p>Thread-safe, under one lock: the client's dispatch threads deliver, engine threads settle, confirm and timer
 * threads queue what copies left to do, the client's connection thread reports a lost channel, the flusher thread
 * takes batches, and the closing thread drains it.
 */
final class SettlementQueue {
    private static final Logger log = LoggerFactory.getLogger(SettlementQueue.class);

    /** How long {@link #take()} waits for more settlements before returning a partial batch. */
    static final Duration ACK_LINGER = Duration.ofMillis(1);

    /** How long a delivery whose copy failed stays unacknowledged before it is returned to the broker. */
    static final Duration FAILED_COPY_RETURN_DELAY = Duration.ofSeconds(1);

    private static final SettleCallback NONE = failure -> {};

    enum Kind {
        /** Acknowledge (copies, if any, are confirmed already). */
        ACK,
        /** Return for redelivery: basic.nack with requeue. */
        RETURN,
        /** Transactional mode: publish the copies, then ack or nack, in the batch's transaction. */
        TRANSACTION
    }

    /** One queued settlement. */
    record Op(
            long tag,
            int epoch,
            Kind kind,
            @Nullable RabbitDelivery delivery,
            @Nullable Settlement settlement,
            SettleCallback callback,
            boolean afterCopies) {}

    /**
     * What the flusher writes next: settlements of one epoch, the frames that settle them, and whether any of them
     * published copies first (so that the transport learns that copies were settled).
     */
    record Batch(List<Op> ops, AckLedger.Plan plan, int epoch, boolean afterCopies) {}

    private final RabbitMqTransport transport;
    private final SubscriptionRequest request;
    private final DeliverySink sink;
    private final boolean transactional;
    private final boolean broadcast;
    private final boolean returnsOnClose;
    private final int batchSize;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final AckLedger ledger = new AckLedger();
    private final ArrayDeque<Op> queued = new ArrayDeque<>();
    /** The flusher's scratch for a batch's tags (only {@link #take()} uses them, under the lock). */
    private long[] ackTags = new long[16];

    private long[] nackTags = new long[16];
    private long firstQueuedAt;
    private int writing;
    private int copiesInFlight;
    private int epoch;
    private long staleUpTo;
    private boolean paused;
    private boolean stopping;
    private boolean closed;

    SettlementQueue(
            RabbitMqTransport transport,
            SubscriptionRequest request,
            DeliverySink sink,
            boolean transactional,
            boolean quorum) {
        this.transport = transport;
        this.request = request;
        this.sink = sink;
        this.transactional = transactional;
        this.returnsOnClose = quorum;
        this.broadcast = request.topic().isBroadcast();
        this.batchSize = Math.max(1, request.window() / 2);
    }

    // ---------------------------------------------------------------- intake (the client's dispatch threads)

    /**
     * Hands a delivery to the engine, made with the current epoch, unless it comes late from a lost channel (dropped:
     * the broker requeued it) or intake has stopped (returned to the broker).
     */
    void deliver(long tag, IntFunction<RabbitDelivery> withEpoch) {
        lock.lock();
        try {
            if (tag <= staleUpTo) {
                // Dispatched late from a channel that has since been lost: the broker requeued it already.
                return;
            }
            ledger.delivered(tag);
            if (paused || closed) {
                if (!returnsOnClose) {
                    enqueue(new Op(tag, epoch, Kind.RETURN, null, null, NONE, false));
                }
                return;
            }
            // Under the lock, so that nothing reaches the sink once stopIntake() has returned.
            sink.deliver(withEpoch.apply(epoch));
        } finally {
            lock.unlock();
        }
    }

    /** Deliveries from now on go back to the broker; false when intake had stopped already. */
    boolean stopIntake() {
        lock.lock();
        try {
            if (paused) {
                return false;
            }
            paused = true;
            return true;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- settlement (engine threads)

    /** Queues a settlement of one of this channel's deliveries; with copies, once the broker confirmed them. */
    void settle(RabbitDelivery d, Settlement settlement, SettleCallback callback) {
        boolean publishCopies = false;
        @Nullable Throwable refused = null;
        lock.lock();
        try {
            if (closed || stopping) {
                refused = new IllegalStateException("consumer " + request.consumerId() + " is closed before settling"
                        + " message " + d.deliveryId() + "; " + redelivery());
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
                + " was lost (connection failure); "
                + (broadcast ? redelivery() : "RabbitMQ requeued the message and delivers it again"));
    }

    /** What happens to a message this subscription could not settle, for error messages. */
    private String redelivery() {
        return broadcast
                ? "a broadcast is best effort: it went with its subscriber's queue and is not delivered again"
                : "RabbitMQ delivers it again";
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
                Throwable cause =
                        failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
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
        // Wake the flusher only when a batch is due: the first settlement starts its linger, a full batch ends it.
        // Between the two, and past a full batch while the flusher writes the one before, it has nothing to do.
        int size = queued.size();
        if (size == 1 || size == batchSize) {
            changed.signalAll();
        }
    }

    // ---------------------------------------------------------------- the flusher thread

    /**
     * Waits for settlements, then at most {@link #ACK_LINGER} for a batch of half the window to form, and takes what
     * has queued: the settlements of the current epoch, with the frames the ledger plans for them, count as being
     * written until {@link #written}; those of an older epoch are failed here. Null once closing with nothing queued.
     */
    @Nullable
    Batch take() throws InterruptedException {
        List<Op> batch;
        List<Op> refused = List.of();
        boolean afterCopies = false;
        AckLedger.Plan plan;
        int batchEpoch;
        lock.lock();
        try {
            while (queued.isEmpty()) {
                if (stopping) {
                    return null;
                }
                changed.await();
            }
            long lingerEnd = firstQueuedAt + ACK_LINGER.toNanos();
            long left;
            while (queued.size() < batchSize && !stopping && (left = lingerEnd - System.nanoTime()) > 0) {
                changed.awaitNanos(left);
            }
            batchEpoch = epoch;
            if (ackTags.length < queued.size()) {
                ackTags = new long[Math.max(queued.size(), ackTags.length * 2)];
                nackTags = new long[ackTags.length];
            }
            int acks = 0;
            int nacks = 0;
            batch = new ArrayList<>(queued.size());
            for (Op op; (op = queued.poll()) != null; ) {
                if (op.epoch() != epoch) {
                    if (refused.isEmpty()) {
                        refused = new ArrayList<>();
                    }
                    refused.add(op);
                    continue;
                }
                batch.add(op);
                afterCopies |= op.afterCopies();
                boolean ack = switch (op.kind()) {
                    case ACK -> true;
                    case RETURN -> false;
                    case TRANSACTION -> op.settlement().action() == Settlement.Action.ACK;
                };
                if (ack) {
                    ackTags[acks++] = op.tag();
                } else if (!(returnsOnClose && paused)) {
                    nackTags[nacks++] = op.tag();
                } // else: left unacknowledged, the channel's close returns it (see the class comment)
            }
            plan = ledger.plan(ackTags, acks, nackTags, nacks);
            writing += batch.size();
        } finally {
            lock.unlock();
        }
        for (Op op : refused) {
            if (op.delivery() != null) {
                op.callback().settled(stale(op.delivery()));
            }
        }
        return new Batch(batch, plan, batchEpoch, afterCopies);
    }

    /** The flusher has written a batch (or failed to) and run its callbacks. */
    void written(Batch batch) {
        lock.lock();
        try {
            writing -= batch.ops().size();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- channel loss and close

    /**
     * The channel is gone (the client's connection thread): starts a new epoch, fails the settlements still queued,
     * and from now on drops deliveries the client dispatches late from the old channel.
     *
     * @param boundary every tag at or below it belongs to the lost channel
     * @return the new epoch: deliveries of older ones cannot be settled any more
     */
    int channelLost(long boundary) {
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
        return newEpoch;
    }

    /** Whether closing has begun ({@link #finish}, or {@link #abort}). */
    boolean isClosing() {
        lock.lock();
        try {
            return closed || stopping;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code timeout} for queued settlements, batches being written and copies in flight, then lets
     * {@link #take()} return null once the queue is empty.
     */
    void finish(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
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
                        DurationText.of(timeout));
            }
            stopping = true;
            changed.signalAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** After {@link #finish} and the flusher thread: refuses settlements from now on and fails those still queued. */
    void close() {
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
    }

    /** The subscription could not start: the flusher stops without waiting, and every settlement is refused. */
    void abort() {
        lock.lock();
        try {
            stopping = true;
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
