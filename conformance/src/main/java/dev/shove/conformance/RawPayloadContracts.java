package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code byte[]} topics: shove neither encodes nor decodes their payloads, so bytes travel exactly as given, whatever
 * they are, and a raw view of a typed topic sees exactly what its codec wrote.
 */
abstract class RawPayloadContracts<B> extends Contracts<B> {

    RawPayloadContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private Topic<byte[]> rawTopic(String prefix) {
        return h().rawTopic(prefix).holdQueue(tier()).dlq().build();
    }

    @Test
    @DisplayName("bytes that are not valid UTF-8 arrive exactly as published")
    void notUtf8() {
        Topic<byte[]> topic = rawTopic("raw-binary");
        // a lone continuation byte, an overlong encoding, a truncated sequence, a surrogate half, NUL and 0xFF
        byte[] payload = {
            (byte) 0x80,
            (byte) 0xC0,
            (byte) 0xAF,
            (byte) 0xE2,
            (byte) 0x82,
            0,
            (byte) 0xED,
            (byte) 0xA0,
            (byte) 0x80,
            (byte) 0xFF,
            (byte) 0xFE
        };
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, payload);

        assertThat(rec.awaitCalls(1).getFirst().message()).isEqualTo(payload);
    }

    @Test
    @DisplayName("an empty payload arrives as an empty array")
    void emptyPayload() {
        Topic<byte[]> topic = rawTopic("raw-empty");
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, new byte[0]);
        h().publisher().publish(topic, new byte[] {1});

        rec.awaitCalls(2);
        assertThat(rec.messages()).anySatisfy(m -> assertThat(m).isEmpty());
        assertThat(rec.messages()).anySatisfy(m -> assertThat(m).containsExactly(1));
    }

    @Test
    @DisplayName("a raw consumer of a JSON topic sees exactly the bytes the codec wrote")
    void rawViewOfTypedTopic() throws Exception {
        Topic<Msg> typed = plainTopic("raw-view");
        Recorder<byte[]> rec = h().acking();
        h().consume(h().rawTwin(typed), rec);
        Msg message = new Msg("caf\u00e9 \u2603", 7);
        h().publisher().publish(typed, message);

        assertThat(rec.awaitCalls(1).getFirst().message())
                .isEqualTo(typed.codec().encode(message));
    }

    @Test
    @DisplayName("bytes published raw to a JSON topic are decoded by its codec as if the typed publisher wrote them")
    void rawPublishToTypedTopic() {
        Topic<Msg> typed = plainTopic("raw-into-typed");
        Recorder<Msg> rec = h().acking();
        h().consume(typed, rec);
        h().publisher().publish(h().rawTwin(typed), "{\"key\":\"raw\",\"n\":3}".getBytes(StandardCharsets.UTF_8));

        assertThat(rec.awaitCalls(1).getFirst().message()).isEqualTo(new Msg("raw", 3));
    }

    @Test
    @DisplayName("raw payloads keep their headers: a byte[] publish with headers delivers both unchanged")
    void rawWithHeaders() {
        Topic<byte[]> topic = rawTopic("raw-headers");
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, rec);
        byte[] payload = {(byte) 0xCA, (byte) 0xFE};
        h().publisher().publishWithHeaders(topic, payload, Map.of("content-kind", "blob"));

        Recorder.Call<byte[]> call = rec.awaitCalls(1).getFirst();
        assertThat(call.message()).isEqualTo(payload);
        assertThat(call.metadata().headers()).containsEntry("content-kind", "blob");
    }
}
