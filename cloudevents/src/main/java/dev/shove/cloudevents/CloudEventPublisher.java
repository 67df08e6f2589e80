package dev.shove.cloudevents;

import dev.shove.Broker;
import dev.shove.CodecException;
import dev.shove.PublishException;
import dev.shove.Publisher;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Publishes CloudEvents to {@link CloudEventTopic}s through a broker's publisher. Thread-safe and cheap to share; lives
 * as long as its broker.
 *
 * <p>Each event gets its topic's {@code type}, {@code source} and {@code subject} unless its {@link CloudEventOptions}
 * set their own, a fresh random UUID as {@code id} unless it sets one, the time of publishing as {@code time}, and its
 * data codec's content type as {@code datacontenttype}. The {@code id} is also the message's shove message id ({@value
 * ShoveHeaders#MESSAGE_ID}): {@code MessageMetadata.messageId()}, logs and dead letters name the event by it. In
 * binary mode the attributes are headers in the topic's {@link HeaderConvention}, by default the broker's ({@code
 * ce_} on Kafka, {@code cloudEvents:} on RabbitMQ, {@code ce-} elsewhere).
 *
 * <pre>{@code
 * CloudEventPublisher events = CloudEventPublisher.of(broker);
 * String id = events.publish(ORDER_EVENTS, new OrderPaid("o-1", 1299));
 * }</pre>
 *
 * @since 0.1.0
 */
public final class CloudEventPublisher {
    private final Publisher publisher;
    private final HeaderConvention brokerConvention;

    private CloudEventPublisher(Publisher publisher, HeaderConvention brokerConvention) {
        this.publisher = publisher;
        this.brokerConvention = brokerConvention;
    }

    /**
     * {@return a publisher of events through the broker's own publisher, in the broker's header convention}
     *
     * @param broker the broker the events are published on
     */
    public static CloudEventPublisher of(Broker<?> broker) {
        return of(broker, broker.publisher());
    }

    /**
     * {@return a publisher of events through another publisher of the same broker (e.g. a tracing one), in the
     * broker's header convention}
     *
     * @param broker the broker the events are published on: it names the header convention
     * @param publisher the publisher to publish through
     */
    public static CloudEventPublisher of(Broker<?> broker, Publisher publisher) {
        Objects.requireNonNull(broker, "broker");
        Objects.requireNonNull(publisher, "publisher");
        return new CloudEventPublisher(publisher, HeaderConvention.forBackend(broker.backendName()));
    }

    /**
     * Publishes one event with the topic's attributes and waits until the broker accepted it.
     *
     * @param topic the event topic
     * @param data the event's data
     * @param <T> the data type
     * @return the event's id, which is its shove message id
     * @throws PublishException when the broker refused it or could not be reached
     * @throws CodecException when the data cannot be encoded
     */
    public <T> String publish(CloudEventTopic<T> topic, T data) {
        return publish(topic, data, CloudEventOptions.none());
    }

    /**
     * Publishes one event, with what {@code options} set over the topic's attributes, and waits until the broker
     * accepted it.
     *
     * @param topic the event topic
     * @param data the event's data
     * @param options the event's own id, type, source, subject, time, extensions and headers
     * @param <T> the data type
     * @return the event's id, which is its shove message id
     * @throws PublishException when the broker refused it or could not be reached
     * @throws CodecException when the data cannot be encoded
     * @throws IllegalArgumentException when the id is not a usable message id (1 to 200 characters on one line)
     */
    public <T> String publish(CloudEventTopic<T> topic, T data, CloudEventOptions options) {
        CompletableFuture<String> result = publishAsync(topic, data, options);
        try {
            return result.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new PublishException("publishing an event to topic '" + topic.name() + "' failed: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException(
                    "interrupted while waiting for the broker to accept an event for topic '" + topic.name()
                            + "'; it may or may not have been published",
                    e);
        }
    }

    /**
     * Publishes one event without waiting.
     *
     * @param topic the event topic
     * @param data the event's data
     * @param options the event's own id, type, source, subject, time, extensions and headers
     * @param <T> the data type
     * @return completes with the event's id when the broker accepted it, or exceptionally with a {@link
     *     PublishException} or {@link CodecException}
     * @throws IllegalArgumentException when the id is not a usable message id
     */
    public <T> CompletableFuture<String> publishAsync(CloudEventTopic<T> topic, T data, CloudEventOptions options) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(options, "options");
        CloudEvent event = attributes(topic, options);
        Map<String, String> headers = new HashMap<>(options.headers());
        CompletableFuture<Void> sent;
        if (topic.mode() == CloudEventMode.BINARY) {
            HeaderConvention convention = topic.headerConvention().orElse(brokerConvention);
            headers.putAll(BinaryAttributes.write(event, convention));
            headers.put(ShoveHeaders.MESSAGE_ID, event.getId());
            sent = publisher.publishAsync(binaryTopic(topic), data, headers);
        } else {
            if (brokerConvention.contentTypeHeader()) { // where the broker has no content-type field of its own
                headers.put(HeaderConvention.CONTENT_TYPE_HEADER, CloudEventMessage.STRUCTURED_CONTENT_TYPE);
            }
            headers.put(ShoveHeaders.MESSAGE_ID, event.getId());
            sent = publisher.publishAsync(structuredTopic(topic), new CloudEventMessage<>(event, data), headers);
        }
        String id = event.getId();
        return sent.handle((ok, failure) -> {
            if (failure != null) {
                throw failure instanceof CompletionException c ? c : new CompletionException(failure);
            }
            return id;
        });
    }

    /** The event's attributes: the options' over the topic's; data is added by the mode. */
    private static CloudEvent attributes(CloudEventTopic<?> topic, CloudEventOptions options) {
        CloudEventBuilder event = CloudEventBuilder.v1()
                .withId(options.id().orElseGet(() -> UUID.randomUUID().toString()))
                .withType(options.type().orElse(topic.type()))
                .withSource(options.source().orElse(topic.source()))
                .withTime(options.time().orElseGet(() -> OffsetDateTime.now(ZoneOffset.UTC)))
                .withDataContentType(topic.dataCodec().contentType());
        String subject = options.subject().orElse(topic.subject().orElse(null));
        if (subject != null) {
            event.withSubject(subject);
        }
        URI schema = topic.dataSchema().orElse(null);
        if (schema != null) {
            event.withDataSchema(schema);
        }
        options.extensions().forEach(event::withExtension);
        return event.build();
    }

    @SuppressWarnings("unchecked") // a binary event topic's topic is over its data type
    private static <T> Topic<T> binaryTopic(CloudEventTopic<T> topic) {
        return (Topic<T>) topic.topic();
    }

    @SuppressWarnings("unchecked") // a structured event topic's topic is over CloudEventMessage<T>
    private static <T> Topic<CloudEventMessage<T>> structuredTopic(CloudEventTopic<T> topic) {
        return (Topic<CloudEventMessage<T>>) topic.topic();
    }
}
