package dev.shove;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.OptBoolean;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.AnnotationIntrospector;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.AnnotatedParameter;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.Serial;
import java.lang.annotation.Annotation;
import java.lang.reflect.Executable;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The default codec: JSON through Jackson, with readers and writers resolved once per type.
 *
 * <p>Strict by default (see {@link Codec#json(Class)}): a required field that is missing, or a JSON null where the Java
 * type is a primitive, fails the decode with the field's path in the message. Required means a creator parameter
 * (every component of a record, every parameter of a {@code @JsonCreator}) unless its type is an {@code Optional}, it
 * is annotated {@code @Nullable} or it says {@code @JsonProperty(isRequired = OptBoolean.FALSE)}; Jackson itself enforces the rule, through a required
 * marker on those parameters ({@link RequiredCreatorParameters}), so a strict codec works on a copy of its mapper.
 */
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

    /** {@link #DEFAULT_MAPPER} with the required-field rule, behind every strict codec without a mapper of its own. */
    private static final ObjectMapper STRICT_DEFAULT_MAPPER = strict(DEFAULT_MAPPER);

    private static final String MISSING = "Missing required creator property";
    private static final String NULL_PRIMITIVE = "Cannot map `null` into type";

    private final ObjectReader reader;
    private final ObjectWriter writer;
    /** Reads an older version's payload as a tree, for the upcasters. */
    private final ObjectReader treeReader;

    private final String name;
    private final Type messageType;
    /** Null for an unversioned codec, which ignores the schema version header. */
    private final @Nullable SchemaVersions<JsonNode> versions;

    private JsonCodec(
            ObjectMapper mapper,
            JavaType type,
            Type messageType,
            boolean strict,
            @Nullable SchemaVersions<JsonNode> versions) {
        ObjectReader r = mapper.readerFor(type);
        this.reader = strict ? r.with(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES) : r;
        this.writer = mapper.writerFor(type);
        this.treeReader = mapper.readerFor(JsonNode.class);
        this.name = "json(" + type.toCanonical() + (versions == null ? "" : ", v" + versions.current()) + ")";
        this.messageType = messageType;
        this.versions = versions;
    }

    static <M> JsonCodec<M> of(Class<M> type) {
        return of(type, null, true);
    }

    static <M> JsonCodec<M> of(Class<M> type, ObjectMapper mapper) {
        return of(type, mapper, true);
    }

    static <M> JsonCodec<M> of(Class<M> type, SchemaVersions<JsonNode> versions) {
        return new JsonCodec<>(
                STRICT_DEFAULT_MAPPER,
                STRICT_DEFAULT_MAPPER.constructType(type),
                type,
                true,
                Objects.requireNonNull(versions));
    }

    static <M> JsonCodec<M> of(TypeReference<M> type) {
        return of(type.getType(), null, true);
    }

    /**
     * A codec as {@link JsonCodecBuilder} describes it.
     *
     * @param type the message type, a {@link Class} or a {@link TypeReference}'s type
     * @param mapper the user's mapper, or null for shove's
     * @param strict whether the required-field rule applies
     */
    static <M> JsonCodec<M> of(Type type, @Nullable ObjectMapper mapper, boolean strict) {
        ObjectMapper base = mapper == null ? DEFAULT_MAPPER : mapper;
        ObjectMapper used = !strict ? base : mapper == null ? STRICT_DEFAULT_MAPPER : strict(mapper);
        return new JsonCodec<>(used, used.constructType(type), type, strict, null);
    }

    /** A copy of {@code mapper} whose creator parameters are required as {@link RequiredCreatorParameters} says. */
    private static ObjectMapper strict(ObjectMapper mapper) {
        ObjectMapper copy;
        try {
            copy = mapper.copy();
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException(
                    "the ObjectMapper of class " + mapper.getClass().getName() + " cannot be copied (" + e.getMessage()
                            + "); a strict JSON codec adds its required-field rule to a copy of the mapper: override"
                            + " copy() in that class, or build the codec with Codec.jsonBuilder(type).mapper(m)"
                            + ".lenient()",
                    e);
        }
        AnnotationIntrospector own = copy.getDeserializationConfig().getAnnotationIntrospector();
        copy.setAnnotationIntrospector(
                own == null
                        ? new RequiredCreatorParameters()
                        : AnnotationIntrospector.pair(new RequiredCreatorParameters(), own));
        return copy;
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
        M value;
        try {
            value = reader.readValue(payload);
        } catch (JsonMappingException e) {
            throw named(e);
        }
        if (value == null) {
            throw new IllegalArgumentException("payload is JSON null");
        }
        return value;
    }

    /**
     * Jackson's failure restated with the path of the field it concerns first ({@code orders[1].cents}), so the first
     * line, which is what a dead letter's reason keeps, names the field. Jackson's own message puts the path last.
     */
    private Exception named(JsonMappingException e) {
        String path = path(e.getPath());
        if (path.isEmpty()) {
            return e;
        }
        String original = String.valueOf(e.getOriginalMessage());
        String firstLine = original.lines().findFirst().orElse("");
        String message;
        if (firstLine.startsWith(MISSING)) { // the rule's, or a @JsonProperty(required = true) a lenient codec keeps
            message = "required field '" + path + "' is missing";
        } else if (firstLine.startsWith(NULL_PRIMITIVE)) {
            message = "field '" + path + "' is null, but its type " + typeOf(firstLine) + " cannot be null";
        } else {
            message = "field '" + path + "': " + firstLine;
        }
        return new IllegalArgumentException(message, e);
    }

    /** {@code long} from Jackson's "Cannot map `null` into type `long` (...)". */
    private static String typeOf(String nullPrimitiveMessage) {
        int open = nullPrimitiveMessage.indexOf('`', NULL_PRIMITIVE.length());
        int close = open < 0 ? -1 : nullPrimitiveMessage.indexOf('`', open + 1);
        return close < 0 ? "a primitive" : nullPrimitiveMessage.substring(open + 1, close);
    }

    private static String path(List<JsonMappingException.Reference> references) {
        StringBuilder out = new StringBuilder();
        for (JsonMappingException.Reference ref : references) {
            String field = ref.getFieldName();
            if (field != null) {
                if (!out.isEmpty()) {
                    out.append('.');
                }
                out.append(field);
            } else if (ref.getIndex() >= 0) {
                out.append('[').append(ref.getIndex()).append(']');
            }
        }
        return out.toString();
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

    /**
     * Marks creator parameters required (records' components included), except an {@code Optional} one (absent reads
     * as empty), a {@code @Nullable} one (absent reads as null) and one whose {@code @JsonProperty} says otherwise ({@code isRequired}, or
     * {@code required = true} on an {@code Optional}). Only parameters: Jackson
     * checks required properties only where it builds through a creator, and a property set through a field or a
     * setter keeps the value the object was constructed with.
     */
    private static final class RequiredCreatorParameters extends NopAnnotationIntrospector {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public @Nullable Boolean hasRequiredMarker(AnnotatedMember member) {
            if (!(member instanceof AnnotatedParameter parameter)) {
                return null;
            }
            JsonProperty property = parameter.getAnnotation(JsonProperty.class);
            if (property != null && property.isRequired() != OptBoolean.DEFAULT) {
                return property.isRequired().asBoolean();
            }
            if (property != null && property.required()) {
                return true;
            }
            Class<?> raw = parameter.getRawType();
            return !(raw == Optional.class
                    || raw == OptionalInt.class
                    || raw == OptionalLong.class
                    || raw == OptionalDouble.class
                    || nullable(parameter));
        }

        /**
         * Whether the parameter is annotated {@code @Nullable}: any annotation of that simple name, JSpecify's type use
         * included (a record component's reaches its canonical constructor's parameter), as shove's AsyncAPI schemas
         * read it.
         */
        private static boolean nullable(AnnotatedParameter parameter) {
            if (!(parameter.getOwner().getAnnotated() instanceof Executable executable)) {
                return false;
            }
            int index = parameter.getIndex();
            if (index >= executable.getParameterCount()) {
                return false;
            }
            return named(executable.getParameters()[index].getAnnotations())
                    || named(executable.getAnnotatedParameterTypes()[index].getAnnotations());
        }

        private static boolean named(Annotation[] annotations) {
            for (Annotation a : annotations) {
                if (a.annotationType().getSimpleName().equals("Nullable")) {
                    return true;
                }
            }
            return false;
        }
    }
}
