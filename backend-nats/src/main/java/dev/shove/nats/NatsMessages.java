package dev.shove.nats;

import dev.shove.spi.HeaderMapBuilder;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** How shove's string headers travel as NATS headers, in both directions. */
final class NatsMessages {
    /** The header JetStream deduplicates publishes by. */
    static final String MSG_ID = "Nats-Msg-Id";

    private NatsMessages() {}

    /** NATS headers from shove's. */
    static Headers toNats(Map<String, String> headers) {
        Headers out = new Headers();
        headers.forEach((k, v) -> {
            if (!isServerHeader(k)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /**
     * shove's headers from a message's, as an immutable map: the last value wins when a name repeats; the server's own
     * {@code Nats-} headers are left out, so that they are never carried onto a copy (an expectation header there would
     * fail it).
     */
    static Map<String, String> fromNats(Message message) {
        return fromNats(message.hasHeaders() ? message.getHeaders() : null);
    }

    /** shove's headers from a stored message's (a stream get), as {@link #fromNats(Message)}. */
    static Map<String, String> fromNats(@Nullable Headers headers) {
        if (headers == null || headers.isEmpty()) {
            return Map.of();
        }
        HeaderMapBuilder out = new HeaderMapBuilder(headers.size());
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            List<String> values = e.getValue();
            if (isServerHeader(e.getKey()) || values == null || values.isEmpty()) {
                continue;
            }
            out.put(e.getKey(), values.getLast());
        }
        return out.build();
    }

    private static boolean isServerHeader(String name) {
        return name.length() >= 5
                && name.substring(0, 5).toLowerCase(Locale.ROOT).equals("nats-");
    }
}
