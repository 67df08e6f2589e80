package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import dev.shove.ShoveHeaders;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The headers schemas: shove's own headers with their meaning and form, and every other header as the publisher's. */
class HeadersTest {
    private static final JsonNode DOC =
            Documents.valid(AsyncApi.builder().title("headers").version("1.0.0").topics(Fixtures.ORDERS));

    private static final SchemaRegistry DRAFT_7 = SchemaRegistry.withDefaultDialect(Dialects.getDraft7());

    private static List<String> errors(String schema, Map<String, String> headers) {
        JsonNode instance = Documents.read(new com.fasterxml.jackson.databind.ObjectMapper()
                .valueToTree(headers)
                .toString());
        return DRAFT_7.getSchema(DOC.at("/components/schemas/" + schema)).validate(instance).stream()
                .map(Error::toString)
                .toList();
    }

    @Test
    @DisplayName("every header shove writes is described")
    void everyHeaderDescribed() {
        JsonNode deadLetter = DOC.at("/components/schemas/" + HeaderSchemas.DEAD_LETTER_HEADERS + "/properties");
        JsonNode message = DOC.at("/components/schemas/" + HeaderSchemas.MESSAGE_HEADERS + "/properties");
        assertThat(ShoveHeaders.ALL).allSatisfy(h -> {
            JsonNode described = deadLetter.has(h) ? deadLetter.get(h) : message.path(h);
            assertThat(described.path("description").asText())
                    .as("description of %s", h)
                    .isNotEmpty()
                    .doesNotStartWith(HeaderSchemas.UNDESCRIBED);
        });
        assertThat(message.at("/" + ShoveHeaders.MESSAGE_ID + "/description").asText())
                .contains("UUID");
        assertThat(message.at("/" + ShoveHeaders.NOT_BEFORE + "/description").asText())
                .contains("epoch milliseconds");
    }

    @Test
    @DisplayName("a topic's messages carry shove's message headers; dead letters also say why they died")
    void whichHeadersWhere() {
        JsonNode message = DOC.at("/components/schemas/" + HeaderSchemas.MESSAGE_HEADERS + "/properties");
        assertThat(message.has(ShoveHeaders.MESSAGE_ID)).isTrue();
        assertThat(message.has(ShoveHeaders.RETRY_COUNT)).isTrue();
        assertThat(message.has(ShoveHeaders.NOT_BEFORE)).isTrue();
        assertThat(message.has(ShoveHeaders.DEATH_REASON)).isFalse();
        JsonNode deadLetter = DOC.at("/components/schemas/" + HeaderSchemas.DEAD_LETTER_HEADERS);
        assertThat(deadLetter
                        .at("/properties/" + ShoveHeaders.DEATH_REASON + "/description")
                        .asText())
                .contains("max-retries-exceeded");
        assertThat(deadLetter.path("properties").has(ShoveHeaders.NOT_BEFORE))
                .as("removed from dead letters")
                .isFalse();
        assertThat(deadLetter.path("required").toString())
                .contains(ShoveHeaders.DEATH_REASON, ShoveHeaders.ORIGINAL_QUEUE, ShoveHeaders.DEATH_COUNT);
        assertThat(DOC.at("/components/messages/orders/headers/$ref").asText())
                .isEqualTo("#/components/schemas/" + HeaderSchemas.MESSAGE_HEADERS);
    }

    @Test
    @DisplayName("headers as shove writes them, with the publisher's own, fit; a malformed count does not")
    void headersValidate() {
        Map<String, String> published = Map.of(
                ShoveHeaders.MESSAGE_ID,
                "0b5e3d5c-58e4-4b8c-9c1e-2f4f7c3a9d11",
                ShoveHeaders.RETRY_COUNT,
                "2",
                ShoveHeaders.NOT_BEFORE,
                "1796112000000",
                "tenant",
                "acme",
                "traceparent",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(errors(HeaderSchemas.MESSAGE_HEADERS, published)).isEmpty();
        assertThat(errors(HeaderSchemas.MESSAGE_HEADERS, Map.of(ShoveHeaders.RETRY_COUNT, "two")))
                .isNotEmpty();
        Map<String, String> dead = Map.of(
                ShoveHeaders.MESSAGE_ID,
                "0b5e3d5c-58e4-4b8c-9c1e-2f4f7c3a9d11",
                ShoveHeaders.DEATH_REASON,
                "rejected: amount must be positive",
                ShoveHeaders.ORIGINAL_QUEUE,
                "orders",
                ShoveHeaders.DEATH_COUNT,
                "1",
                "tenant",
                "acme");
        assertThat(errors(HeaderSchemas.DEAD_LETTER_HEADERS, dead)).isEmpty();
        assertThat(errors(HeaderSchemas.DEAD_LETTER_HEADERS, Map.of(ShoveHeaders.MESSAGE_ID, "x")))
                .as("a dead letter without its reason")
                .isNotEmpty();
    }

    @Test
    @DisplayName("any other header is a string value, the publisher's own")
    void otherHeaders() {
        JsonNode other = DOC.at("/components/schemas/" + HeaderSchemas.MESSAGE_HEADERS + "/additionalProperties");
        assertThat(other.path("type").asText()).isEqualTo("string");
        assertThat(other.path("description").asText()).contains("publisher's own");
        ObjectNode number = new com.fasterxml.jackson.databind.ObjectMapper()
                .createObjectNode()
                .put("tenant", 7);
        assertThat(DRAFT_7.getSchema(DOC.at("/components/schemas/" + HeaderSchemas.MESSAGE_HEADERS))
                        .validate(number))
                .as("header values are strings")
                .isNotEmpty();
    }
}
