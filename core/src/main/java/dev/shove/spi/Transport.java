package dev.shove.spi;

import dev.shove.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One connection to one broker: the whole of what a backend implements. A {@link dev.shove.Broker} owns exactly one
 * transport, created by its {@link dev.shove.BrokerConfig}, and closes it when the broker closes.
 *
 * <p><b>Contract.</b> A transport translates; it never decides. The engine hands it bytes and headers to publish,
 * receives deliveries from its {@link Subscription subscriptions}, and tells it how to {@link Settlement settle} each
 * one. In particular a transport never interprets {@link dev.shove.ShoveHeaders shove headers} beyond carrying them
 * faithfully (every header, every hop), except where a method here says so.
 *
 * <p><b>Threading.</b> Every method may be called from any thread, concurrently. Declaring and publishing block the
 * caller (a virtual thread, usually) until the broker has answered.
 *
 * <p><b>Errors.</b> Throw {@link dev.shove.BrokerUnavailableException} when the broker cannot be reached, {@link
 * dev.shove.AuthenticationException} when it refuses the credentials or the TLS handshake fails on trust or host name,
 * {@link dev.shove.TopologyException} when broker objects are missing or conflict, and {@link
 * dev.shove.PublishException} when a message is refused. Messages name the queue or topic and what the user can do.
 *
 * @since 0.1.0
 */
public interface Transport extends AutoCloseable {

    /** {@return a short lower-case name for logs and metric tags: {@code memory}, {@code kafka}, {@code rabbitmq}} */
    String name();

    /**
     * {@return what this transport can do; the engine and the conformance kit adapt to it} Constant for its lifetime.
     */
    Capabilities capabilities();

    /**
     * Creates the broker objects of a topic if they do not exist: its main queue (or shards), hold tiers and
     * dead-letter queue. Idempotent; safe to call on every start. An existing object whose settings conflict with the
     * topic (a hold tier with another delay, fewer partitions than shards) is an error naming the object and what
     * differs, never a silent mismatch.
     *
     * @param topic the topic whose broker objects to create
     * @throws dev.shove.TopologyException when an object exists with conflicting settings or cannot be created
     */
    void declare(Topic<?> topic);

    /**
     * The names of the broker objects a topic's declaration creates or uses, each with its role ({@code queue},
     * {@code shard}, {@code hold tier}, {@code dead-letter queue}), as this broker spells them. The engine refuses a
     * declaration whose objects another topic already owns (a topic {@code X-dlq} beside topic {@code X}'s
     * dead-letter queue), so a backend whose broker maps names onto fewer (NATS streams turn {@code .} into
     * {@code _}) adds the mapped names. The default names every object by its logical name: the topic, its shards,
     * its hold tiers (per shard too) and its dead-letter queue.
     *
     * @param topic the topic about to be declared
     * @return object name to role, in a stable order
     * @since 0.1.0
     */
    default Map<String, String> objectNames(Topic<?> topic) {
        Map<String, String> names = new LinkedHashMap<>();
        names.put(topic.name(), "queue");
        topic.holdTiers().forEach(t -> names.putIfAbsent(t.queue(), "hold tier"));
        topic.sequencing().ifPresent(s -> {
            for (int i = 0; i < s.routingShards(); i++) {
                names.putIfAbsent(topic.shardName(i), "shard");
                topic.shardHoldTiers(i).forEach(t -> names.putIfAbsent(t.queue(), "hold tier"));
            }
        });
        topic.dlq().ifPresent(d -> names.putIfAbsent(d, "dead-letter queue"));
        return names;
    }

