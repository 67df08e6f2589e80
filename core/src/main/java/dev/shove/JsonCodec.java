package dev.shove;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The default codec: JSON through Jackson, with readers and writers resolved once per type. */
final class JsonCodec<M> implements Codec<M> {

    /**
     * Behind every JSON topic that does not bring its own mapper, and shove's own JSON (audit records, header
     * contracts); configured here once, then only read, and never handed out: a topic that wants another
     * configuration passes its own mapper to {@link Codec#json(Class, ObjectMapper)}. Dates are
     * ISO-8601 text, and an {@code OffsetDateTime} keeps the offset it was published with (Jackson would otherwise
     * move it to UTC on decode, so a message would not equal itself after a round trip). A {@link dev.shove.Position}
     * is written with its kind, so that it reads back (see {@link PositionJson}).
     */
    static final ObjectMapper DEFAULT_MAPPER = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .registerModule(new Jdk8Module())
            .registerModule(PositionJson.module())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    private final ObjectReader reader;
    private final ObjectWriter writer;
    /** Reads an older version's payload as a tree, for the upcasters. */
    private final ObjectReader treeReader;

    private final String name;
    private final Type messageType;
    /** Null for an unversioned codec, which ignores the schema version header. */
    private final @Nullable SchemaVersions<JsonNode> versions;

    private JsonCodec(
            ObjectMapper mapper, JavaType type, Type messageType, @Nullable SchemaVersions<JsonNode> versions) {
        this.reader = mapper.readerFor(type);
        this.writer = mapper.writerFor(type);
        this.treeReader = mapper.readerFor(JsonNode.class);
        this.name = "json(" + type.toCanonical() + (versions == null ? "" : ", v" + versions.current()) + ")";
        this.messageType = messageType;
        this.versions = versions;
    }

    private JsonCodec(ObjectMapper mapper, JavaType type, Type messageType) {
        this(mapper, type, messageType, null);
    }

    static <M> JsonCodec<M> of(Class<M> type) {
        return of(type, DEFAULT_MAPPER);
    }

    static <M> JsonCodec<M> of(Class<M> type, ObjectMapper mapper) {
        return new JsonCodec<>(mapper, mapper.constructType(type), type);
    }

    static <M> JsonCodec<M> of(Class<M> type, SchemaVersions<JsonNode> versions) {
        return new JsonCodec<>(
                DEFAULT_MAPPER, DEFAULT_MAPPER.constructType(type), type, Objects.requireNonNull(versions));
    }

    static <M> JsonCodec<M> of(TypeReference<M> type) {
        return new JsonCodec<>(DEFAULT_MAPPER, DEFAULT_MAPPER.constructType(type), type.getType());
    }

    @Override
    public Optional<Type> messageType() {
        return Optional.of(messageType);
    }

    @Override
    public byte[] encode(M message) throws Exception {
        return writer.writeValueAsBytes(message);
    }

    @Override
    public M decode(byte[] payload) throws Exception {
        M value = reader.readValue(payload);
        if (value == null) {
            throw new IllegalArgumentException("payload is JSON null");
        }
        return value;
    }

    @Override
    public M decode(byte[] payload, Map<String, String> headers) throws Exception {
        SchemaVersions<JsonNode> v = versions;
        if (v == null) {
            return decode(payload);
        }
        int version = v.versionOf(headers);
        if (version == v.current()) {
            return decode(payload);
        }
        JsonNode tree = treeReader.readValue(payload);
        if (tree == null || tree.isNull() || tree.isMissingNode()) {
            throw new IllegalArgumentException("payload is JSON null");
        }
        M value = reader.readValue(v.upcast(tree, version));
        if (value == null) {
            throw new IllegalArgumentException("the upcast payload is JSON null");
        }
        return value;
    }

    @Override
    public Map<String, String> headers() {
        SchemaVersions<JsonNode> v = versions;
        return v == null ? Map.of() : v.headers();
    }

    @Override
    public String contentType() {
        return "application/json";
    }

    @Override
    public String name() {
        return name;
    }
}
