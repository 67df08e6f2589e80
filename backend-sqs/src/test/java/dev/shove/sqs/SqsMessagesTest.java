package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.PublishException;
import dev.shove.ShoveHeaders;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

class SqsMessagesTest {

    private static SqsMessages.Decoded roundTrip(byte[] payload, Map<String, String> headers) {
        SqsMessages.Encoded encoded = SqsMessages.encode(payload, headers, "a test message");
        return SqsMessages.decode(encoded.body(), encoded.forSqs());
    }

    @Test
    @DisplayName("shove's headers ride in one attribute; the user's headers are attributes of their own")
    void shoveHeadersPacked() {
        Map<String, String> headers = Map.of(
                ShoveHeaders.MESSAGE_ID,
                "id-1",
                ShoveHeaders.RETRY_COUNT,
                "2",
                ShoveHeaders.NOT_BEFORE,
                "123",
                "x-trace",
                "t-1");
        SqsMessages.Encoded encoded = SqsMessages.encode("{}".getBytes(StandardCharsets.UTF_8), headers, "m");

        assertThat(encoded.attributes()).containsOnlyKeys(SqsMessages.SHOVE_ATTRIBUTE, "x-trace");
        assertThat(roundTrip("{}".getBytes(StandardCharsets.UTF_8), headers).headers())
                .isEqualTo(headers);
    }

    @Test
    @DisplayName("a JSON payload is the body as it is, readable by other consumers")
    void textBodyAsIs() {
        byte[] json = "{\"orderId\":\"o-1\",\"name\":\"Zoë\"}".getBytes(StandardCharsets.UTF_8);
        SqsMessages.Encoded encoded = SqsMessages.encode(json, Map.of(), "m");

        assertThat(encoded.body()).isEqualTo("{\"orderId\":\"o-1\",\"name\":\"Zoë\"}");
        assertThat(roundTrip(json, Map.of()).payload()).isEqualTo(json);
    }

    @Test
    @DisplayName(
            "bytes that are not SQS text (binary, control characters, invalid UTF-8) travel Base64 and arrive exact")
    void binaryRoundTrip() {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        assertThat(SqsMessages.encode(all, Map.of(), "m").body()).doesNotContain("\u0000");
        assertThat(roundTrip(all, Map.of()).payload()).isEqualTo(all);
        assertThat(roundTrip(new byte[] {(byte) 0xC3, (byte) 0x28}, Map.of()).payload())
                .containsExactly(0xC3, 0x28);
    }

    @Test
    @DisplayName("an empty payload (SQS refuses empty bodies) arrives empty")
    void emptyPayload() {
        SqsMessages.Encoded encoded = SqsMessages.encode(new byte[0], Map.of(), "m");

        assertThat(encoded.body()).isNotEmpty();
        assertThat(roundTrip(new byte[0], Map.of()).payload()).isEmpty();
    }

    @Test
    @DisplayName("headers SQS cannot carry as attributes (empty value, odd name, 'shove') ride in the pack")
    void oddHeadersPacked() {
        Map<String, String> headers = new HashMap<>();
        headers.put("empty", "");
        headers.put("has space", "v");
        headers.put("AWS.reserved", "v");
        headers.put("shove", "user's");
        headers.put("ctl", "a\u0001b");
        SqsMessages.Encoded encoded = SqsMessages.encode(new byte[] {'x'}, headers, "m");

        assertThat(encoded.attributes()).containsOnlyKeys(SqsMessages.SHOVE_ATTRIBUTE);
        assertThat(encoded.attributes().get(SqsMessages.SHOVE_ATTRIBUTE)).matches("[\\x20-\\x7e]*");
        assertThat(roundTrip(new byte[] {'x'}, headers).headers()).isEqualTo(headers);
    }

    @Test
    @DisplayName("9 user headers fit; a 10th is refused, naming the limit and what remains")
    void attributeLimit() {
        Map<String, String> nine = new LinkedHashMap<>();
        for (int i = 0; i < 9; i++) {
            nine.put("h" + i, "v");
        }
        assertThat(SqsMessages.encode(new byte[] {'x'}, nine, "m").attributes()).hasSize(10);

        Map<String, String> ten = new LinkedHashMap<>(nine);
        ten.put("h9", "v");
        assertThatThrownBy(() -> SqsMessages.encode(new byte[] {'x'}, ten, "a message of topic 'orders'"))
                .isInstanceOf(PublishException.class)
                .hasMessageContaining("topic 'orders'")
                .hasMessageContaining("10 headers")
                .hasMessageContaining("9 remain");
    }

    @Test
    @DisplayName("a message over 256 KiB is refused with a PublishException naming the size and the limit")
    void sizeLimit() {
        byte[] fits = new byte[SqsMessages.MAX_MESSAGE_BYTES - 200];
        java.util.Arrays.fill(fits, (byte) 'a');
        assertThat(SqsMessages.encode(fits, Map.of(ShoveHeaders.MESSAGE_ID, "id"), "m")
                        .size())
                .isLessThanOrEqualTo(SqsMessages.MAX_MESSAGE_BYTES);

        byte[] big = new byte[SqsMessages.MAX_MESSAGE_BYTES + 1];
        java.util.Arrays.fill(big, (byte) 'a');
        assertThatThrownBy(() -> SqsMessages.encode(big, Map.of(), "a message of topic 'orders'"))
                .isInstanceOf(PublishException.class)
                .hasMessageContaining("topic 'orders'")
                .hasMessageContaining("262144");
    }

    @Test
    @DisplayName("another producer's attributes are headers: text and numbers as they are, binary Base64; a pack that"
            + " cannot be read is ignored")
    void foreignAttributes() {
        Map<String, MessageAttributeValue> attributes = Map.of(
                "n",
                        MessageAttributeValue.builder()
                                .dataType("Number")
                                .stringValue("42")
                                .build(),
                "b",
                        MessageAttributeValue.builder()
                                .dataType("Binary")
                                .binaryValue(SdkBytes.fromByteArray(new byte[] {1, 2}))
                                .build(),
                "shove",
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue("{not json")
                                .build());
        SqsMessages.Decoded decoded = SqsMessages.decode("plain", attributes);

        assertThat(decoded.headers())
                .containsEntry("n", "42")
                .containsEntry("b", "AQI=")
                .doesNotContainKey("shove");
        assertThat(decoded.payload()).isEqualTo("plain".getBytes(StandardCharsets.UTF_8));
    }
}