    /**
     * Publishes one message to a topic and completes when the broker has durably accepted it (confirmed, acked,
     * persisted), or exceptionally with a {@link dev.shove.PublishException} saying why not. For a sequenced topic
     * the message carries its {@link OutboundMessage#key() key} and {@link OutboundMessage#shard() shard}.
     *
     * @param topic a declared topic
     * @param message the encoded message with its headers
     * @return completes once the broker durably accepted the message
     */
    CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message);

    /**
     * Publishes several messages to one topic; element {@code i} of the result completes when message {@code i} is
     * accepted or refused. The default publishes one by one; backends with a batch primitive override it.
     *
     * @param topic a declared topic
     * @param messages the encoded messages, in publish order
     * @return one future per message, in the same order
     */
    default List<CompletableFuture<Void>> publishAll(Topic<?> topic, List<OutboundMessage> messages) {
        List<CompletableFuture<Void>> results = new ArrayList<>(messages.size());
        for (OutboundMessage m : messages) {
            results.add(publish(topic, m));
        }
        return results;
    }

    /**
     * Starts consuming: the transport delivers messages to {@code sink} until the subscription is paused or closed.
     * See {@link Subscription} for the flow-control contract ({@link SubscriptionRequest#window()}).
     *
     * @param request what to consume (topic, group, window, start position)
     * @param sink receives the deliveries and the subscription's failures
     * @return the running subscription; close it to stop
     * @throws dev.shove.TopologyException when the queue does not exist
     */
    Subscription subscribe(SubscriptionRequest request, DeliverySink sink);

    /**
     * Starts a consumption that the engine feeds itself instead of the broker: a registration's own dead letters,
     * handed to {@code handleDead} as they are stored ({@link SubscriptionRequest.Source#DEAD_LETTER}, with {@link
     * dev.shove.DeadLetterHandling#KEEP}). Settling its deliveries settles nothing on the broker. A transport has
     * nothing to do here, and the default returns {@code source.apply(sink)}; one that observes every consumption (a
     * recording wrapper in tests) wraps the sink and the subscription as it would in {@link #subscribe}.
     *
     * @param request what the consumption is for
     * @param sink receives the deliveries
     * @param source opens the engine's own subscription on a sink
     * @return the running subscription
     */
    default Subscription subscribeLocal(
            SubscriptionRequest request, DeliverySink sink, Function<DeliverySink, Subscription> source) {
        return source.apply(sink);
    }

    /**
     * How many messages wait in a topic's queue (all shards together) and how many are delivered but not yet
     * settled, as far as the broker knows; feeds the autoscaler. Best effort and may be slightly stale.
     *
     * @param topic a declared topic
     * @return the topic's backlog and in-flight counts
     */
    QueueStats stats(Topic<?> topic);

    /**
     * Like {@link #stats(Topic)}, as consumer group {@code group} sees the topic: on brokers where each group has a
     * position of its own in a topic (Kafka, NATS, Redis Streams), its lag and its unacknowledged messages. The engine
     * asks this one (the autoscaler and backlog gauges are per registration); the default answers {@link
     * #stats(Topic)}, right for brokers whose groups compete for one queue.
     *
     * @param topic a declared topic
     * @param group the consumer group's name
     * @return the backlog and in-flight counts that group sees
     */
    default QueueStats stats(Topic<?> topic, String group) {
        return stats(topic);
    }

    /**
     * The dead-letter queue of a topic as consumer group {@code group} sees it, for counting, reading, replaying and
     * purging dead letters.
     *
     * @param topic a topic with a dead-letter queue (the engine refuses one without before it asks)
     * @param group the consumer group's name
     * @return the store of that topic's dead letters, as {@code group} sees them
     * @throws UnsupportedOperationException when this backend cannot read dead letters apart from consuming them
     */
    default DeadLetterStore deadLetters(Topic<?> topic, String group) {
        throw new UnsupportedOperationException("the " + name() + " backend cannot read dead letters");
    }

    /**
     * This transport as {@code type} (for a backend's own tools, such as the in-memory broker's probe), or empty. A
     * transport that decorates another (recording, tracing) passes the call on to the one it wraps.
     *
     * @param type the class asked for
     * @param <T> that type
     * @return this transport (or the one it wraps) as {@code type}; empty when none is of that type
     */
    default <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
    }

    /**
     * One real round trip to the broker.
     *
     * @param timeout how long to wait for the answer
     * @throws dev.shove.BrokerUnavailableException when the broker does not answer within {@code timeout}
     */
    void ping(Duration timeout);

    /** Closes the connection. Idempotent. Publishes still waiting fail with a {@link dev.shove.PublishException}. */
    @Override
    void close();
}
