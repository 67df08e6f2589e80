package dev.shove.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.shove.BrokerUnavailableException;
import dev.shove.HoldTier;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.DurationText;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker objects of a topic and their declaration. Every queue is durable and declared idempotently; an existing
 * queue with other arguments makes the broker refuse the declaration ({@code 406 PRECONDITION_FAILED}), which becomes
 * a {@link TopologyException} naming the queue, the arguments shove wants and what the broker says differs.
 *
 * <pre>
 * plain topic      {name}                     no arguments
 *                  {name}-hold-{d}            x-message-ttl = d, dead-letters to "" / {name}
 *                  {dlq}                      no arguments
 * sequenced topic  {name}-seq-{i}             x-single-active-consumer = true         (i = 0..shards-1)
 *                  {name}-seq-{i}-hold-{d}    x-message-ttl = d, dead-letters to "" / {name}-seq-{i}
 *                  {dlq}                      no arguments
 * broadcast topic  exchange {name}-broadcast  fanout, durable; no queue: each subscription binds its own
 * </pre>
 *
 * With {@link RabbitMqConfig#isQuorumQueues() quorum queues} every queue also has {@code x-queue-type = quorum}, and
 * a hold tier dead-letters {@code at-least-once} (the broker keeps an expired message until the queue it returns to
 * has confirmed it; that strategy needs {@code x-overflow = reject-publish}), so a message cannot be lost on its way
 * back from a hold tier.
 *
 * One hold queue per tier because RabbitMQ expires messages only at the head of a queue: a queue mixing delays would
 * hold a short delay behind a long one. Publishers route a sequenced message straight to its shard by the core's
 * FNV-1a hash of the key (see {@code docs/backends/rabbitmq.md} for why there is no consistent-hash exchange).
 *
 * <p>A broadcast topic's exchange carries a suffix although exchanges and queues are separate namespaces: an
 * application's own exchange named like one of its plain topics (a common RabbitMQ layout, exchange {@code orders}
 * routing to queue {@code orders}) must not look like a broadcast topic of that name.
 */
final class RabbitTopology {
    private static final Logger log = LoggerFactory.getLogger(RabbitTopology.class);

    /** RabbitMQ's default {@code consumer_timeout}: an unacknowledged delivery older than this closes its channel. */
    static final Duration DEFAULT_CONSUMER_TIMEOUT = Duration.ofMinutes(30);

    static final String TTL = "x-message-ttl";
    static final String DLX = "x-dead-letter-exchange";
    static final String DLX_ROUTING_KEY = "x-dead-letter-routing-key";
    static final String SINGLE_ACTIVE_CONSUMER = "x-single-active-consumer";
    static final String QUEUE_TYPE = "x-queue-type";
    static final String DEAD_LETTER_STRATEGY = "x-dead-letter-strategy";
    static final String OVERFLOW = "x-overflow";

    /** What follows a broadcast topic's name in the name of its fanout exchange. */
    static final String BROADCAST_SUFFIX = "-broadcast";

    /** One queue of a topic and the arguments it is declared with. */
    record QueueSpec(String name, String role, Map<String, Object> arguments) {}

    private final Connection connection;
    private final String vhost;
    private final boolean quorum;

    RabbitTopology(Connection connection, String vhost, boolean quorum) {
        this.connection = connection;
        this.vhost = vhost;
        this.quorum = quorum;
    }

    /** The fanout exchange of a broadcast topic: {@code {name}-broadcast}. */
    static String broadcastExchange(Topic<?> topic) {
        return topic.name() + BROADCAST_SUFFIX;
    }

    /** The classic queues of a topic (their names are the same for quorum queues); see {@link #queues(Topic, boolean)}. */
    static List<QueueSpec> queues(Topic<?> topic) {
        return queues(topic, false);
    }

