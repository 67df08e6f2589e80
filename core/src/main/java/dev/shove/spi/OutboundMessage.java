package dev.shove.spi;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A message on its way to the broker, fully prepared by the engine: encoded payload, every header (the user's and
 * shove's), and for sequenced topics the ordering key and the shard chosen for it.
 *
 * @param payload the encoded message; the transport must not modify it
 * @param headers every header to put on the broker message, to be carried unchanged
 * @param key the ordering key of a sequenced topic (also in the {@code shove-sequence-key} header); null otherwise
 * @param shard the shard index of a sequenced topic ({@code 0 <= shard < routingShards}); -1 otherwise
 * @param contentType the codec's MIME type, for brokers with a content-type field
 * @since 0.1.0
 */
public record OutboundMessage(
        byte[] payload,
        Map<String, String> headers,
        @Nullable String key,
        int shard,
        String contentType) {
    /**
     * Checks the components; see the class description.
     *
     * @param payload the encoded message; the transport must not modify it
     * @param headers every header to put on the broker message, to be carried unchanged
     * @param key the ordering key of a sequenced topic (also in the {@code shove-sequence-key} header); null otherwise
     * @param shard the shard index of a sequenced topic ({@code 0 <= shard < routingShards}); -1 otherwise
     * @param contentType the codec's MIME type, for brokers with a content-type field
     */
    public OutboundMessage {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(contentType, "contentType");
    }
}
