package dev.shove.spi;

import dev.shove.BackendGroupSettings;
import dev.shove.Position;
import dev.shove.Topic;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What the engine asks a transport to consume.
 *
 * @param topic the topic
 * @param source which of the topic's queues to read
 * @param group the consumer group's name: consumers of one group compete for messages (Kafka group id, SQS queue,
 *     durable consumer name); by default the topic's name
 * @param consumerId unique per subscription within the process, e.g. {@code orders-2}; for connection and thread names
 * @param window the most deliveries the transport may have handed to the sink and not yet seen settled (by {@link
 *     Subscription#settle}); the transport must never exceed it, and should keep it full while messages wait
 * @param startAt where a log-like subscription starts, forced on every start; null for the broker's default (a
 *     group's stored position, or the tail for a new one)
 * @param handlerTimeout how long the engine lets a handler run before it takes the delivery over (and settles or
 *     returns it); null when handlers run without a timeout. A transport whose broker redelivers what stays
 *     unacknowledged too long (a visibility timeout, an ack wait, an idle claim) derives that time from it, or keeps
 *     unsettled deliveries leased while they wait
 * @param settings the group's settings of this backend's own ({@link #settings(Class)}), or null
 * @since 0.1.0
 */
public record SubscriptionRequest(
        Topic<?> topic,
        Source source,
        String group,
        String consumerId,
        int window,
        @Nullable Position startAt,
        @Nullable Duration handlerTimeout,
        @Nullable BackendGroupSettings settings) {

    /** Which queue of a topic a subscription reads. */
    public enum Source {
        /** The main queue, or every shard of a sequenced topic; for a broadcast topic, this subscriber's own feed. */
        MAIN,
        /** The dead-letter queue. */
        DEAD_LETTER
    }

    /**
     * Checks the components; see the class description.
     *
     * @param topic the topic
     * @param source which of the topic's queues to read
     * @param group the consumer group's name: consumers of one group compete for messages (Kafka group id, SQS queue,
     *     durable consumer name); by default the topic's name
     * @param consumerId unique per subscription within the process, e.g. {@code orders-2}; for connection and thread
     *     names
     * @param window the most deliveries the transport may have handed to the sink and not yet seen settled (by {@link
     *     Subscription#settle}); the transport must never exceed it, and should keep it full while messages wait
     * @param startAt where a log-like subscription starts, forced on every start; null for the broker's default (a
     *     group's stored position, or the tail for a new one)
     * @param handlerTimeout how long the engine lets a handler run before it takes the delivery over (and settles or
     *     returns it); null when handlers run without a timeout. A transport whose broker redelivers what stays
     *     unacknowledged too long (a visibility timeout, an ack wait, an idle claim) derives that time from it, or
     *     keeps unsettled deliveries leased while they wait
     * @param settings the group's settings of this backend's own ({@link #settings(Class)}), or null
     */
    public SubscriptionRequest {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(consumerId, "consumerId");
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1, was " + window);
        }
        if (source == Source.DEAD_LETTER && topic.dlq().isEmpty()) {
            throw new IllegalArgumentException(topic + " has no dead-letter queue to subscribe to");
        }
    }

    /**
     * A request with the broker's default start, no handler timeout and no backend settings.
     *
     * @param topic the topic
     * @param source which of the topic's queues to read
     * @param group the consumer group's name
     * @param consumerId unique per subscription within the process
     * @param window the most unsettled deliveries, at least 1
     */
    public SubscriptionRequest(Topic<?> topic, Source source, String group, String consumerId, int window) {
        this(topic, source, group, consumerId, window, null, null, null);
    }

    /**
     * {@return the group's settings of this backend's own, when they are of {@code type}; empty otherwise}
     *
     * @param type the backend's settings class, e.g. {@code KafkaGroupSettings.class}
     * @param <S> that type
     */
    public <S extends BackendGroupSettings> Optional<S> settings(Class<S> type) {
        return type.isInstance(settings) ? Optional.of(type.cast(settings)) : Optional.empty();
    }

    /** {@return the broker-side name of the queue this subscription reads (the main queue or the DLQ)} */
    public String queue() {
        return source == Source.MAIN ? topic.name() : topic.dlq().orElseThrow();
    }
}
