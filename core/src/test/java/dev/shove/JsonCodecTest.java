package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.OptBoolean;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.lang.reflect.ParameterizedType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("JsonCodec")
class JsonCodecTest {
    record Order(String id, long cents, List<String> items) {}

    record Timed(Instant at, LocalDate day, Duration took, OffsetDateTime local, Optional<String> note) {}

    record OrderPaid(String orderId, long cents) {}

    record Basket(String id, List<OrderPaid> orders) {}

    record Evolving(
            String id,
            Optional<String> note,
            OptionalInt rank,
            @JsonProperty(isRequired = OptBoolean.FALSE) String region,
            @Nullable String comment) {}

    /** A class set through its fields: absent properties keep their initial values. */
    static final class Legacy {
        public String id = "none";
        public long cents = 7;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("a JSON codec knows its message type, generics included; the raw codec's is byte[]")
    void messageType() {
        assertThat(Codec.json(Order.class).messageType()).hasValue(Order.class);
        assertThat(Codec.json(new TypeReference<List<Order>>() {}).messageType())
                .hasValueSatisfying(t -> assertThat(t)
                        .isInstanceOf(ParameterizedType.class)
                        .hasToString("java.util.List<dev.shove.JsonCodecTest$Order>"));
        assertThat(Codec.raw().messageType()).hasValue(byte[].class);
    }

    @Test
    @DisplayName("a record survives encode then decode unchanged")
    void roundTrip() throws Exception {
        Codec<Order> codec = Codec.json(Order.class);
        Order order = new Order("o-1", 1299, List.of("book", "pen"));

        assertThat(codec.decode(codec.encode(order))).isEqualTo(order);
    }

    @Test
    @DisplayName("unknown properties are ignored, so producers can add fields")
    void unknownPropertiesIgnored() throws Exception {
        Codec<Order> codec = Codec.json(Order.class);

        Order order = codec.decode(utf8("{\"id\":\"o-1\",\"cents\":5,\"items\":[],\"addedLater\":{\"x\":1}}"));

        assertThat(order).isEqualTo(new Order("o-1", 5, List.of()));
    }

