package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.shove.Codec;
import dev.shove.Topic;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The payload schemas a user reads: what a message type becomes, checked against what the codec really writes. */
class PayloadSchemasTest {
    private static JsonNode doc;

    private static final Fixtures.Order ORDER = new Fixtures.Order(
            "o-1",
            Fixtures.Status.SHIPPED,
            List.of(new Fixtures.Line("sku-1", 2, new Fixtures.Money(new BigDecimal("12.50"), "EUR"))),
            Set.of("gift"),
            Map.of("attempts", 1),
            Optional.of(new Fixtures.Address("1 Main St", "Lyon", Optional.empty())),
            null,
            Instant.parse("2026-12-01T10:15:30.123Z"),
            1250);

    @BeforeAll
    static void build() {
        doc = Documents.valid(AsyncApi.builder()
                .title("payloads")
                .version("1.0.0")
                .topics(Fixtures.ORDERS, Fixtures.CUSTOMERS, Fixtures.ORDER_PAGES, Fixtures.FRAMES, Fixtures.TIMES));
    }

    private static JsonNode schema(String name) {
        return doc.at("/components/schemas/" + name);
    }

    @Test
    @DisplayName("a record becomes a named object schema; nested records and enums are named schemas it refers to")
    void recordWithNestedTypes() {
        assertThat(doc.at("/components/messages/orders/payload/$ref").asText()).isEqualTo("#/components/schemas/Order");
        JsonNode order = schema("Order");
        assertThat(order.path("type").asText()).isEqualTo("object");
        assertThat(order.path("properties").propertyStream().map(Map.Entry::getKey))
                .as("properties in declaration order, as Jackson writes them")
                .containsExactly(
                        "orderId", "status", "lines", "tags", "counters", "shipTo", "note", "placedAt", "cents");
        assertThat(order.at("/properties/status/$ref").asText()).isEqualTo("#/components/schemas/Status");
        assertThat(order.at("/properties/lines/items/$ref").asText()).isEqualTo("#/components/schemas/Line");
        assertThat(schema("Line").at("/properties/price/$ref").asText()).isEqualTo("#/components/schemas/Money");
        assertThat(schema("Money").at("/properties/amount/type").asText()).isEqualTo("number");
        assertThat(order.at("/properties/tags/type").asText()).isEqualTo("array");
        assertThat(order.at("/properties/counters/additionalProperties/type").asText())
                .isEqualTo("integer");
        assertThat(order.at("/properties/placedAt/format").asText()).isEqualTo("date-time");
        assertThat(order.at("/properties/cents/format").asText()).isEqualTo("int64");
    }

    @Test
    @DisplayName("an enum lists the values Jackson writes, @JsonProperty names included")
    void enumValues() {
        assertThat(schema("Status").path("type").asText()).isEqualTo("string");
        assertThat(schema("Status").path("enum"))
                .extracting(JsonNode::asText)
                .containsExactly("NEW", "PAID", "shipped-out");
    }

    @Test
    @DisplayName("Optional and @Nullable properties may be null and are not required; every other one is")
    void requiredAndNullable() {
        JsonNode order = schema("Order");
        assertThat(order.path("required"))
                .extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("orderId", "status", "lines", "tags", "counters", "placedAt", "cents");
        assertThat(order.at("/properties/note/type"))
                .extracting(JsonNode::asText)
                .contains("string", "null");
        assertThat(order.at("/properties/shipTo/anyOf").toString())
                .contains("\"null\"")
                .contains("#/components/schemas/Address");
    }

    @Test
    @DisplayName("a POJO's properties are Jackson's: public fields and getters, without @JsonIgnore ones")
    void pojo() {
        assertThat(schema("Customer").path("properties").propertyStream().map(Map.Entry::getKey))
                .containsExactlyInAnyOrder("name", "visits");
    }

    @Test
    @DisplayName("a generic payload is named with its type arguments and resolves them")
    void genericPayload() {
        assertThat(doc.at("/components/messages/order-pages/payload/$ref").asText())
                .isEqualTo("#/components/schemas/Page_Order");
        assertThat(doc.at("/components/messages/order-pages/name").asText()).isEqualTo("Page<Order>");
        assertThat(schema("Page_Order").at("/properties/items/items/$ref").asText())
                .isEqualTo("#/components/schemas/Order");
    }

    @Test
    @DisplayName("a byte[] topic's payload is binary, with the raw codec's content type")
    void rawBytes() {
        JsonNode message = doc.at("/components/messages/frames");
        assertThat(message.path("contentType").asText()).isEqualTo("application/octet-stream");
        assertThat(message.at("/payload/type").asText()).isEqualTo("string");
        assertThat(message.at("/payload/format").asText()).isEqualTo("binary");
    }

