package dev.shove.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEventContext;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BinaryAttributesTest {
    private static final CloudEventContext EVENT = CloudEventBuilder.v1()
            .withId("e-1")
            .withType("com.acme.thing")
            .withSource(URI.create("/things"))
            .withSubject("t-1")
            .withTime(OffsetDateTime.of(2026, 12, 7, 10, 0, 0, 0, ZoneOffset.UTC))
            .withDataContentType("application/json")
            .withExtension("tenant", "acme")
            .build();

    @Test
    @DisplayName("the Kafka convention writes ce_ headers and a content-type header")
    void writesKafka() {
        assertThat(BinaryAttributes.write(EVENT, HeaderConvention.KAFKA))
                .containsEntry("ce_specversion", "1.0")
                .containsEntry("ce_id", "e-1")
                .containsEntry("ce_type", "com.acme.thing")
                .containsEntry("ce_source", "/things")
                .containsEntry("ce_subject", "t-1")
                .containsEntry("ce_time", "2026-12-07T10:00:00Z")
                .containsEntry("ce_tenant", "acme")
                .containsEntry("content-type", "application/json")
                .hasSize(8);
    }

    @Test
    @DisplayName("the AMQP convention writes cloudEvents: headers and leaves the content type to the AMQP property")
    void writesAmqp() {
        assertThat(BinaryAttributes.write(EVENT, HeaderConvention.AMQP))
                .containsEntry("cloudEvents:id", "e-1")
                .containsEntry("cloudEvents:tenant", "acme")
                .doesNotContainKey("content-type")
                .hasSize(7);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ce_", "ce-", "cloudEvents:", "cloudEvents_", "Ce-", "CE_"})
    @DisplayName("every known convention is read back, whatever the case of the prefix")
    void readsEveryConvention(String prefix) {
        CloudEventContext read = BinaryAttributes.read(
                Map.of(
                        prefix + "specversion", "1.0",
                        prefix + "id", "e-1",
                        prefix + "type", "com.acme.thing",
                        prefix + "source", "/things",
                        prefix + "tenant", "acme"),
                "application/json");

        assertThat(read.getId()).isEqualTo("e-1");
        assertThat(read.getType()).isEqualTo("com.acme.thing");
        assertThat(read.getExtension("tenant")).isEqualTo("acme");
        assertThat(read.getDataContentType()).isEqualTo("application/json");
    }

    @Test
    @DisplayName("a content-type header gives datacontenttype over the codec's")
    void contentTypeHeader() {
        CloudEventContext read = BinaryAttributes.read(
                Map.of(
                        "ce_specversion", "1.0",
                        "ce_id", "e-1",
                        "ce_type", "t",
                        "ce_source", "/s",
                        "Content-Type", "application/xml"),
                "application/json");

        assertThat(read.getDataContentType()).isEqualTo("application/xml");
    }

    @Test
    @DisplayName("what was written is read back the same")
    void roundTrip() {
        for (HeaderConvention convention : HeaderConvention.KNOWN) {
            CloudEventContext read =
                    BinaryAttributes.read(BinaryAttributes.write(EVENT, convention), "application/json");
            assertThat(read).as(convention.prefix()).usingRecursiveComparison().isEqualTo(EVENT);
        }
    }

    @Test
    @DisplayName("headers without a specversion are not a CloudEvent")
    void noSpecversion() {
        assertThatThrownBy(() -> BinaryAttributes.read(Map.of("ce_id", "e-1"), "application/json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no CloudEvents 'specversion' header");
    }

    @Test
    @DisplayName("a missing required attribute is named by its header")
    void missingType() {
        assertThatThrownBy(() -> BinaryAttributes.read(
                        Map.of("ce_specversion", "1.0", "ce_id", "e-1", "ce_source", "/s"), "application/json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("required CloudEvents header 'ce_type' is missing or empty");
    }

    @Test
    @DisplayName("a time that is not RFC 3339 is named with its value")
    void badTime() {
        assertThatThrownBy(() -> BinaryAttributes.read(
                        Map.of(
                                "ce_specversion", "1.0",
                                "ce_id", "e-1",
                                "ce_type", "t",
                                "ce_source", "/s",
                                "ce_time", "yesterday"),
                        "application/json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("header 'ce_time' is not an RFC 3339 time: 'yesterday'");
    }

    @Test
    @DisplayName("a specversion other than 1.0 is refused, named")
    void otherVersion() {
        assertThatThrownBy(() -> BinaryAttributes.read(Map.of("ce_specversion", "0.3"), "application/json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("header 'ce_specversion' is '0.3'; shove reads CloudEvents 1.0");
    }
}
