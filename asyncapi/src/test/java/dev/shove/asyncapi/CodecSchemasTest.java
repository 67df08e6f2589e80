package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Timestamp;
import dev.shove.SchemaVersions;
import dev.shove.Topic;
import dev.shove.codec.avro.AvroCodec;
import dev.shove.codec.protobuf.ProtobufCodec;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The payloads of topics whose codec has a schema of its own: Protobuf and Avro. */
class CodecSchemasTest {
    static final Schema READING = SchemaBuilder.record("Reading")
            .namespace("com.acme")
            .fields()
            .requiredString("sensor")
            .requiredDouble("value")
            .endRecord();

    static final Topic<GenericRecord> READINGS = Topic.builder("readings", GenericRecord.class)
            .codec(AvroCodec.generic(
                    READING, SchemaVersions.<GenericRecord>builder(2).build(), Map.of(1, READING)))
            .dlq()
            .build();

    static final Topic<Timestamp> TICKS = Topic.builder("ticks", Timestamp.class)
            .codec(ProtobufCodec.of(Timestamp.class))
            .build();

    private static JsonNode doc;

    @BeforeAll
    static void build() {
        doc = Documents.valid(
                AsyncApi.builder().title("codecs").version("1.0.0").topics(READINGS, TICKS));
    }

    @Test
    @DisplayName("an Avro topic's payload is its schema, in Avro's JSON, with Avro's schema format")
    void avro() {
        JsonNode message = doc.at("/components/messages/readings");
        assertThat(message.path("contentType").asText()).isEqualTo("avro/binary");
        assertThat(message.at("/payload/schemaFormat").asText())
                .isEqualTo("application/vnd.apache.avro+json;version=1.9.0");
        assertThat(message.at("/payload/schema/name").asText()).isEqualTo("Reading");
        assertThat(message.at("/payload/schema/fields/1/name").asText()).isEqualTo("value");
        assertThat(doc.at("/components/messages/readings.dead-letter/payload/schemaFormat")
                        .asText())
                .as("the dead letter's payload too")
                .isEqualTo("application/vnd.apache.avro+json;version=1.9.0");
    }

    @Test
    @DisplayName("a Protobuf topic's payload is the .proto of its message's file, with Protobuf's schema format")
    void protobuf() {
        JsonNode message = doc.at("/components/messages/ticks");
        assertThat(message.path("contentType").asText()).isEqualTo("application/x-protobuf");
        assertThat(message.at("/payload/schemaFormat").asText()).isEqualTo("application/vnd.google.protobuf;version=3");
        assertThat(message.at("/payload/schema").asText())
                .startsWith("syntax = \"proto3\";\n\npackage google.protobuf;\n")
                .contains("message Timestamp {\n  int64 seconds = 1;\n  int32 nanos = 2;\n}\n");
    }

    @Test
    @DisplayName("a versioned codec's message names the schema version its publishers write")
    void schemaVersion() {
        assertThat(doc.at("/components/messages/readings/x-shove-schema-version")
                        .asText())
                .isEqualTo("2");
        assertThat(doc.at("/components/messages/ticks/x-shove-schema-version").isMissingNode())
                .isTrue();
    }
}