    /**
     * The durable queues of a topic, in declaration order: DLQ, main queue or shards, then hold tiers. None for a
     * broadcast topic, whose queues belong to its subscriptions.
     */
    static List<QueueSpec> queues(Topic<?> topic, boolean quorum) {
        List<QueueSpec> specs = new ArrayList<>();
        if (topic.isBroadcast()) {
            return specs;
        }
        topic.dlq().ifPresent(dlq -> specs.add(new QueueSpec(dlq, "dead-letter queue", typed(Map.of(), quorum))));
        topic.sequencing()
                .ifPresentOrElse(
                        s -> {
                            for (int i = 0; i < s.routingShards(); i++) {
                                specs.add(new QueueSpec(
                                        topic.shardName(i),
                                        "shard " + i,
                                        typed(Map.of(SINGLE_ACTIVE_CONSUMER, true), quorum)));
                            }
                            for (int i = 0; i < s.routingShards(); i++) {
                                for (HoldTier tier : topic.shardHoldTiers(i)) {
                                    specs.add(holdSpec(tier, topic.shardName(i), quorum));
                                }
                            }
                        },
                        () -> {
                            specs.add(new QueueSpec(topic.name(), "main queue", typed(Map.of(), quorum)));
                            for (HoldTier tier : topic.holdTiers()) {
                                specs.add(holdSpec(tier, topic.name(), quorum));
                            }
                        });
        return specs;
    }

    private static QueueSpec holdSpec(HoldTier tier, String returnsTo, boolean quorum) {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put(TTL, tier.delay().toMillis());
        args.put(DLX, "");
        args.put(DLX_ROUTING_KEY, returnsTo);
        if (quorum) {
            args.put(DEAD_LETTER_STRATEGY, "at-least-once");
            args.put(OVERFLOW, "reject-publish");
        }
        return new QueueSpec(
                tier.queue(),
                "hold tier of " + tier.delay().toMillis() + " ms returning to '" + returnsTo + "'",
                typed(args, quorum));
    }

    /** A queue's arguments with {@code x-queue-type = quorum} first when quorum queues are asked for. */
    private static Map<String, Object> typed(Map<String, Object> arguments, boolean quorum) {
        if (!quorum) {
            return arguments;
        }
        Map<String, Object> args = new LinkedHashMap<>();
        args.put(QUEUE_TYPE, "quorum");
        args.putAll(arguments);
        return args;
    }

    void declare(Topic<?> topic) {
        checkShape(topic);
        if (topic.isBroadcast()) {
            declareExchange(topic);
            return;
        }
        topic.sequencing().ifPresent(s -> checkShardCount(topic, s.routingShards()));
        warnAboutConsumerTimeout(topic);
        Channel channel = open(topic);
        try {
            for (QueueSpec spec : queues(topic, quorum)) {
                try {
                    channel.queueDeclare(spec.name(), true, false, false, spec.arguments());
                } catch (IOException | ShutdownSignalException e) {
                    throw failure(topic, spec, e);
                }
            }
        } finally {
            closeQuietly(channel);
        }
    }

    /** The three shapes a topic can have on RabbitMQ, each with the broker object that shows it was declared so. */
    private enum Shape {
        PLAIN("plain (not sequenced)"),
        SEQUENCED("sequenced"),
        BROADCAST("broadcast");

        final String description;

        Shape(String description) {
            this.description = description;
        }

        static Shape of(Topic<?> topic) {
            return topic.isBroadcast() ? BROADCAST : topic.isSequenced() ? SEQUENCED : PLAIN;
        }

        /** The object only this shape declares: the main queue, the first shard, or the fanout exchange. */
        String evidence(Topic<?> topic) {
            return switch (this) {
                case PLAIN -> "queue '" + topic.name() + "'";
                case SEQUENCED -> "queue '" + topic.shardName(0) + "'";
                case BROADCAST -> "exchange '" + broadcastExchange(topic) + "'";
            };
        }
    }

    /**
     * Refuses to change a topic's shape (plain, sequenced, broadcast): each shape has differently named objects, so
     * the broker alone would accept any of them, and messages in the old shape's queues would never be consumed (or,
     * for a former broadcast topic, publishers still using its exchange would reach only its old subscribers).
     */
    private void checkShape(Topic<?> topic) {
        Shape declared = Shape.of(topic);
        for (Shape other : Shape.values()) {
            if (other != declared && existsAs(topic, other)) {
                throw new TopologyException(("topic '%s' is declared %s, but %s exists: the topic was declared %s"
                                + " before. A topic cannot change shape in place; drain and delete the old %s, or"
                                + " use another topic name")
                        .formatted(
                                topic.name(),
                                declared.description,
                                other.evidence(topic),
                                other.description,
                                other == Shape.BROADCAST ? "exchange" : "queues"));
            }
        }
    }

    private boolean existsAs(Topic<?> topic, Shape shape) {
        return switch (shape) {
            case PLAIN -> exists(topic, topic.name());
            case SEQUENCED -> exists(topic, topic.shardName(0));
            case BROADCAST -> exchangeExists(topic);
        };
    }

