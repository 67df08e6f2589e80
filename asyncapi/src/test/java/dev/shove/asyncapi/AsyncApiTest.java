package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Topic;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The builder, the outputs, and reading topics from a class's constants. */
class AsyncApiTest {

    /** Topics as an application declares them, with fields {@link AsyncApi#topicsOf} must pass over. */
    public static final class Topics {
        public static final Topic<Fixtures.Order> ORDERS = Fixtures.ORDERS;
        public static final Topic<Fixtures.Customer> CUSTOMERS = Fixtures.CUSTOMERS;
        public static final Topic<byte[]> FRAMES = Fixtures.FRAMES;
        public static final String NOT_A_TOPIC = "orders";
        static final Topic<Fixtures.Times> PACKAGE_PRIVATE = Fixtures.TIMES;
        public static Topic<Fixtures.Times> notFinal = Fixtures.TIMES;
        public final Topic<Fixtures.Times> instance = Fixtures.TIMES;
    }

    static final class Broken {
        public static final Topic<Fixtures.Order> MISSING = null;
    }

    @Test
    @DisplayName("topicsOf reads a class's public static final topics, in declaration order, and nothing else")
    void topicsOf() {
        assertThat(AsyncApi.topicsOf(Topics.class))
                .containsExactly(Fixtures.ORDERS, Fixtures.CUSTOMERS, Fixtures.FRAMES);
        assertThat(AsyncApi.topicsOf(String.class)).isEmpty();
        JsonNode doc = Documents.valid(
                AsyncApi.builder().title("from constants").version("1.0.0").topics(AsyncApi.topicsOf(Topics.class)));
        assertThat(doc.path("channels").has("frames")).isTrue();
    }

    @Test
    @DisplayName("topicsOf refuses a constant that is null, naming it")
    void nullTopic() {
        assertThatThrownBy(() -> AsyncApi.topicsOf(Broken.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Broken.MISSING is null");
    }

    @Test
    @DisplayName("the title, the version and a topic are required")
    void required() {
        assertThatThrownBy(() ->
                        AsyncApi.builder().version("1").topics(Fixtures.ORDERS).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("title(...)");
        assertThatThrownBy(() ->
                        AsyncApi.builder().title("t").topics(Fixtures.ORDERS).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("version(...)");
        assertThatThrownBy(() -> AsyncApi.builder().title("t").version("1").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no topics");
    }

    @Test
    @DisplayName("a document setting given twice is refused, naming it and its first value")
    void settingTwice() {
        assertThatThrownBy(() -> AsyncApi.builder().title("a").title("b"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("title was already set to 'a'");
        assertThatThrownBy(() -> AsyncApi.builder().version(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("version must not be blank");
        assertThatThrownBy(() -> AsyncApi.builder().id("orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("id must be an absolute URI");
    }

    @Test
    @DisplayName("one topic given twice is described once; two different topics of one name are refused")
    void sameTopicTwice() {
        JsonNode doc = Documents.valid(AsyncApi.builder()
                .title("t")
                .version("1")
                .sends(Fixtures.ORDERS)
                .topics(Fixtures.ORDERS));
        assertThat(doc.path("channels").size()).isEqualTo(4);
        Topic<Fixtures.Order> other = Topic.builder("orders", Fixtures.Order.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        assertThatThrownBy(() -> AsyncApi.builder().topics(Fixtures.ORDERS, other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic 'orders' is given twice")
                .hasMessageContaining("hold tiers [500ms, 30s]")
                .hasMessageContaining("hold tiers [1s]");
    }

    @Test
    @DisplayName("the info, id and AsyncAPI version are written")
    void info() {
        JsonNode doc = Documents.valid(AsyncApi.builder()
                .title("orders service")
                .version("1.4.0")
                .description("Takes orders.")
                .id("urn:com:example:orders")
                .topics(Fixtures.ORDERS));
        assertThat(doc.path("asyncapi").asText()).isEqualTo("3.0.0").isEqualTo(AsyncApi.ASYNCAPI_VERSION);
        assertThat(doc.path("id").asText()).isEqualTo("urn:com:example:orders");
        assertThat(doc.at("/info/title").asText()).isEqualTo("orders service");
        assertThat(doc.at("/info/version").asText()).isEqualTo("1.4.0");
        assertThat(doc.at("/info/description").asText()).isEqualTo("Takes orders.");
        assertThat(doc.path("defaultContentType").asText()).isEqualTo("application/json");
    }

    @Test
    @DisplayName("JSON is indented by two spaces and ends with a line break; the tree is a copy; both are stable")
    void outputs() {
        AsyncApi api = AsyncApi.builder()
                .title("t")
                .version("1")
                .topics(Fixtures.ORDERS)
                .build();
        Documents.valid(api);
        assertThat(api.toJson()).startsWith("{\n  \"asyncapi\": \"3.0.0\",\n").endsWith("}\n");
        ((ObjectNode) api.toTree()).put("asyncapi", "2.6.0");
        assertThat(api.toJson()).contains("\"asyncapi\": \"3.0.0\"");
        String again = AsyncApi.builder()
                .title("t")
                .version("1")
                .topics(Fixtures.ORDERS)
                .build()
                .toJson();
        assertThat(again).isEqualTo(api.toJson());
        assertThat(api.toYaml()).startsWith("asyncapi: \"3.0.0\"\ninfo:\n  title: t\n");
        assertThat(api).hasToString("AsyncApi[t 1, 4 channels]");
    }
}
