package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NatsMessagesTest {

    @Test
    @DisplayName("a printable ASCII value travels as it is; any other is encoded, and every value comes back unchanged")
    void encodesWhatNatsCannotCarry() {
        assertThat(NatsMessages.encode("plain value")).isEqualTo("plain value");
        assertThat(NatsMessages.encode("müller")).isEqualTo("=?UTF-8?B?bcO8bGxlcg==?=");
        for (String value : new String[] {"plain", "müller", "张三", "\uD83D\uDE80", "=?UTF-8?B?aGk=?=", "=?utf-8?b?x"}) {
            assertThat(NatsMessages.decode(NatsMessages.encode(value)))
                    .as(value)
                    .isEqualTo(value);
        }
    }

    @Test
    @DisplayName("a received value that only looks encoded (not Base64) is kept as it is")
    void looksEncoded() {
        assertThat(NatsMessages.decode("=?UTF-8?B?not base64!?=")).isEqualTo("=?UTF-8?B?not base64!?=");
    }

    @Test
    @DisplayName("headers go to NATS encoded and come back decoded")
    void roundTripHeaders() {
        Map<String, String> headers = Map.of("x-name", "Jürgen", "shove-sequence-key", "张三");
        assertThat(NatsMessages.fromNats(NatsMessages.toNats(headers))).isEqualTo(headers);
    }
}
