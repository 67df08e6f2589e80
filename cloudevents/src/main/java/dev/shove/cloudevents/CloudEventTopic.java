package dev.shove.cloudevents;

import dev.shove.Codec;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import io.cloudevents.CloudEventContext;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A topic whose messages are CloudEvents: a shove {@link Topic} (its name, hold tiers, dead-letter queue and ordering
 * stay the topic's), the {@link CloudEventMode mode} they travel in, and the {@code type}, {@code source} and
 * optional {@code subject} every event of the topic gets unless it sets its own ({@link CloudEventOptions}). Immutable
 * and thread-safe; declare it once, as a constant.
 *
 * <pre>{@code
 * static final Topic<OrderPaid> ORDERS = Topic.builder("orders", OrderPaid.class).dlq().build();
 * static final CloudEventTopic<OrderPaid> ORDER_EVENTS = CloudEventTopic.binary(ORDERS)
 *         .type("com.acme.order.paid")
 *         .source(URI.create("/orders"))
 *         .build();
 *
 * ORDER_EVENTS.register(group, () -> (order, event, meta, ctx) -> Outcome.ack());
 * CloudEventPublisher.of(broker).publish(ORDER_EVENTS, new OrderPaid("o-1", 1299));
 * }</pre>
 *
 * <p>Binary mode uses the topic as it is: its codec encodes the data and its content type is the events' {@code
 * datacontenttype}. Structured mode takes a topic over {@link CloudEventMessage} with {@link
 * CloudEventMessage#structuredCodec}; the data codec inside it gives the {@code datacontenttype}.
 *
 * @param <T> the data type
 * @since 0.1.0
 */
public final class CloudEventTopic<T> {
    private final CloudEventMode mode;
    private final @Nullable Topic<T> binary;
    private final @Nullable Topic<CloudEventMessage<T>> structured;
    private final Codec<T> dataCodec;
    private final String type;
    private final URI source;
    private final @Nullable String subject;
    private final @Nullable URI dataSchema;
    private final @Nullable HeaderConvention headerConvention;

    private CloudEventTopic(Builder<T> b, String type, URI source) {
        this.mode = b.mode;
        this.binary = b.binary;
        this.structured = b.structured;
        this.dataCodec = b.dataCodec;
        this.type = type;
        this.source = source;
        this.subject = b.subject;
        this.dataSchema = b.dataSchema;
        this.headerConvention = b.headerConvention;
    }

    /**
     * Starts an event topic in binary mode: the payload is the data, encoded by the topic's codec, and the attributes
     * are headers.
     *
     * @param topic the shove topic, over the data type
     * @param <T> the data type
     * @return a builder; {@code type} and {@code source} are required
     */
    public static <T> Builder<T> binary(Topic<T> topic) {
        Objects.requireNonNull(topic, "topic");
        return new Builder<>(CloudEventMode.BINARY, topic, null, topic.codec());
    }

    /**
     * Starts an event topic in structured mode: the payload is the whole event in the JSON event format.
     *
     * @param topic a shove topic built with {@link CloudEventMessage#structuredCodec}
     * @param <T> the data type
     * @return a builder; {@code type} and {@code source} are required
     * @throws IllegalArgumentException when the topic's codec is not a structured CloudEvents codec
     */
    public static <T> Builder<T> structured(Topic<CloudEventMessage<T>> topic) {
        Objects.requireNonNull(topic, "topic");
        if (!(topic.codec() instanceof StructuredCodec<T> codec)) {
            throw new IllegalArgumentException(("topic '%s' has codec %s; a structured CloudEvents topic needs"
                            + " CloudEventMessage.structuredCodec(...): Topic.builder(\"%s\","
                            + " CloudEventMessage.structuredCodec(Data.class))")
                    .formatted(topic.name(), topic.codec().name(), topic.name()));
        }
        return new Builder<>(CloudEventMode.STRUCTURED, null, topic, codec.dataCodec());
    }

    /** {@return the shove topic the events travel on: declare it, inspect its dead letters, seek it} */
    public Topic<?> topic() {
        return binary != null ? binary : Objects.requireNonNull(structured);
    }

    /** {@return the topic's name} */
    public String name() {
        return topic().name();
    }

    /** {@return how the events travel} */
    public CloudEventMode mode() {
        return mode;
    }

    /** {@return the codec of the events' data; its content type is their {@code datacontenttype}} */
    public Codec<T> dataCodec() {
        return dataCodec;
    }

    /** {@return the events' {@code type} unless one sets its own} */
    public String type() {
        return type;
    }

    /** {@return the events' {@code source} unless one sets its own} */
    public URI source() {
        return source;
    }

    /** {@return the events' {@code subject} unless one sets its own; empty: none} */
    public Optional<String> subject() {
        return Optional.ofNullable(subject);
    }

    /** {@return the events' {@code dataschema}; empty: none} */
    public Optional<URI> dataSchema() {
        return Optional.ofNullable(dataSchema);
    }

    /**
     * {@return the header convention of this topic's binary-mode events; empty: the broker's ({@link
     * HeaderConvention#forBackend})}
     */
    public Optional<HeaderConvention> headerConvention() {
        return Optional.ofNullable(headerConvention);
    }

    /**
     * Registers a handler factory for the topic on a group with {@link ConsumerGroupConfig#ofDefaults()}.
     *
     * @param group the consumer group
     * @param handlerFactory makes one handler per consumer
     * @param <B> the group's backend type
     * @param <C> the group's context type
     * @return the group
     */
    public <B, C> ConsumerGroup<B, C> register(
            ConsumerGroup<B, C> group, Supplier<? extends CloudEventHandler<T, ? super C>> handlerFactory) {
        return register(group, ConsumerGroupConfig.ofDefaults(), handlerFactory);
    }

    /**
     * Registers a handler factory for the topic on a group. A binary-mode message whose headers are not a CloudEvent
     * (no {@code specversion} header, a required attribute missing, a time or URI that does not parse) never reaches
     * the handler: it is rejected ({@code Outcome.reject("not a CloudEvent: ...")}), to the dead-letter queue. A
     * structured-mode message that is not one fails to decode, and the registration's decode-failure policy settles
     * it.
     *
     * @param group the consumer group
     * @param config consumers, scaling and consumer options of this registration
     * @param handlerFactory makes one handler per consumer
     * @param <B> the group's backend type
     * @param <C> the group's context type
     * @return the group
     */
    public <B, C> ConsumerGroup<B, C> register(
            ConsumerGroup<B, C> group,
            ConsumerGroupConfig config,
            Supplier<? extends CloudEventHandler<T, ? super C>> handlerFactory) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(handlerFactory, "handlerFactory");
        if (binary != null) {
            String contentType = dataCodec.contentType();
            return group.register(binary, config, () -> new BinaryHandler<T, C>(handlerFactory.get(), contentType));
        }
        return group.register(
                Objects.requireNonNull(structured), config, () -> new StructuredHandler<T, C>(handlerFactory.get()));
    }

    @Override
    public String toString() {
        return "CloudEventTopic[" + name() + ", " + mode + ", type=" + type + ", source=" + source + "]";
    }

    static String requireText(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.isBlank()) {
            throw new IllegalArgumentException("a CloudEvent's " + what + " must not be blank");
        }
        return value;
    }

    /** A binary-mode message: the data is the message, the attributes are its headers. */
    private record BinaryHandler<T, C>(CloudEventHandler<T, ? super C> handler, String contentType)
            implements MessageHandler<T, C> {
        @Override
        public Outcome handle(T message, MessageMetadata metadata, C context) throws Exception {
            CloudEventContext event;
            try {
                event = BinaryAttributes.read(metadata.headers(), contentType);
            } catch (IllegalArgumentException | IllegalStateException e) {
                return Outcome.reject("not a CloudEvent: " + e.getMessage());
            }
            return handler.handle(message, event, metadata, context);
        }

        @Override
        public void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception {
            CloudEventContext event;
            try {
                event = BinaryAttributes.read(metadata.message().headers(), contentType);
            } catch (IllegalArgumentException | IllegalStateException e) {
                MessageHandler.super.handleDead(message, metadata, context);
                return;
            }
            handler.handleDead(message, event, metadata, context);
        }

        @Override
        public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
            handler.handleUnreadableDead(payload, metadata, context);
        }
    }

    /** A structured-mode message: attributes and data decoded together by the topic's codec. */
    private record StructuredHandler<T, C>(CloudEventHandler<T, ? super C> handler)
            implements MessageHandler<CloudEventMessage<T>, C> {
        @Override
        public Outcome handle(CloudEventMessage<T> message, MessageMetadata metadata, C context) throws Exception {
            return handler.handle(message.data(), message.event(), metadata, context);
        }

        @Override
        public void handleDead(CloudEventMessage<T> message, DeadMessageMetadata metadata, C context) throws Exception {
            handler.handleDead(message.data(), message.event(), metadata, context);
        }

        @Override
        public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
            handler.handleUnreadableDead(payload, metadata, context);
        }
    }

    /**
     * Builds a {@link CloudEventTopic}; {@code type} and {@code source} are required, and each value may be set once.
     * Not thread-safe.
     *
     * @param <T> the data type
     */
    public static final class Builder<T> {
        private final CloudEventMode mode;
        private final @Nullable Topic<T> binary;
        private final @Nullable Topic<CloudEventMessage<T>> structured;
        private final Codec<T> dataCodec;
        private @Nullable String type;
        private @Nullable URI source;
        private @Nullable String subject;
        private @Nullable URI dataSchema;
        private @Nullable HeaderConvention headerConvention;

        private Builder(
                CloudEventMode mode,
                @Nullable Topic<T> binary,
                @Nullable Topic<CloudEventMessage<T>> structured,
                Codec<T> dataCodec) {
            this.mode = mode;
            this.binary = binary;
            this.structured = structured;
            this.dataCodec = dataCodec;
        }

        /**
         * Sets the events' {@code type}. Required.
         *
         * @param type e.g. {@code com.acme.order.paid}
         * @return this builder
         */
        public Builder<T> type(String type) {
            once("type", this.type);
            this.type = requireText("type", type);
            return this;
        }

        /**
         * Sets the events' {@code source}. Required.
         *
         * @param source a URI reference naming the producer, e.g. {@code /orders} or {@code urn:acme:orders}
         * @return this builder
         */
        public Builder<T> source(URI source) {
            once("source", this.source);
            this.source = Objects.requireNonNull(source, "source");
            return this;
        }

        /**
         * Sets the events' {@code subject}; without it, events have none unless they set one.
         *
         * @param subject what the events are about within the source
         * @return this builder
         */
        public Builder<T> subject(String subject) {
            once("subject", this.subject);
            this.subject = requireText("subject", subject);
            return this;
        }

        /**
         * Sets the events' {@code dataschema}.
         *
         * @param dataSchema the schema the data adheres to
         * @return this builder
         */
        public Builder<T> dataSchema(URI dataSchema) {
            once("dataSchema", this.dataSchema);
            this.dataSchema = Objects.requireNonNull(dataSchema, "dataSchema");
            return this;
        }

        /**
         * Names a binary-mode event's headers in this convention on every broker, instead of the broker's own ({@link
         * HeaderConvention#forBackend}). Consumers read every known convention whatever this says.
         *
         * @param convention e.g. {@link HeaderConvention#AMQP_UNDERSCORE} for readers that expect {@code
         *     cloudEvents_type}
         * @return this builder
         * @throws IllegalStateException in structured mode, which writes no attribute headers
         */
        public Builder<T> headerConvention(HeaderConvention convention) {
            if (mode == CloudEventMode.STRUCTURED) {
                throw new IllegalStateException("topic '" + name() + "' is structured: its events carry their"
                        + " attributes in the payload, so a header convention does not apply");
            }
            once("headerConvention", this.headerConvention);
            this.headerConvention = Objects.requireNonNull(convention, "convention");
            return this;
        }

        /**
         * {@return the event topic}
         *
         * @throws IllegalStateException when {@code type} or {@code source} is not set
         */
        public CloudEventTopic<T> build() {
            if (type == null || source == null) {
                throw new IllegalStateException("CloudEvent topic '" + name() + "' needs a "
                        + (type == null ? "type (.type(\"com.acme.thing.happened\"))" : "source (.source(URI))")
                        + " for its events");
            }
            return new CloudEventTopic<>(this, type, source);
        }

        private String name() {
            return binary != null
                    ? binary.name()
                    : Objects.requireNonNull(structured).name();
        }

        private void once(String what, @Nullable Object current) {
            if (current != null) {
                throw new IllegalStateException(
                        "CloudEvent topic '" + name() + "': " + what + " is already set to '" + current + "'");
            }
        }
    }
}
