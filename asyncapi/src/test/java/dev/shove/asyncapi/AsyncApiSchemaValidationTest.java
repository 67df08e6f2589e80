package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Topic;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind of document validates against the official AsyncAPI 3.0.0 JSON Schema, on every kind of broker. */
class AsyncApiSchemaValidationTest {
    private static final List<String> SERVERS = List.of(
            "kafka://kafka-1:9092,kafka-2:9092?partitions=12&replicationFactor=3&messageKeyHeader=tenant",
            "amqp://app:secret@rabbit.internal:5672/orders",
            "sqs://eu-west-1?namePrefix=prod-",
            "redis://redis.internal:6379",
            "nats://nats.internal:4222",
            "memory:");

    static Stream<Arguments> documents() {
        return Stream.of(
                        Arguments.of("plain", List.of(Fixtures.ORDERS)),
                        Arguments.of("sequenced", List.of(Fixtures.ORDER_EVENTS)),
                        Arguments.of("broadcast", List.of(Fixtures.CUSTOMERS)),
                        Arguments.of("generic payload", List.of(Fixtures.ORDER_PAGES)),
                        Arguments.of("raw bytes", List.of(Fixtures.FRAMES)),
                        Arguments.of("java.time and other value types", List.of(Fixtures.TIMES)),
                        Arguments.of(
                                "several topics",
                                List.of(
                                        Fixtures.ORDERS,
                                        Fixtures.ORDER_EVENTS,
                                        Fixtures.CUSTOMERS,
                                        Fixtures.ORDER_PAGES,
                                        Fixtures.FRAMES,
                                        Fixtures.TIMES)))
                .flatMap(a -> Stream.concat(
                        Stream.of(Arguments.of(a.get()[0], a.get()[1], "no server")),
                        SERVERS.stream().map(uri -> Arguments.of(a.get()[0], a.get()[1], uri))));
    }

    @ParameterizedTest(name = "{0} on {2}")
    @MethodSource("documents")
    @DisplayName("the document validates against the AsyncAPI 3.0.0 schema")
    void validates(String what, List<Topic<?>> topics, String server) {
        AsyncApi.Builder builder =
                AsyncApi.builder().title("shop " + what).version("1.0.0").topics(topics);
        if (!server.equals("no server")) {
            builder.server("production", server);
        }
        JsonNode doc = Documents.valid(builder);
        assertThat(doc.path("channels").size()).isGreaterThanOrEqualTo(topics.size());
    }

    @Test
    @DisplayName("a document with every kind of server at once validates, each channel naming the servers it is on")
    void everyServerAtOnce() {
        AsyncApi.Builder builder = AsyncApi.builder()
                .title("shop")
                .version("2.1.0")
                .description("Orders, payments and what happens to them.")
                .id("urn:com:example:shop")
                .topics(Fixtures.ORDERS, Fixtures.ORDER_EVENTS, Fixtures.CUSTOMERS, Fixtures.FRAMES)
                .sends(Fixtures.ORDER_PAGES)
                .receives(Fixtures.TIMES);
        for (int i = 0; i < SERVERS.size(); i++) {
            builder.server("server-" + i, SERVERS.get(i), "broker " + i);
        }
        JsonNode doc = Documents.valid(builder);
        // SQS has no hold queues, so a hold tier is on the other servers only
        assertThat(doc.at("/channels/orders-hold-500ms/servers").findValuesAsText("$ref"))
                .doesNotContain("#/servers/server-2")
                .contains("#/servers/server-0");
    }

    @Test
    @DisplayName("the schema check finds a document that breaks the schema (the check can fail)")
    void invalidDocumentIsCaught() {
        JsonNode doc = Documents.valid(
                AsyncApi.builder().title("shop").version("1.0.0").topics(Fixtures.ORDERS));
        ((ObjectNode) doc.at("/operations/orders.send")).put("action", "publish"); // AsyncAPI 2's word, not 3's
        assertThat(Documents.asyncApiErrors(doc)).isNotEmpty();
    }
}
