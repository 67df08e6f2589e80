package dev.shove;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Optional;

/**
 * Turns messages into bytes and back. Every topic has one; the default is JSON through Jackson ({@link #json(Class)}),
 * and a topic over {@code byte[]} defaults to {@link #raw()}, which passes bytes through unchanged.
 *
 * <p>Implementations must be thread-safe and should be stateless: one instance encodes and decodes concurrently for
 * every consumer of the topic. Throw any exception on bad input; shove wraps it in a {@link CodecException} naming the
 * topic, and a message that fails to decode is settled by the decode-failure policy without reaching the handler.
 *
 * <pre>{@code
 * Topic<Invoice> INVOICES = Topic.builder("invoices", Codec.json(Invoice.class, myObjectMapper)).dlq().build();
 * }</pre>
 *
 * @param <M> the message type
 * @since 0.1.0
 */
public interface Codec<M> {

    /**
     * Encodes a message into the bytes that go on the wire.
     *
     * @param message the message to publish
     * @return its encoded form
     * @throws Exception on a message it cannot encode; shove wraps it in a {@link CodecException} naming the topic
     */
    byte[] encode(M message) throws Exception;

    /**
     * Decodes wire bytes into a message.
     *
     * @param payload the bytes as received
     * @return the message; never null
     * @throws Exception on bytes it cannot read; the message is then settled by the decode-failure policy
     */
    M decode(byte[] payload) throws Exception;

    /**
     * Decodes wire bytes into a message, given the message's headers: shove calls this one, so that a codec whose
     * reading depends on a header (the schema version of a {@link SchemaVersions versioned} codec) can see it. The
     * default ignores the headers and calls {@link #decode(byte[])}.
     *
     * @param payload the bytes as received
     * @param headers the message's headers as received, shove's own included
     * @return the message; never null
     * @throws Exception on bytes it cannot read; the message is then settled by the decode-failure policy
     */
    default M decode(byte[] payload, Map<String, String> headers) throws Exception {
        return decode(payload);
    }

    /**
     * {@return the headers this codec writes on every message it encodes; none by default} A versioned codec writes
     * its schema version ({@link SchemaVersions#headers()}). These may use shove's reserved prefix: shove adds them
     * after it checked the publisher's headers.
     */
    default Map<String, String> headers() {
        return Map.of();
    }

    /**
     * {@return the MIME type of the encoded form, e.g. {@code application/json}; backends set it where the broker has a
     * field}
     */
    String contentType();

    /**
     * {@return the Java type of the messages, when the codec knows it (the JSON codecs and {@link #raw()} do)} For
     * tools that describe topics, such as an AsyncAPI document's message schemas. Empty by default.
     */
    default Optional<Type> messageType() {
        return Optional.empty();
    }

    /**
     * {@return the codec's own schema of its payloads, when it has one (the Protobuf and Avro codecs do)} For tools that
     * describe topics: an AsyncAPI document shows it as the payload, in its format. Empty by default; a JSON codec is
     * described from its {@link #messageType()} instead.
     */
    default Optional<PayloadSchema> payloadSchema() {
        return Optional.empty();
    }

    /** {@return a short name for logs and errors, e.g. {@code json(OrderPaid)}} */
    default String name() {
        return getClass().getSimpleName();
    }

    /**
     * JSON through a shared Jackson {@link ObjectMapper}: Java time types supported, unknown properties ignored (so
     * producers can add fields), no default typing (payloads never choose the class that is instantiated).
     *
     * <p>Strict about the fields it needs: a message that lacks a required field, or has JSON null where the Java type
     * is a primitive, fails to decode, and the error names the field ({@code required field 'cents' is missing}); the
     * message is then settled by the decode-failure policy (by default dead-lettered) and never reaches the handler.
     * Required are the components of a record and the parameters of a {@code @JsonCreator}, except those whose type
     * is an {@code Optional} (absent reads as empty) and those annotated {@code @Nullable} or {@code
     * @JsonProperty(isRequired = OptBoolean.FALSE)} (absent reads as null). A property a class sets through a field or a setter is never
     * required: when absent it keeps the value the class's constructor gave it. A JSON null for a reference type is
     * accepted as null. {@link #jsonBuilder(Class)} builds a {@linkplain JsonCodecBuilder#lenient() lenient} codec.
     *
     * @param type the message class
     * @param <M> the message type
     * @return a thread-safe JSON codec
     */
    static <M> Codec<M> json(Class<M> type) {
        return JsonCodec.of(type);
    }

    /**
     * JSON for a generic type, e.g. {@code Codec.json(new TypeReference<List<Order>>() {})}, strict as {@link
     * #json(Class)} is.
     *
     * @param type the message type, generics included
     * @param <M> the message type
     * @return a thread-safe JSON codec
     */
    static <M> Codec<M> json(TypeReference<M> type) {
        return JsonCodec.of(type);
    }

    /**
     * JSON through the given mapper, for applications that configure Jackson themselves, strict as {@link
     * #json(Class)} is; the same as {@code jsonBuilder(type).mapper(mapper).build()} (see {@link
     * JsonCodecBuilder#mapper}).
     *
     * @param type the message class
     * @param mapper the mapper to read and write with; copied here, so later changes do not reach the codec
     * @param <M> the message type
     * @return a JSON codec, thread-safe as the mapper is
     * @throws IllegalArgumentException if the mapper's class does not support {@link ObjectMapper#copy()}
     */
    static <M> Codec<M> json(Class<M> type, ObjectMapper mapper) {
        return JsonCodec.of(type, mapper);
    }

    /**
     * Starts a JSON codec with other settings: an own mapper, or {@linkplain JsonCodecBuilder#lenient() leniency}.
     *
     * @param type the message class
     * @param <M> the message type
     * @return a builder that, given nothing, builds what {@link #json(Class)} returns
     */
    static <M> JsonCodecBuilder<M> jsonBuilder(Class<M> type) {
        return new JsonCodecBuilder<>(type);
    }

    /**
     * Starts a JSON codec for a generic type with other settings (see {@link #jsonBuilder(Class)}).
     *
     * @param type the message type, generics included
     * @param <M> the message type
     * @return a builder that, given nothing, builds what {@link #json(TypeReference)} returns
     */
    static <M> JsonCodecBuilder<M> jsonBuilder(TypeReference<M> type) {
        return new JsonCodecBuilder<>(type.getType());
    }

    /**
     * JSON with schema evolution: every message carries {@code versions.current()} in the {@value
     * ShoveHeaders#SCHEMA_VERSION} header; a message written at an older version is read into a JSON tree, brought up
     * to the current version by the upcasters, and then bound to {@code type}. A message of a newer version than
     * {@code versions.current()} is a decode failure that names its version.
     *
     * <pre>{@code
     * Codec<Order> codec = Codec.json(Order.class, SchemaVersions.<JsonNode>builder(2)
     *         .upcaster(1, v1 -> ((ObjectNode) v1).put("currency", "EUR"))
     *         .build());
     * }</pre>
     *
     * @param type the message class, at the current version
     * @param versions the current version and the upcasters, over the JSON tree
     * @param <M> the message type
     * @return a thread-safe JSON codec, thread-safe as long as the upcasters are
     */
    static <M> Codec<M> json(Class<M> type, SchemaVersions<JsonNode> versions) {
        return JsonCodec.of(type, versions);
    }

    /** {@return the identity codec: the payload is the message} Bytes are delivered exactly as published. */
    static Codec<byte[]> raw() {
        return RawCodec.INSTANCE;
    }
}
