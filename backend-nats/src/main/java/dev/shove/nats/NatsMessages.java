package dev.shove.nats;

import dev.shove.spi.HeaderMapBuilder;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** How shove's string headers travel as NATS headers, in both directions. */
final class NatsMessages {
    /** The header JetStream deduplicates publishes by. */
    static final String MSG_ID = "Nats-Msg-Id";

    private NatsMessages() {}

    /**
     * How a header value NATS cannot carry travels: NATS takes printable ASCII only, so a value with any other
     * character (or one that starts like an encoded one) is sent as {@code =?UTF-8?B?<base64 of its UTF-8>?=}, after
     * RFC 2047, and decoded back on receipt.
     */
    static final String ENCODED_PREFIX = "=?UTF-8?B?";

    private static final String ENCODED_SUFFIX = "?=";

    /** NATS headers from shove's. */
    static Headers toNats(Map<String, String> headers) {
        Headers out = new Headers();
        headers.forEach((k, v) -> {
            if (!isServerHeader(k)) {
                out.put(k, encode(v));
            }
        });
        return out;
    }

    /** A header value as NATS can carry it: itself when it is printable ASCII, else encoded. */
    static String encode(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 && c != '\t' || c > 0x7e) {
                return encoded(value);
            }
        }
        return value.regionMatches(true, 0, ENCODED_PREFIX, 0, ENCODED_PREFIX.length()) ? encoded(value) : value;
    }

    private static String encoded(String value) {
        return ENCODED_PREFIX
                + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))
                + ENCODED_SUFFIX;
    }

    /** A header value as received: decoded when it was encoded by {@link #encode}, else itself. */
    static String decode(String value) {
        if (value.length() < ENCODED_PREFIX.length() + ENCODED_SUFFIX.length()
                || !value.regionMatches(true, 0, ENCODED_PREFIX, 0, ENCODED_PREFIX.length())
                || !value.endsWith(ENCODED_SUFFIX)) {
            return value;
        }
        try {
            byte[] bytes = Base64.getDecoder()
                    .decode(value.substring(ENCODED_PREFIX.length(), value.length() - ENCODED_SUFFIX.length()));
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return value; // not ours: a value that merely looks encoded
        }
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
            out.put(e.getKey(), decode(values.getLast()));
        }
        return out.build();
    }

    private static boolean isServerHeader(String name) {
        return name.length() >= 5
                && name.substring(0, 5).toLowerCase(Locale.ROOT).equals("nats-");
    }
}
