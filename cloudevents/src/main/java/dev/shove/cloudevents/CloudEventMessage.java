package dev.shove.cloudevents;

import dev.shove.Codec;
import io.cloudevents.CloudEventContext;
import java.util.Objects;

/**
 * One event of a structured-mode topic: its attributes and its data, decoded. This is the message type of the {@code
 * Topic} a {@link CloudEventTopic#structured structured} event topic wraps; handlers written as {@link
 * CloudEventHandler} never see it. Immutable.
 *
 * <pre>{@code
 * Topic<CloudEventMessage<OrderPaid>> AUDIT =
 *         Topic.builder("audit", CloudEventMessage.structuredCodec(OrderPaid.class)).dlq().build();
 * }</pre>
 *
 * @param event the event's attributes and extensions (a decoded event is a whole {@code CloudEvent}, data included)
 * @param data the event's data, decoded by the data codec
 * @param <T> the data type
 * @since 0.1.0
 */
public record CloudEventMessage<T>(CloudEventContext event, T data) {
    /** The content type of a structured event in the JSON event format. */
    public static final String STRUCTURED_CONTENT_TYPE = "application/cloudevents+json";

    /**
     * Checks the components; see the class description.
     *
     * @param event the event's attributes and extensions
     * @param data the event's data
     */
    public CloudEventMessage {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(data, "data");
    }

    /**
     * The codec of a structured-mode topic whose data is JSON through shove's default mapper ({@code
     * Codec.json(dataType)}).
     *
     * @param dataType the data's class
     * @param <T> the data type
     * @return a thread-safe codec of {@value #STRUCTURED_CONTENT_TYPE} messages
     */
    public static <T> Codec<CloudEventMessage<T>> structuredCodec(Class<T> dataType) {
        return structuredCodec(Codec.json(dataType));
    }

    /**
     * The codec of a structured-mode topic: the JSON event format around data that {@code dataCodec} encodes. JSON
     * data is embedded as JSON ({@code "data": {...}}), any other as {@code data_base64}. Decoding reads the envelope,
     * then the data with {@code dataCodec}; a message that is not a CloudEvent, or whose data does not decode, fails
     * like any undecodable message (the registration's decode-failure policy).
     *
     * @param dataCodec encodes and decodes the data; its content type is the events' {@code datacontenttype}
     * @param <T> the data type
     * @return a thread-safe codec, thread-safe as {@code dataCodec} is
     */
    public static <T> Codec<CloudEventMessage<T>> structuredCodec(Codec<T> dataCodec) {
        return new StructuredCodec<>(dataCodec);
    }
}
