package dev.shove.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import dev.shove.spi.Settlement;
import dev.shove.spi.SubscriptionRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactional settlement mode of one consumer channel (in {@code tx.select} mode): a batch of settlements is one
 * AMQP transaction on the consumer's own channel. The {@link AckFlusher} has this settler publish the batch's copies,
 * writes the acks and nacks, and has it commit, so that copies and acks of one batch take effect together or not at
 * all.
 *
 * <p>Not thread-safe: only its channel's flusher thread uses it.
 */
final class TransactionalSettler {
    private static final Logger log = LoggerFactory.getLogger(TransactionalSettler.class);

    private record Copy(Route target, AMQP.BasicProperties properties, byte[] payload) {}

    private final Channel channel;
    private final RabbitMqTransport transport;
    private final SubscriptionRequest request;

    TransactionalSettler(Channel channel, RabbitMqTransport transport, SubscriptionRequest request) {
        this.channel = channel;
        this.transport = transport;
        this.request = request;
    }

    /**
     * Publishes the copies the batch's settlements ask for, in the open transaction, after checking that their queues
     * (or a broadcast reply's exchange) exist: a missing one closes the channel, which aborts the transaction, so
     * nothing is lost.
     *
     * @return whether the batch had copies
     */
    boolean publishCopies(List<SettlementQueue.Op> batch) throws IOException {
        Set<Route> targets = new LinkedHashSet<>();
        List<Copy> copies = new ArrayList<>();
        for (SettlementQueue.Op op : batch) {
            Settlement s = op.settlement();
            RabbitDelivery d = op.delivery();
            if (s == null || d == null) {
                continue;
            }
            for (Settlement.Copy copy : s.copies()) {
                Route target = transport.copyTarget(request.topic(), d, copy);
                targets.add(target);
                copies.add(new Copy(target, RabbitMqTransport.copyProperties(d, copy), copy.payload()));
            }
        }
        for (Route target : targets) {
            if (target.isQueue()) {
                channel.queueDeclarePassive(target.routingKey());
            } else {
                channel.exchangeDeclarePassive(target.exchange());
            }
        }
        for (Copy copy : copies) {
            Route target = copy.target();
            channel.basicPublish(
                    target.exchange(), target.routingKey(), target.mandatory(), copy.properties(), copy.payload());
        }
        return !copies.isEmpty();
    }

    /** Commits the batch: its copies, acks and nacks. */
    void commit() throws IOException {
        channel.txCommit();
    }

    /** After a failed transaction on a channel still open: roll back and return the batch's deliveries. */
    void rollBack(List<SettlementQueue.Op> batch) {
        if (!channel.isOpen()) {
            return; // the broker discarded the transaction and requeued everything unacknowledged
        }
        try {
            channel.txRollback();
            for (SettlementQueue.Op op : batch) {
                channel.basicNack(op.tag(), false, true);
            }
            channel.txCommit();
        } catch (IOException | ShutdownSignalException e) {
            log.debug("rolling back the transaction of consumer {} failed: {}", request.consumerId(), e.toString());
        }
    }
}