    /** Declares a broadcast topic's durable fanout exchange; one of another type or settings is refused. */
    private void declareExchange(Topic<?> topic) {
        String exchange = broadcastExchange(topic);
        Channel channel = open(topic);
        try {
            channel.exchangeDeclare(exchange, BuiltinExchangeType.FANOUT, true, false, false, Map.of());
        } catch (IOException | ShutdownSignalException e) {
            AMQP.Channel.@Nullable Close close = channelClose(e);
            if (close != null && close.getReplyCode() == AMQP.PRECONDITION_FAILED) {
                throw new TopologyException(("exchange '%s' (of broadcast topic '%s') already exists on RabbitMQ"
                                + " (vhost '%s') with other settings than the topic declares: fanout, durable, not"
                                + " auto-delete, no arguments. The broker says: %s. Delete the exchange (it is"
                                + " recreated on the next declare), or use another topic name")
                        .formatted(exchange, topic.name(), vhost, close.getReplyText()));
            }
            if (close != null && close.getReplyCode() == AMQP.ACCESS_REFUSED) {
                throw new TopologyException(("RabbitMQ refused to declare exchange '%s' of broadcast topic '%s' in"
                                + " vhost '%s': %s. Give the user 'configure' permission on it, or declare it"
                                + " beforehand (fanout, durable)")
                        .formatted(exchange, topic.name(), vhost, close.getReplyText()));
            }
            if (close != null) {
                throw new TopologyException("declaring exchange '%s' of broadcast topic '%s' failed: %d %s"
                        .formatted(exchange, topic.name(), close.getReplyCode(), close.getReplyText()));
            }
            throw new BrokerUnavailableException(
                    "declaring exchange '" + exchange + "' of topic '" + topic.name() + "' failed: " + e, e);
        } finally {
            closeQuietly(channel);
        }
    }

    /**
     * Refuses to shrink a sequenced topic: a shard beyond the declared count would keep its messages, unconsumed, and
     * keys would move to other shards while older messages of theirs wait there.
     */
    private void checkShardCount(Topic<?> topic, int shards) {
        String beyond = topic.shardName(shards);
        if (exists(topic, beyond)) {
            throw new TopologyException(("sequenced topic '%s' declares %d shards, but queue '%s' exists: the topic"
                            + " was declared with more shards before. Messages there would never be consumed and"
                            + " keys would change shards. Keep routingShards at its old value, or drain and delete"
                            + " the shards from '%s' on")
                    .formatted(topic.name(), shards, beyond, beyond));
        }
    }

    /** Whether a queue exists (a passive declare; a missing queue closes the channel it was asked on). */
    boolean exists(Topic<?> topic, String queue) {
        return passivelyDeclared(topic, "queue", queue, channel -> channel.queueDeclarePassive(queue));
    }

    /** Whether the fanout exchange of a broadcast topic (or of the topic, were it one) exists. */
    boolean exchangeExists(Topic<?> topic) {
        String exchange = broadcastExchange(topic);
        return passivelyDeclared(topic, "exchange", exchange, channel -> channel.exchangeDeclarePassive(exchange));
    }

    /** A passive declare on a channel of its own: true if the object exists, false if the broker says NOT_FOUND. */
    private boolean passivelyDeclared(Topic<?> topic, String kind, String name, PassiveDeclare declare) {
        Channel channel = open(topic);
        try {
            declare.on(channel);
            return true;
        } catch (IOException | ShutdownSignalException e) {
            AMQP.Channel.@Nullable Close close = channelClose(e);
            if (close != null && close.getReplyCode() == AMQP.NOT_FOUND) {
                return false;
            }
            throw new BrokerUnavailableException(
                    "checking " + kind + " '" + name + "' of topic '" + topic.name() + "' on RabbitMQ failed: " + e, e);
        } finally {
            closeQuietly(channel);
        }
    }

    @FunctionalInterface
    private interface PassiveDeclare {
        void on(Channel channel) throws IOException;
    }

    private static void warnAboutConsumerTimeout(Topic<?> topic) {
        if (!topic.isSequenced()) {
            return;
        }
        Duration longest = topic.holdTiers().getLast().delay();
        if (longest.compareTo(DEFAULT_CONSUMER_TIMEOUT) >= 0) {
            log.warn(
                    "sequenced topic '{}' has a {} retry tier; its retries wait unacknowledged on the consumer, and"
                            + " RabbitMQ closes a channel whose delivery stays unacknowledged longer than"
                            + " consumer_timeout (30 min by default). Raise consumer_timeout above the longest tier"
                            + " or shorten the tier",
                    topic.name(),
                    DurationText.of(longest));
        }
    }

