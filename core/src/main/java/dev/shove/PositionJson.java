package dev.shove;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * JSON for {@link Position}, which is a sealed interface of enums and records that Jackson cannot read back on its
 * own: every position is an object whose {@code kind} says which it is ({@code {"kind":"captured","queue":"orders",
 * "partition":-1,"offset":42}}). Registered on shove's own mapper, so audit records (whose metadata carries the
 * delivery's position on log-like backends) survive the audit log topic.
 */
final class PositionJson {
    private PositionJson() {}

    static SimpleModule module() {
        SimpleModule module = new SimpleModule("shove-position");
        Writer writer = new Writer();
        module.addSerializer(Position.class, writer);
        module.addSerializer(Position.Start.class, writer);
        module.addSerializer(Position.End.class, writer);
        module.addSerializer(Position.Sequence.class, writer);
        module.addSerializer(Position.Timestamp.class, writer);
        module.addSerializer(Position.Captured.class, writer);
        module.addDeserializer(Position.class, new Reader());
        return module;
    }

    private static final class Writer extends StdSerializer<Position> {
        private static final long serialVersionUID = 1L;

        Writer() {
            super(Position.class);
        }

        @Override
        public void serialize(Position position, JsonGenerator json, SerializerProvider provider) throws IOException {
            json.writeStartObject();
            switch (position) {
                case Position.Start s -> json.writeStringField("kind", "start");
                case Position.End e -> json.writeStringField("kind", "end");
                case Position.Sequence s -> {
                    json.writeStringField("kind", "sequence");
                    json.writeNumberField("sequence", s.sequence());
                }
                case Position.Timestamp t -> {
                    json.writeStringField("kind", "timestamp");
                    json.writeStringField("time", t.time().toString());
                }
                case Position.Captured c -> {
                    json.writeStringField("kind", "captured");
                    json.writeStringField("queue", c.queue());
                    json.writeNumberField("partition", c.partition());
                    json.writeNumberField("offset", c.offset());
                }
            }
            json.writeEndObject();
        }
    }

    private static final class Reader extends StdDeserializer<Position> {
        private static final long serialVersionUID = 1L;

        Reader() {
            super(Position.class);
        }

        @Override
        public Position deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            JsonNode node = parser.readValueAsTree();
            String kind = node.path("kind").asText("");
            try {
                return switch (kind) {
                    case "start" -> Position.start();
                    case "end" -> Position.end();
                    case "sequence" ->
                        Position.sequence(required(node, "sequence", context).asLong());
                    case "timestamp" ->
                        Position.timestamp(
                                Instant.parse(required(node, "time", context).asText()));
                    case "captured" ->
                        new Position.Captured(
                                required(node, "queue", context).asText(),
                                node.path("partition").asInt(-1),
                                required(node, "offset", context).asLong());
                    default ->
                        context.reportInputMismatch(
                                Position.class,
                                "a position's kind is start, end, sequence, timestamp or captured, not '%s'",
                                kind);
                };
            } catch (DateTimeParseException | IllegalArgumentException e) {
                throw context.instantiationException(Position.class, e);
            }
        }

        private static JsonNode required(JsonNode node, String field, DeserializationContext context)
                throws IOException {
            JsonNode value = node.get(field);
            if (value == null || value.isNull()) {
                return context.reportInputMismatch(
                        Position.class,
                        "a position of kind '%s' needs '%s'",
                        node.path("kind").asText(),
                        field);
            }
            return value;
        }
    }
}