    @Test
    @DisplayName("a message the JSON codec writes validates against its payload schema")
    void encodedOrderValidates() throws Exception {
        JsonNode encoded = Documents.read(new String(Fixtures.ORDERS.codec().encode(ORDER), StandardCharsets.UTF_8));
        assertThat(Documents.payloadErrors(doc, "orders", encoded)).isEmpty();
        var page = new Fixtures.Page<>(List.of(ORDER), 1, Optional.of("cursor-2"));
        JsonNode encodedPage =
                Documents.read(new String(Fixtures.ORDER_PAGES.codec().encode(page), StandardCharsets.UTF_8));
        assertThat(Documents.payloadErrors(doc, "order-pages", encodedPage)).isEmpty();
    }

    @Test
    @DisplayName("java.time values, UUIDs, byte[] and chars as the JSON codec writes them validate against the schema")
    void encodedValueTypesValidate() throws Exception {
        var times = new Fixtures.Times(
                Instant.parse("2026-12-01T10:15:30.123456789Z"),
                LocalDate.of(2026, 12, 1),
                LocalDateTime.of(2026, 12, 1, 10, 15, 30, 500_000_000),
                LocalTime.of(10, 15, 30),
                OffsetDateTime.parse("2026-12-01T10:15:30+02:00"),
                ZonedDateTime.parse("2026-12-01T10:15:30+01:00[Europe/Paris]"),
                OffsetTime.parse("10:15:30+02:00"),
                Year.of(2026),
                YearMonth.of(2026, 12),
                MonthDay.of(12, 1),
                Period.ofDays(3),
                ZoneId.of("Europe/Paris"),
                ZoneOffset.ofHours(2),
                Duration.ofMillis(1500),
                UUID.fromString("0b5e3d5c-58e4-4b8c-9c1e-2f4f7c3a9d11"),
                new byte[] {0, 1, (byte) 0xff},
                'x',
                0.25,
                null);
        String json = new String(Fixtures.TIMES.codec().encode(times), StandardCharsets.UTF_8);
        assertThat(Documents.payloadErrors(doc, "times", Documents.read(json)))
                .as("errors of %s", json)
                .isEmpty();
    }

    @Test
    @DisplayName("a message that breaks its schema is caught (the payload check can fail)")
    void brokenMessageIsCaught() {
        JsonNode broken = Documents.read("{\"orderId\": 7, \"status\": \"LOST\"}");
        assertThat(Documents.payloadErrors(doc, "orders", broken)).hasSizeGreaterThanOrEqualTo(3);
    }

    @Test
    @DisplayName("a codec that does not know its type gives any JSON, or binary when it writes something else")
    void unknownType() {
        Codec<String> opaqueJson = new Codec<>() {
            @Override
            public byte[] encode(String message) {
                return message.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String decode(byte[] payload) {
                return new String(payload, StandardCharsets.UTF_8);
            }

            @Override
            public String contentType() {
                return "application/json";
            }
        };
        Codec<String> avro = new Codec<>() {
            @Override
            public byte[] encode(String message) {
                return message.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String decode(byte[] payload) {
                return new String(payload, StandardCharsets.UTF_8);
            }

            @Override
            public String contentType() {
                return "avro/binary";
            }
        };
        JsonNode unknown = Documents.valid(AsyncApi.builder()
                .title("codecs")
                .version("1.0.0")
                .topics(
                        Topic.builder("opaque", opaqueJson).dlq().build(),
                        Topic.builder("avro", avro).dlq().build()));
        JsonNode opaque = unknown.at("/components/messages/opaque/payload");
        assertThat(opaque.has("type")).as("any JSON value: no type").isFalse();
        assertThat(opaque.path("description").asText()).contains("does not say which Java type");
        assertThat(unknown.at("/components/messages/avro/payload/format").asText())
                .isEqualTo("binary");
        assertThat(unknown.at("/components/messages/avro/contentType").asText()).isEqualTo("avro/binary");
    }

    record Item(String a) {}

    static final class Other {
        record Item(int b) {}
    }

    @Test
    @DisplayName("two types of one simple name get two schemas, named the same way on every run")
    void sameSimpleName() {
        JsonNode twice = Documents.valid(AsyncApi.builder()
                .title("names")
                .version("1.0.0")
                .topics(
                        Topic.builder("a", Item.class).dlq().build(),
                        Topic.builder("b", Other.Item.class).dlq().build()));
        assertThat(twice.at("/components/messages/a/payload/$ref").asText()).isEqualTo("#/components/schemas/Item");
        assertThat(twice.at("/components/messages/b/payload/$ref").asText()).isEqualTo("#/components/schemas/Item-2");
        assertThat(twice.at("/components/schemas/Item-2/properties/b/type").asText())
                .isEqualTo("integer");
    }
}