    @Test
    @DisplayName("a message of the wrong shape is refused, naming the first required field it lacks")
    void wrongShapeRefused() {
        Codec<OrderPaid> codec = Codec.json(OrderPaid.class);

        assertThatThrownBy(() -> codec.decode(utf8("{\"id\":\"o-1\",\"amount\":5}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("required field 'orderId' is missing");
    }

    @Test
    @DisplayName("a record component that is missing is refused, even a primitive one, naming it")
    void missingComponentRefused() {
        Codec<OrderPaid> codec = Codec.json(OrderPaid.class);

        assertThatThrownBy(() -> codec.decode(utf8("{\"orderId\":\"o-1\"}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("required field 'cents' is missing");
    }

    @Test
    @DisplayName("JSON null for a primitive is refused, naming the field and its type")
    void nullPrimitiveRefused() {
        Codec<OrderPaid> codec = Codec.json(OrderPaid.class);

        assertThatThrownBy(() -> codec.decode(utf8("{\"orderId\":\"o-1\",\"cents\":null}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("field 'cents' is null, but its type long cannot be null");
    }

    @Test
    @DisplayName("a failure inside a nested value names the field by its path")
    void nestedPathNamed() {
        Codec<Basket> codec = Codec.json(Basket.class);

        assertThatThrownBy(() -> codec.decode(
                        utf8("{\"id\":\"b\",\"orders\":[{\"orderId\":\"a\",\"cents\":1},{\"orderId\":\"b\"}]}")))
                .hasMessage("required field 'orders[1].cents' is missing");
        assertThatThrownBy(() -> codec.decode(utf8("{\"id\":\"b\",\"orders\":[{\"orderId\":\"a\",\"cents\":\"x\"}]}")))
                .hasMessageStartingWith("field 'orders[0].cents': ");
    }

    @Test
    @DisplayName("Optional components, @Nullable ones and @JsonProperty(isRequired = FALSE) ones may be absent")
    void optionalMayBeAbsent() throws Exception {
        Codec<Evolving> codec = Codec.json(Evolving.class);

        assertThat(codec.decode(utf8("{\"id\":\"e\"}")))
                .isEqualTo(new Evolving("e", Optional.empty(), OptionalInt.empty(), null, null));
        assertThatThrownBy(() -> codec.decode(utf8("{\"note\":\"n\"}"))).hasMessage("required field 'id' is missing");
    }

    @Test
    @DisplayName("JSON null for a reference component is accepted as null: the producer sent it")
    void explicitNullReferenceAccepted() throws Exception {
        Codec<OrderPaid> codec = Codec.json(OrderPaid.class);

        assertThat(codec.decode(utf8("{\"orderId\":null,\"cents\":3}"))).isEqualTo(new OrderPaid(null, 3));
    }

    @Test
    @DisplayName("a class's field and setter properties are never required: absent ones keep their initial values,"
            + " but JSON null for a primitive is refused")
    void classProperties() throws Exception {
        Codec<Legacy> codec = Codec.json(Legacy.class);

        Legacy absent = codec.decode(utf8("{}"));
        assertThat(absent.id).isEqualTo("none");
        assertThat(absent.cents).isEqualTo(7);
        assertThatThrownBy(() -> codec.decode(utf8("{\"cents\":null}")))
                .hasMessage("field 'cents' is null, but its type long cannot be null");
    }

    @Test
    @DisplayName("a lenient codec decodes a message of the wrong shape with nulls and zeros, as Jackson does")
    void lenient() throws Exception {
        Codec<OrderPaid> codec = Codec.jsonBuilder(OrderPaid.class).lenient().build();

        assertThat(codec.decode(utf8("{\"id\":\"o-1\",\"amount\":5}"))).isEqualTo(new OrderPaid(null, 0));
        assertThat(codec.decode(utf8("{\"orderId\":\"o\",\"cents\":null}"))).isEqualTo(new OrderPaid("o", 0));
    }

    @Test
    @DisplayName("a codec over the user's own mapper is strict too, and lenient when built so")
    void ownMapperStrictness() throws Exception {
        ObjectMapper mapper = new ObjectMapper();

        assertThatThrownBy(() -> Codec.json(OrderPaid.class, mapper).decode(utf8("{\"orderId\":\"o\"}")))
                .hasMessage("required field 'cents' is missing");
        assertThat(Codec.jsonBuilder(OrderPaid.class)
                        .mapper(mapper)
                        .lenient()
                        .build()
                        .decode(utf8("{\"orderId\":\"o\"}")))
                .isEqualTo(new OrderPaid("o", 0));
    }

    @Test
    @DisplayName("a builder without settings builds the default codec; each setting may be given once")
    void builder() throws Exception {
        Codec<List<OrderPaid>> generic =
                Codec.jsonBuilder(new TypeReference<List<OrderPaid>>() {}).build();

        assertThat(generic.decode(utf8("[{\"orderId\":\"o\",\"cents\":1}]"))).containsExactly(new OrderPaid("o", 1));
        assertThatThrownBy(() -> generic.decode(utf8("[{}]"))).hasMessage("required field '[0].orderId' is missing");
        assertThatThrownBy(() -> Codec.jsonBuilder(OrderPaid.class).lenient().lenient())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lenient");
        assertThatThrownBy(() -> Codec.jsonBuilder(OrderPaid.class)
                        .mapper(new ObjectMapper())
                        .mapper(new ObjectMapper()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mapper");
    }

    @Test
    @DisplayName("a JSON null payload is refused, never handed over as a null message")
    void jsonNullRefused() {
        Codec<Order> codec = Codec.json(Order.class);

        assertThatThrownBy(() -> codec.decode(utf8("null")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JSON null");
        assertThatThrownBy(() -> codec.decode(utf8("  null  "))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("bytes that are not JSON of the type are refused")
    void garbageRefused() {
        Codec<Order> codec = Codec.json(Order.class);

        assertThatThrownBy(() -> codec.decode(utf8("not valid json"))).isInstanceOf(Exception.class);
        assertThatThrownBy(() -> codec.decode(utf8("{\"cents\":\"many\"}"))).isInstanceOf(Exception.class);
        assertThatThrownBy(() -> codec.decode(new byte[0])).isInstanceOf(Exception.class);
    }

    @Test
    @DisplayName("java.time and Optional round-trip, dates written as ISO-8601 text, offsets kept")
    void javaTime() throws Exception {
        Codec<Timed> codec = Codec.json(Timed.class);
        Timed value = new Timed(
                Instant.parse("2025-03-01T12:34:56.789Z"),
                LocalDate.of(2025, 3, 1),
                Duration.ofSeconds(90),
                OffsetDateTime.of(2025, 3, 1, 8, 0, 0, 0, ZoneOffset.ofHours(2)),
                Optional.of("n"));

        byte[] json = codec.encode(value);

        assertThat(codec.decode(json)).isEqualTo(value);
        Map<String, Object> tree = new ObjectMapper().readValue(json, new TypeReference<Map<String, Object>>() {});
        assertThat(tree)
                .containsEntry("at", "2025-03-01T12:34:56.789Z")
                .containsEntry("day", "2025-03-01")
                .containsEntry("local", "2025-03-01T08:00:00+02:00")
                .containsEntry("note", "n");
    }

    @Test
    @DisplayName("an empty Optional round-trips")
    void emptyOptional() throws Exception {
        Codec<Timed> codec = Codec.json(Timed.class);
        Timed value = new Timed(
                Instant.EPOCH,
                LocalDate.EPOCH,
                Duration.ZERO,
                OffsetDateTime.of(2025, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
                Optional.empty());

        assertThat(codec.decode(codec.encode(value))).isEqualTo(value);
    }

    @Test
    @DisplayName("a generic type reads through a TypeReference")
    void generic() throws Exception {
        Codec<List<Order>> codec = Codec.json(new TypeReference<List<Order>>() {});
        List<Order> orders = List.of(new Order("a", 1, List.of()), new Order("b", 2, List.of("x")));

        assertThat(codec.decode(codec.encode(orders))).isEqualTo(orders);
    }

    @Test
    @DisplayName("a user's own mapper is used as configured")
    void ownMapper() throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Codec<Order> codec = Codec.json(Order.class, mapper);

        assertThat(text(codec.encode(new Order("o", 1, List.of())))).contains("\n");
    }

    @Test
    @DisplayName("content type application/json; the name shows the type")
    void describes() {
        Codec<Order> codec = Codec.json(Order.class);

        assertThat(codec.contentType()).isEqualTo("application/json");
        assertThat(codec.name()).startsWith("json(").contains("Order");
    }

    @Test
    @DisplayName("the raw codec passes bytes through unchanged")
    void raw() throws Exception {
        byte[] bytes = {0, (byte) 0xff, 42};

        assertThat(Codec.raw().encode(bytes)).isSameAs(bytes);
        assertThat(Codec.raw().decode(bytes)).isSameAs(bytes);
        assertThat(Codec.raw().name()).isEqualTo("raw");
    }
}
