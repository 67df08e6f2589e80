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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer of a group: one AMQP channel consuming one queue (or every shard of a sequenced topic), with {@code
 * basic.qos} set to the request's window so that the broker never has more deliveries out than the engine allows. It
 * owns the channel's lifecycle (open, consume, recovery, pause, close) and the client's consumer callbacks. What the
 * channel has outstanding, and the settlements waiting to be written, are its {@link SettlementQueue}'s; its {@link
 * AckFlusher} writes them.
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
 *
 * <p>Thread-safe: the engine settles, pauses and closes from its threads, the client calls the consumer and shutdown
 * callbacks from its own; only the flusher thread writes settlements to the channel.
 */
final class RabbitSubscription implements Subscription {
    private static final Logger log = LoggerFactory.getLogger(RabbitSubscription.class);

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

    private final RabbitMqTransport transport;
    private final SubscriptionRequest request;
    private final DeliverySink sink;
    private final Channel channel;
    private final boolean broadcast;
    private final boolean quorum;
    private final List<Source> sources;
    private final SettlementQueue settlements;
    private final AckFlusher flusher;

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
        this.broadcast = request.topic().isBroadcast();
        this.sources = sources;
        this.quorum = quorum(transport, request);
        this.settlements = new SettlementQueue(transport, request, sink, transactional, quorum);
        this.flusher = new AckFlusher(settlements, channel, transport, request, sink, transactional, queues());
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
            if (quorum(transport, request) && request.window() < queues.size()) {
                throw new IllegalArgumentException(("consumer %s of sequenced topic '%s' has a window of %d"
                                + " message(s) (prefetch plus lane buffer) for %d shards: on quorum queues each shard"
                                + " needs a prefetch of its own of at least 1 (they refuse a prefetch shared by the"
                                + " channel). Raise laneBuffer or prefetch so that they add up to at least %d, or"
                                + " lower the topic's routingShards")
                        .formatted(request.consumerId(), topic.name(), request.window(), queues.size(), queues.size()));
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
            if (queues.size() > 1 && quorum(transport, request)) {
                // Quorum queues refuse a channel-wide limit (basic.qos global, a connection error): each shard's
                // consumer gets an equal share, so that together they never exceed the window. Equal, because
                // connection recovery re-applies one per-consumer limit to every consumer it recovers.
                channel.basicQos(request.window() / queues.size(), false);
            } else {
                // One queue: the limit per consumer. Several shards on one channel: one limit shared by all of them.
                channel.basicQos(request.window(), queues.size() > 1);
            }
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

    /** Whether the subscription reads quorum queues: a broadcast subscription's own queue is always classic. */
    private static boolean quorum(RabbitMqTransport transport, SubscriptionRequest request) {
        return transport.config().isQuorumQueues() && !request.topic().isBroadcast();
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
            settlements.abort();
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
        flusher.queuesRenamed(queues());
        log.info(
                "consumer {} of broadcast topic '{}' has a new queue '{}' (was '{}'); what was published while the"
                        + " connection was down did not reach it",
                request.consumerId(),
                request.topic().name(),
                newName,
                oldName);
    }

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        if (!(delivery instanceof RabbitDelivery d) || d.subscription != this) {
            callback.settled(new IllegalArgumentException(
                    "delivery " + delivery.deliveryId() + " does not belong to consumer " + request.consumerId()));
            return;
        }
        settlements.settle(d, settlement, callback);
    }

    // ---------------------------------------------------------------- channel lifecycle

    private void onShutdown(ShutdownSignalException cause) {
        int newEpoch = settlements.channelLost(tagBoundary());
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
        if (!settlements.stopIntake()) {
            return;
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
        if (settlements.isClosing()) {
            return;
        }
        pause();
        flusher.close();
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

    /** The client's callbacks for one consumed queue (its dispatch threads). */
    private final class SourceConsumer implements Consumer {
        private final Source source;

        SourceConsumer(Source source) {
            this.source = source;
        }

        @Override
        public void handleDelivery(
                String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
            long tag = envelope.getDeliveryTag();
            settlements.deliver(
                    tag,
                    epoch -> new RabbitDelivery(
                            RabbitSubscription.this,
                            tag,
                            epoch,
                            source.queue,
                            source.shard,
                            envelope.isRedeliver(),
                            quorum,
                            properties,
                            body));
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
