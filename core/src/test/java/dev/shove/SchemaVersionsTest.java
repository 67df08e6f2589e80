package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("SchemaVersions")
class SchemaVersionsTest {

    private static Map<String, String> at(String version) {
        return Map.of(ShoveHeaders.SCHEMA_VERSION, version);
    }

    @Test
    @DisplayName("a message without the schema version header was written at version 1")
    void absentIsVersionOne() {
        assertThat(SchemaVersions.<String>builder(3).build().versionOf(Map.of()))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("the header holds the version a message was written at")
    void readsTheHeader() {
        assertThat(SchemaVersions.<String>builder(3).build().versionOf(at("2"))).isEqualTo(2);
    }

    @Test
    @DisplayName("a version newer than the current one is refused with that version named")
    void newerRefused() {
        assertThatThrownBy(() -> SchemaVersions.<String>builder(3).build().versionOf(at("4")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("schema version 4 is newer than this consumer reads (up to 3)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "-1", "two", "1.0", "99999999999", " 2"})
    @DisplayName("a header value that is not a version of 1 or more is refused with the value named")
    void unreadable(String value) {
        assertThatThrownBy(() -> SchemaVersions.<String>builder(3).build().versionOf(at(value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("header shove-schema-version is '%s', not a schema version (1 or more)", value);
    }

    @Test
    @DisplayName("a versioned codec writes its current version")
    void headers() {
        assertThat(SchemaVersions.<String>builder(3).build().headers())
                .containsExactly(Map.entry(ShoveHeaders.SCHEMA_VERSION, "3"));
    }

    @Test
    @DisplayName("upcasting runs each upcaster from the message's version up to the current one, in order")
    void upcastsInOrder() throws Exception {
        List<Integer> ran = new ArrayList<>();
        SchemaVersions<String> versions = SchemaVersions.<String>builder(4)
                .upcaster(3, s -> {
                    ran.add(3);
                    return s + ">4";
                })
                .upcaster(1, s -> {
                    ran.add(1);
                    return s + ">2";
                })
                .upcaster(2, s -> {
                    ran.add(2);
                    return s + ">3";
                })
                .build();
        assertThat(versions.upcast("1", 1)).isEqualTo("1>2>3>4");
        assertThat(versions.upcast("2", 2)).isEqualTo("2>3>4");
        assertThat(versions.upcast("4", 4)).isEqualTo("4");
        assertThat(ran).containsExactly(1, 2, 3, 2, 3);
    }

    @Test
    @DisplayName("a step without an upcaster leaves the value as it was read")
    void missingStepIsIdentity() throws Exception {
        SchemaVersions<String> versions =
                SchemaVersions.<String>builder(3).upcaster(2, s -> s + ">3").build();
        assertThat(versions.upcast("1", 1)).isEqualTo("1>3");
    }

    @Test
    @DisplayName("an upcaster that returns null fails naming its step")
    void nullUpcast() {
        SchemaVersions<String> versions =
                SchemaVersions.<String>builder(2).upcaster(1, s -> null).build();
        assertThatThrownBy(() -> versions.upcast("1", 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the upcaster from schema version 1 to 2 returned null");
    }

    @Nested
    @DisplayName("building")
    class Building {
        @Test
        @DisplayName("a current version below 1 is refused")
        void currentBelowOne() {
            assertThatThrownBy(() -> SchemaVersions.builder(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a schema's current version must be 1 or more, not 0");
        }

        @Test
        @DisplayName("an upcaster from the current version or beyond is refused")
        void outOfRange() {
            assertThatThrownBy(() -> SchemaVersions.<String>builder(3).upcaster(3, s -> s))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("an upcaster from version 3 is out of range: the current version is 3, so upcasters"
                            + " go from versions 1 to 2");
        }

        @Test
        @DisplayName("registering a step twice fails naming the step")
        void twice() {
            var builder = SchemaVersions.<String>builder(3).upcaster(1, s -> s);
            assertThatThrownBy(() -> builder.upcaster(1, s -> s))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the upcaster from version 1 to 2 was already registered");
        }
    }

    @Nested
    @DisplayName("the versioned JSON codec")
    class Json {
        record OrderV1(String id, long cents) {}

        record OrderV3(String id, long amountCents, String currency) {}

        private final Codec<OrderV3> codec = Codec.json(
                OrderV3.class,
                SchemaVersions.<JsonNode>builder(3)
                        .upcaster(1, v1 -> ((ObjectNode) v1).put("currency", "EUR"))
                        .upcaster(2, v2 -> {
                            ObjectNode o = (ObjectNode) v2;
                            o.set("amountCents", o.remove("cents"));
                            return o;
                        })
                        .build());

        @Test
        @DisplayName("writes its current version and reads its own messages back")
        void roundTrip() throws Exception {
            OrderV3 order = new OrderV3("o-1", 1299, "USD");
            assertThat(codec.headers()).containsExactly(Map.entry(ShoveHeaders.SCHEMA_VERSION, "3"));
            assertThat(codec.decode(codec.encode(order), codec.headers())).isEqualTo(order);
            assertThat(codec.name()).isEqualTo("json(" + OrderV3.class.getName() + ", v3)");
        }

        @Test
        @DisplayName("reads a version 1 message, written without the header, through both upcasters")
        void upcastsFromOne() throws Exception {
            byte[] v1 = Codec.json(OrderV1.class).encode(new OrderV1("o-1", 500));
            assertThat(codec.decode(v1, Map.of())).isEqualTo(new OrderV3("o-1", 500, "EUR"));
        }

        @Test
        @DisplayName("reads a version 2 message through the last upcaster only")
        void upcastsFromTwo() throws Exception {
            byte[] v2 = "{\"id\":\"o-2\",\"cents\":700,\"currency\":\"GBP\"}".getBytes(StandardCharsets.UTF_8);
            assertThat(codec.decode(v2, at("2"))).isEqualTo(new OrderV3("o-2", 700, "GBP"));
        }

        @Test
        @DisplayName("refuses a version 4 message, naming the version")
        void newer() {
            assertThatThrownBy(() -> codec.decode(codec.encode(new OrderV3("o", 1, "EUR")), at("4")))
                    .hasMessageStartingWith("schema version 4 is newer than this consumer reads (up to 3)");
        }

        @Test
        @DisplayName("the unversioned JSON codec writes no header and ignores one")
        void unversioned() throws Exception {
            Codec<OrderV1> plain = Codec.json(OrderV1.class);
            assertThat(plain.headers()).isEmpty();
            assertThat(plain.decode(plain.encode(new OrderV1("o", 1)), at("9"))).isEqualTo(new OrderV1("o", 1));
        }
    }
}