    private Channel open(Topic<?> topic) {
        try {
            Channel channel = connection.createChannel();
            if (channel == null) {
                throw new BrokerUnavailableException(
                        "RabbitMQ refused a channel for declaring topic '" + topic.name() + "': channel limit reached");
            }
            return channel;
        } catch (IOException | ShutdownSignalException e) {
            throw new BrokerUnavailableException(
                    "cannot open a channel to declare topic '" + topic.name() + "': the RabbitMQ connection is down ("
                            + describe(e) + "); it recovers by itself, declare again later",
                    e);
        }
    }

    private RuntimeException failure(Topic<?> topic, QueueSpec spec, Exception e) {
        AMQP.Channel.@Nullable Close close = channelClose(e);
        if (close != null
                && close.getReplyCode() == AMQP.PRECONDITION_FAILED
                && close.getReplyText().contains("'" + QUEUE_TYPE + "'")) {
            String wanted = quorum ? "quorum" : "classic";
            String existing = quorum ? "classic" : "quorum";
            return new TopologyException(("queue '%s' (%s of topic '%s') already exists on RabbitMQ (vhost '%s') as a"
                            + " %s queue, but this broker config declares %s queues%s. The broker says: %s. A queue"
                            + " cannot change its type in place: drain and delete the queue (the next declare"
                            + " recreates it as a %s queue), or keep %s queues (%s)")
                    .formatted(
                            spec.name(),
                            spec.role(),
                            topic.name(),
                            vhost,
                            existing,
                            wanted,
                            quorum ? " (RabbitMqConfig.Builder.quorumQueues())" : "",
                            close.getReplyText(),
                            wanted,
                            existing,
                            quorum
                                    ? "remove quorumQueues() from the RabbitMqConfig"
                                    : "add quorumQueues() to the RabbitMqConfig"));
        }
        if (close != null && close.getReplyCode() == AMQP.PRECONDITION_FAILED) {
            return new TopologyException(("queue '%s' (%s of topic '%s') already exists on RabbitMQ (vhost '%s') with"
                            + " other settings than the topic declares: durable, arguments %s. The broker says: %s."
                            + " Queue arguments cannot change in place: drain and delete the queue (it is recreated"
                            + " on the next declare), or declare the topic as it was")
                    .formatted(spec.name(), spec.role(), topic.name(), vhost, spec.arguments(), close.getReplyText()));
        }
        if (close != null && close.getReplyCode() == AMQP.ACCESS_REFUSED) {
            return new TopologyException(("RabbitMQ refused to declare queue '%s' of topic '%s' in vhost '%s': %s."
                            + " Give the user 'configure' permission on these queues, or declare them beforehand")
                    .formatted(spec.name(), topic.name(), vhost, close.getReplyText()));
        }
        if (close != null) {
            return new TopologyException("declaring queue '%s' of topic '%s' failed: %d %s"
                    .formatted(spec.name(), topic.name(), close.getReplyCode(), close.getReplyText()));
        }
        return new BrokerUnavailableException(
                "declaring queue '" + spec.name() + "' of topic '" + topic.name() + "' failed: " + e, e);
    }

    /** The broker's channel.close behind a failed channel operation, if that is what failed it. */
    static AMQP.Channel.@Nullable Close channelClose(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s && s.getReason() instanceof AMQP.Channel.Close close) {
                return close;
            }
        }
        return null;
    }

    /** A client exception in words: the broker's reply when it closed the channel or connection, else the exception. */
    static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s) {
                if (s.getReason() instanceof AMQP.Channel.Close close) {
                    return "channel closed by the broker: " + close.getReplyCode() + " " + close.getReplyText();
                }
                if (s.getReason() instanceof AMQP.Connection.Close close) {
                    return "connection closed: " + close.getReplyCode() + " " + close.getReplyText();
                }
                return s.isHardError() ? "connection lost" : "channel lost";
            }
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    static void closeQuietly(Channel channel) {
        if (!channel.isOpen()) {
            return;
        }
        try {
            channel.close();
        } catch (IOException | TimeoutException | ShutdownSignalException e) {
            log.debug("closing a RabbitMQ channel failed: {}", e.toString());
        }
    }
}
