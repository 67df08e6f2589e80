package dev.shove.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Topic;
import java.net.URI;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CloudEventTopicTest {
    record Thing(String id) {}

    private static final Topic<Thing> THINGS =
            Topic.builder("things", Thing.class).dlq().build();

    @Test
    @DisplayName("a topic without a type is refused, naming the topic and what to call")
    void typeRequired() {
        assertThatThrownBy(() ->
                        CloudEventTopic.binary(THINGS).source(URI.create("/t")).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'things'")
                .hasMessageContaining(".type(");
    }

    @Test
    @DisplayName("a topic without a source is refused")
    void sourceRequired() {
        assertThatThrownBy(() -> CloudEventTopic.binary(THINGS).type("t").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("source");
    }

    @Test
    @DisplayName("setting a value twice fails fast, naming the value")
    void setOnce() {
        assertThatThrownBy(() -> CloudEventTopic.binary(THINGS).type("a").type("b"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("type is already set to 'a'");
    }

    @Test
    @DisplayName("a structured topic takes no header convention")
    void structuredHasNoConvention() {
        Topic<CloudEventMessage<Thing>> audit = Topic.builder("audit", CloudEventMessage.structuredCodec(Thing.class))
                .build();

        assertThatThrownBy(() -> CloudEventTopic.structured(audit).headerConvention(HeaderConvention.KAFKA))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("topic 'audit' is structured");
    }

    @Test
    @DisplayName("the data codec of a binary topic is the topic's, and its content type the events'")
    void dataCodec() {
        CloudEventTopic<Thing> things = CloudEventTopic.binary(THINGS)
                .type("t")
                .source(URI.create("/t"))
                .build();

        assertThat(things.dataCodec()).isSameAs(THINGS.codec());
        assertThat(things.mode()).isEqualTo(CloudEventMode.BINARY);
        assertThat(things.headerConvention()).isEmpty();
    }

    @Test
    @DisplayName("an extension name outside lower-case letters and digits, or one of the spec's names, is refused")
    void extensionNames() {
        assertThatThrownBy(() -> CloudEventOptions.builder().extension("Tenant", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'Tenant' is not a CloudEvents extension name");
        assertThatThrownBy(() -> CloudEventOptions.builder().extension("subject", "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("an option header content-type is refused: the data codec gives datacontenttype")
    void contentTypeHeader() {
        assertThatThrownBy(() -> CloudEventOptions.builder().header("Content-Type", "text/plain"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("content type of the topic's data codec");
    }

    @Test
    @DisplayName("an option header under shove's reserved prefix is refused, pointing to id(...)")
    void reservedHeader() {
        assertThatThrownBy(() -> CloudEventOptions.builder().header("shove-message-id", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("set it with id(...)");
    }
}
