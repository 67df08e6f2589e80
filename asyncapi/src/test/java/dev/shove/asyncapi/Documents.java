package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks every document a test builds: valid against the official AsyncAPI 3.0.0 JSON Schema (bindings included),
 * every {@code $ref} pointing at something in the document, every operation's messages among its channel's, and the
 * YAML reading back as the JSON.
 */
final class Documents {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final SchemaRegistry DRAFT_7 = SchemaRegistry.withDefaultDialect(Dialects.getDraft7());
    private static final Schema ASYNCAPI = load();

    private Documents() {}

    /** Builds the document, checks it as the class comment says, and returns it as read back from its JSON. */
    static JsonNode valid(AsyncApi.Builder builder) {
        return valid(builder.build());
    }

    static JsonNode valid(AsyncApi api) {
        JsonNode doc = read(api.toJson());
        assertThat(asyncApiErrors(doc))
                .as("errors against the AsyncAPI 3.0.0 schema")
                .isEmpty();
        assertThat(danglingRefs(doc, doc, "#"))
                .as("$refs that point at nothing")
                .isEmpty();
        for (Map.Entry<String, JsonNode> op : doc.path("operations").properties()) {
            String channel = op.getValue().path("channel").path("$ref").asText();
            assertThat(op.getValue().path("messages"))
                    .as("messages of operation %s", op.getKey())
                    .isNotEmpty()
                    .allSatisfy(m -> assertThat(m.path("$ref").asText()).startsWith(channel + "/messages/"));
        }
        try {
            assertThat(YAML.readTree(api.toYaml())).as("the YAML read back").isEqualTo(doc);
        } catch (IOException e) {
            throw new AssertionError("the YAML does not parse:\n" + api.toYaml(), e);
        }
        return doc;
    }

    /** What the official schema finds wrong with a document. */
    static List<String> asyncApiErrors(JsonNode document) {
        return ASYNCAPI.validate(document).stream().map(Error::toString).toList();
    }

    /**
     * What is wrong with a message, checked against its payload schema in the document (the schema may refer to
     * {@code #/components/schemas/...}).
     */
    static List<String> payloadErrors(JsonNode document, String messageId, JsonNode message) {
        ObjectNode schema = JSON.createObjectNode();
        schema.put("$schema", "http://json-schema.org/draft-07/schema#");
        schema.putArray("allOf")
                .add(document.path("components")
                        .path("messages")
                        .path(messageId)
                        .path("payload"));
        schema.putObject("components")
                .set("schemas", document.path("components").path("schemas"));
        return DRAFT_7.getSchema(schema).validate(message).stream()
                .map(Error::toString)
                .toList();
    }

    static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> danglingRefs(JsonNode root, JsonNode node, String where) {
        List<String> dangling = new ArrayList<>();
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && ref.isTextual()) {
                String target = ref.asText();
                if (!target.startsWith("#/") || root.at(target.substring(1)).isMissingNode()) {
                    dangling.add(where + ": " + target);
                }
            }
            node.properties().forEach(e -> dangling.addAll(danglingRefs(root, e.getValue(), where + "/" + e.getKey())));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                dangling.addAll(danglingRefs(root, node.get(i), where + "/" + i));
            }
        }
        return dangling;
    }

    private static Schema load() {
        try (InputStream in = Documents.class.getResourceAsStream("/asyncapi/asyncapi-3.0.0.schema.json")) {
            if (in == null) {
                throw new IllegalStateException("asyncapi/asyncapi-3.0.0.schema.json is not on the test class path");
            }
            return DRAFT_7.getSchema(JSON.readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
