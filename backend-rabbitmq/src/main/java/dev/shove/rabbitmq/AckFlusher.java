package dev.shove.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import dev.shove.BrokerUnavailableException;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SubscriptionRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that writes one consumer channel's settlements: it takes batches from the {@link SettlementQueue} and
 * writes the frames the {@link AckLedger} planned (nacks for returns, one multiple-ack for a contiguous run, single
 * acks for the rest), then runs the batch's callbacks. Coalescing is why acks are written here rather than by the
 * engine threads that settle. In transactional mode a batch is one transaction: the {@link TransactionalSettler}
 * publishes its copies on the channel, the flusher writes the acks and nacks, the settler commits.
 *
 * <p>Its virtual thread ({@code shove-rabbitmq-settle-<consumer>}) is the only one that writes settlements to the
 * channel; {@link #start()} and {@link #close()} are for the subscription's opening and closing threads.
 */
final class AckFlusher {
    private static final Logger log = LoggerFactory.getLogger(AckFlusher.class);

    /** How long {@link #close()} waits for queued settlements and copies in flight, and then for the thread. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final SettlementQueue settlements;
    private final Channel channel;
    private final RabbitMqTransport transport;
    private final SubscriptionRequest request;
    private final DeliverySink sink;
    private final boolean broadcast;
    private final @Nullable TransactionalSettler transaction;
    private final Thread thread;
    /** How error messages name the consumed queues; a broadcast queue is renamed when recovery declares it again. */
    private volatile String queues;

    AckFlusher(
            SettlementQueue settlements,
            Channel channel,
            RabbitMqTransport transport,
            SubscriptionRequest request,
            DeliverySink sink,
            boolean transactional,
            String queues) {
        this.settlements = settlements;
        this.channel = channel;
        this.transport = transport;
        this.request = request;
        this.sink = sink;
        this.broadcast = request.topic().isBroadcast();
        this.transaction = transactional ? new TransactionalSettler(channel, transport, request) : null;
        this.queues = queues;
        this.thread = Thread.ofVirtual()
                .name("shove-rabbitmq-settle-" + request.consumerId())
                .unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    void queuesRenamed(String queues) {
        this.queues = queues;
    }

    /**
     * Writes what is queued (for up to {@link #CLOSE_TIMEOUT}), stops the thread, and fails the settlements left
     * unwritten. Called once intake has stopped.
     */
    void close() {
        settlements.finish(CLOSE_TIMEOUT);
        try {
            thread.join(CLOSE_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        settlements.close();
    }

    private void run() {
        try {
            for (SettlementQueue.Batch batch; (batch = settlements.take()) != null; ) {
                if (!batch.ops().isEmpty()) {
                    write(batch);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.error("the settlement writer of consumer {} failed; it stops", request.consumerId(), e);
            sink.failed(e);
        }
    }

    private void write(SettlementQueue.Batch batch) {
        @Nullable Throwable failure = null;
        try {
            boolean copied = transaction != null ? transaction.publishCopies(batch.ops()) : batch.afterCopies();
            if (copied) {
                transport.afterCopies();
            }
            writeFrames(batch.plan());
            if (transaction != null) {
                transaction.commit();
            }
        } catch (IOException | ShutdownSignalException e) {
            failure = new BrokerUnavailableException(
                    "settling " + batch.ops().size() + " message(s) of consumer "
                            + request.consumerId() + " on " + queues + " failed (" + RabbitTopology.describe(e)
                            + "); " + (broadcast ? "a broadcast is best effort" : "RabbitMQ delivers them again"),
                    e);
            if (transaction != null) {
                transaction.rollBack(batch.ops());
            }
        }
        List<Long> unknown = batch.plan().unknown();
        for (SettlementQueue.Op op : batch.ops()) {
            @Nullable Throwable result = failure;
            if (result == null && !unknown.isEmpty() && unknown.contains(op.tag())) {
                result = new IllegalStateException("message " + op.tag() + " is not outstanding on the channel of"
                        + " consumer " + request.consumerId() + " (already settled, or from a lost channel)");
            }
            op.callback().settled(result);
        }
        settlements.written(batch);
        if (failure != null) {
            log.debug("consumer {} epoch {}: {}", request.consumerId(), batch.epoch(), failure.getMessage());
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
}
