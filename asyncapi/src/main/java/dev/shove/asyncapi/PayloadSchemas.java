package dev.shove.asyncapi;

import com.fasterxml.classmate.ResolvedType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.victools.jsonschema.generator.CustomDefinition;
import com.github.victools.jsonschema.generator.CustomDefinitionProviderV2;
import com.github.victools.jsonschema.generator.FieldScope;
import com.github.victools.jsonschema.generator.MemberScope;
import com.github.victools.jsonschema.generator.MethodScope;
import com.github.victools.jsonschema.generator.Option;
import com.github.victools.jsonschema.generator.OptionPreset;
import com.github.victools.jsonschema.generator.SchemaBuilder;
import com.github.victools.jsonschema.generator.SchemaGenerationContext;
import com.github.victools.jsonschema.generator.SchemaGenerator;
import com.github.victools.jsonschema.generator.SchemaGeneratorConfigBuilder;
import com.github.victools.jsonschema.generator.SchemaVersion;
import com.github.victools.jsonschema.generator.impl.DefinitionKey;
import com.github.victools.jsonschema.generator.impl.PropertySortUtils;
import com.github.victools.jsonschema.generator.naming.SchemaDefinitionNamingStrategy;
import com.github.victools.jsonschema.module.jackson.JacksonModule;
import com.github.victools.jsonschema.module.jackson.JacksonOption;
import dev.shove.Codec;
import dev.shove.PayloadSchema;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The payload schemas of one document: a JSON Schema (draft 7, which AsyncAPI 3.0's Schema Object extends) for each
 * message type, derived from the Java type as shove's default JSON codec writes it, with every object type named once
 * under {@code components/schemas} and referenced from where it is used.
 *
 * <p>Why these settings: the JSON codec is Jackson with shove's default mapper, so the schema follows Jackson's view
 * of a type (property names and order, {@code @JsonProperty}, {@code @JsonIgnore}, subtypes) through victools' Jackson
 * module; an enum lists the values Jackson writes for its constants; and the types that mapper writes otherwise than
 * victools assumes are fixed here ({@code byte[]} is base64 text, {@link Duration} a number of seconds, java.time
 * types without an offset plain ISO-8601 text). A property is required
 * unless it is an {@link Optional} or annotated {@code @Nullable} (any annotation of that simple name, JSpecify's
 * included), since the codec writes every property, nulls too.
 *
 * <p>Not thread-safe: one instance builds one document.
 */
final class PayloadSchemas {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    /** Jackson's view of an enum constant; shove's mapper writes enums as a plain one does. */
    private static final ObjectMapper ENUM_WRITER = new ObjectMapper();

    /** Reads the JSON of a codec's own payload schema. */
    private static final ObjectMapper PARSER = new ObjectMapper();

    /**
     * Types shove's JSON codec writes otherwise than victools assumes: a {@code byte[]} is base64 text, a {@link
     * Duration} decimal seconds (the mapper leaves {@code WRITE_DURATIONS_AS_TIMESTAMPS} on), and the java.time types
     * without an offset are ISO-8601 text that is not an RFC 3339 {@code date-time} or {@code time}.
     */
    private static final Map<Class<?>, ObjectNode> FIXED = Map.of(
            byte[].class, text("bytes, as base64 text").put("contentEncoding", "base64"),
            Duration.class,
                    JSON.objectNode().put("type", "number").put("description", "a duration in seconds, e.g. 1.5"),
            LocalDateTime.class, text("a date and time without offset, ISO-8601, e.g. 2026-12-01T10:15:30"),
            LocalTime.class, text("a time of day without offset, ISO-8601, e.g. 10:15:30"),
            Year.class, text("a year, e.g. 2026").put("pattern", "^[+-]?[0-9]{4,}$"),
            YearMonth.class,
                    text("a year and month, ISO-8601, e.g. 2026-12").put("pattern", "^[+-]?[0-9]{4,}-[0-9]{2}$"),
            MonthDay.class, text("a month and day, ISO-8601, e.g. --12-01").put("pattern", "^--[0-9]{2}-[0-9]{2}$"),
            ZoneOffset.class, text("an offset from UTC, e.g. +02:00 or Z"));

    /** One instance: victools skips a provider when it is asked for the standard definition, by identity. */
    private static final CustomDefinitionProviderV2 CUSTOM = PayloadSchemas::customDefinition;

    private final SchemaBuilder builder;

    PayloadSchemas() {
        var config = new SchemaGeneratorConfigBuilder(SchemaVersion.DRAFT_7, OptionPreset.PLAIN_JSON)
                .with(new JacksonModule(
                        JacksonOption.RESPECT_JSONPROPERTY_ORDER, JacksonOption.RESPECT_JSONPROPERTY_REQUIRED))
                .with(
                        Option.ADDITIONAL_FIXED_TYPES,
                        Option.EXTRA_OPEN_API_FORMAT_VALUES,
                        Option.MAP_VALUES_AS_ADDITIONAL_PROPERTIES,
                        Option.DEFINITIONS_FOR_ALL_OBJECTS,
                        Option.INLINE_NULLABLE_SCHEMAS);
        config.forTypesInGeneral()
                .withCustomDefinitionProvider(CUSTOM)
                .withDefinitionNamingStrategy(new Naming())
                .withPropertySorter(PropertySortUtils.SORT_PROPERTIES_FIELDS_BEFORE_METHODS);
        config.forFields().withNullableCheck(PayloadSchemas::nullable).withRequiredCheck(f -> !nullable(f));
        config.forMethods().withNullableCheck(PayloadSchemas::nullable).withRequiredCheck(m -> !nullable(m));
        this.builder = new SchemaGenerator(config.build()).buildMultipleSchemaDefinitions();
    }

    /**
     * The payload schema of a topic's messages: a reference to a named schema for an object type, an inline schema
     * otherwise. The references are completed by {@link #definitions()}, which must be called once every payload is
     * asked for.
     */
    ObjectNode payload(Codec<?> codec) {
        PayloadSchema own = codec.payloadSchema().orElse(null);
        if (own != null) {
            return multiFormat(own);
        }
        Optional<Type> type = codec.messageType();
        if (type.isPresent() && type.get() == byte[].class) {
            return binary("bytes exactly as published: shove neither decodes nor changes them");
        }
        if (!isJson(codec.contentType())) {
            return binary(type.map(t ->
                            "a " + t.getTypeName() + " encoded by codec " + codec.name() + " as " + codec.contentType())
                    .orElse("encoded by codec " + codec.name() + " as " + codec.contentType()));
        }
        if (type.isEmpty()) {
            ObjectNode any = JSON.objectNode();
            any.put(
                    "description",
                    "any JSON: codec " + codec.name() + " does not say which Java type it reads"
                            + " (Codec.messageType())");
            return any;
        }
        return builder.createSchemaReference(type.get());
    }

    /**
     * A codec's own schema as AsyncAPI's Multi Format Schema Object: its format, and the schema, as JSON when the
     * format is JSON (Avro's), as text otherwise (a {@code .proto} file).
     */
    private static ObjectNode multiFormat(PayloadSchema own) {
        ObjectNode node = JSON.objectNode();
        node.put("schemaFormat", own.format());
        if (isJson(own.format())) {
            try {
                node.set("schema", PARSER.readTree(own.document()));
                return node;
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        "the payload schema of format " + own.format() + " is not JSON: " + e.getMessage(), e);
            }
        }
        node.put("schema", own.document());
        return node;
    }

    /** Every named schema the payloads refer to, by name; completes the references {@link #payload} returned. */
    ObjectNode definitions() {
        return builder.collectDefinitions("components/schemas");
    }

    static boolean isJson(String contentType) {
        String base = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        return base.equals("application/json") || base.endsWith("+json");
    }

    private static ObjectNode text(String description) {
        return JSON.objectNode().put("type", "string").put("description", description);
    }

    private static ObjectNode binary(String description) {
        ObjectNode node = JSON.objectNode();
        node.put("type", "string");
        node.put("format", "binary");
        node.put("description", description);
        return node;
    }

    private static @Nullable CustomDefinition customDefinition(ResolvedType type, SchemaGenerationContext context) {
        ObjectNode fixed = FIXED.get(type.getErasedType());
        if (fixed != null) {
            return new CustomDefinition(
                    fixed.deepCopy(), CustomDefinition.INLINE_DEFINITION, CustomDefinition.INCLUDING_ATTRIBUTES);
        }
        if (type.isInstanceOf(Enum.class)) {
            return new CustomDefinition(
                    enumSchema(type.getErasedType()),
                    CustomDefinition.DefinitionType.ALWAYS_REF,
                    CustomDefinition.INCLUDING_ATTRIBUTES);
        }
        if (type.isInstanceOf(Map.class)) {
            // a map is a JSON object of its values; a named schema per map type would only add noise
            ObjectNode standard = context.createStandardDefinition(type, CUSTOM);
            return new CustomDefinition(
                    standard, CustomDefinition.INLINE_DEFINITION, CustomDefinition.INCLUDING_ATTRIBUTES);
        }
        return null;
    }

    /**
     * The values of an enum as Jackson writes them: {@code name()}, or the constant's {@code @JsonProperty}, or what
     * its {@code @JsonValue} method returns.
     */
    private static ObjectNode enumSchema(Class<?> type) {
        Class<?> enumType = type.isEnum() ? type : type.getSuperclass(); // a constant with a body is a subclass
        ArrayNode values = JSON.arrayNode();
        for (Object constant : enumType.getEnumConstants()) {
            values.add(ENUM_WRITER.<JsonNode>valueToTree(constant));
        }
        ObjectNode node = JSON.objectNode();
        if (values.valueStream().allMatch(JsonNode::isTextual)) {
            node.put("type", "string");
        } else if (values.valueStream().allMatch(JsonNode::isIntegralNumber)) {
            node.put("type", "integer");
        }
        node.set("enum", values);
        return node;
    }

    private static boolean nullable(MemberScope<?, ?> member) {
        if (member.getType() != null && member.getType().isInstanceOf(Optional.class)) {
            return true;
        }
        if (member instanceof FieldScope field) {
            Field raw = field.getRawMember();
            MethodScope getter = field.findGetter();
            return hasNullable(raw, raw.getAnnotatedType())
                    || (getter != null
                            && hasNullable(
                                    getter.getRawMember(), getter.getRawMember().getAnnotatedReturnType()));
        }
        if (member instanceof MethodScope method) {
            Method raw = method.getRawMember();
            FieldScope field = method.findGetterField();
            return hasNullable(raw, raw.getAnnotatedReturnType())
                    || (field != null
                            && hasNullable(
                                    field.getRawMember(), field.getRawMember().getAnnotatedType()));
        }
        return false;
    }

    /** Any annotation named {@code Nullable}: JSpecify's (a type use), or an older declaration annotation. */
    private static boolean hasNullable(AnnotatedElement element, AnnotatedType type) {
        return Stream.concat(Arrays.stream(element.getAnnotations()), Arrays.stream(type.getAnnotations()))
                .map(Annotation::annotationType)
                .anyMatch(a -> a.getSimpleName().equals("Nullable"));
    }

    /**
     * Names a schema after its class's simple name, with its type arguments after underscores ({@code Page<Order>} is
     * {@code Page_Order}), so every name is a valid component key; two types of one name get a counter
     * ({@code Item}, {@code Item-2}).
     */
    private static final class Naming implements SchemaDefinitionNamingStrategy {
        @Override
        public String getDefinitionNameForKey(DefinitionKey key, SchemaGenerationContext context) {
            return name(key.getType());
        }

        @Override
        public void adjustDuplicateNames(Map<DefinitionKey, String> names, SchemaGenerationContext context) {
            // by the full type name, so that the same types always get the same names
            List<Map.Entry<DefinitionKey, String>> sorted = names.entrySet().stream()
                    .sorted(Comparator.comparing(e -> e.getKey().getType().getBriefDescription()))
                    .toList();
            for (int i = 1; i < sorted.size(); i++) {
                sorted.get(i).setValue(sorted.get(i).getValue() + "-" + (i + 1));
            }
        }

        private static String name(ResolvedType type) {
            if (type.isArray()) {
                return name(type.getArrayElementType()) + "Array";
            }
            String base = type.getErasedType().getSimpleName();
            if (type.getTypeParameters().isEmpty()) {
                return base;
            }
            return base + "_"
                    + type.getTypeParameters().stream().map(Naming::name).collect(Collectors.joining("_"));
        }
    }
}
