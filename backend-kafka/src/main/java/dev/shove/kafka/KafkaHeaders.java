package dev.shove.kafka;

import dev.shove.spi.HeaderMapBuilder;
import dev.shove.spi.LazyHeaderMap;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

/**
 * How shove's string headers travel as Kafka record headers (UTF-8 bytes), and the headers the Kafka backend adds for
 * itself. Those all start with {@value #PREFIX} and are never shown to handlers of the main topic.
 */
final class KafkaHeaders {
    /** The prefix of the headers the Kafka backend writes for itself. */
    static final String PREFIX = "shove-kafka-";
    /**
     * On hold copies and the records the relay brings back: the Kafka group id the retry belongs to. Consumers of
     * other groups of the same topic skip such a record (they handled the original already).
     */
    static final String GROUP = "shove-kafka-group";
    /** On hold copies and dead letters: the partition of the main topic the record was read from. */
    static final String ORIGINAL_PARTITION = "shove-kafka-original-partition";
    /** On dead letters: the offset of the record in the main topic's partition. */
    static final String ORIGINAL_OFFSET = "shove-kafka-original-offset";

    private KafkaHeaders() {}

    /** Kafka headers from shove's headers, every value as UTF-8. */
    static Headers toKafka(Map<String, String> headers) {
        RecordHeaders out = new RecordHeaders();
        headers.forEach((k, v) -> out.add(k, v.getBytes(StandardCharsets.UTF_8)));
        return out;
    }

    /**
     * Shove's headers from a record's: values decoded as UTF-8, the last one winning when a name repeats; with {@code
     * hideInternal}, the backend's own headers are left out. Mutable, for callers that add to it.
     */
    static Map<String, String> fromKafka(Headers headers, boolean hideInternal) {
        Map<String, String> out = new HashMap<>(8);
        decode(headers, hideInternal, out::put);
        return out;
    }

    /** Puts each of the record's headers into {@code into}, in order, decoded; the backend's own left out if asked. */
    private static void decode(Iterable<Header> headers, boolean hideInternal, BiConsumer<String, String> into) {
        for (Header h : headers) {
            String key = h.key();
            if (!hideInternal || !key.startsWith(PREFIX)) {
                into.accept(key, utf8(h.value()));
            }
        }
    }

    /**
     * The same as {@link #fromKafka} plus {@code extra} (name, value, name, value ...; winning over the record's), as
     * an immutable map ({@link HeaderMapBuilder}): for a record that waited out a sequenced retry, whose wait the
     * extras carry.
     */
    static Map<String, String> immutableFromKafka(Headers headers, boolean hideInternal, String... extra) {
        Header[] all = headers.toArray();
        HeaderMapBuilder out = new HeaderMapBuilder(all.length + extra.length / 2);
        decode(Arrays.asList(all), hideInternal, out::put);
        for (int i = 0; i < extra.length; i += 2) {
            out.put(extra[i], extra[i + 1]);
        }
        return out.build();
    }

    /**
     * A consumed record's headers as a map that decodes a value only when it is read ({@link LazyHeaderMap}): most
     * records are handled without anyone reading their message id. With {@code hideInternal}, the backend's own
     * headers are left out.
     */
    static Map<String, String> lazyFromKafka(Headers headers, boolean hideInternal) {
        return new Lazy(headers, hideInternal);
    }

    /**
     * The map of {@link #lazyFromKafka}. A Kafka header decodes its name and copies its value on first use; the client
     * does that under the header's lock but reads the copied value without it, so every read of the record's headers
     * goes through this map's lock as well: a handler may hand its metadata to other threads, and the first reader's
     * copy must be published to the others.
     */
    private static final class Lazy extends LazyHeaderMap {
        private final Headers headers;
        private final boolean hideInternal;

        Lazy(Headers headers, boolean hideInternal) {
            this.headers = headers;
            this.hideInternal = hideInternal;
        }

        @Override
        protected synchronized @Nullable String find(String name) {
            Header h = headers.lastHeader(name);
            // the names looked up are mostly absent: the prefix is checked only for one that is there
            return h == null || (hideInternal && name.startsWith(PREFIX)) ? null : utf8(h.value());
        }

        @Override
        protected synchronized void decodeAll(BiConsumer<String, String> into) {
            decode(headers, hideInternal, into);
        }
    }

    private static String utf8(byte @Nullable [] value) {
        return value == null ? "" : new String(value, StandardCharsets.UTF_8);
    }

    /** One header's value as a string, or null when absent. */
    static @Nullable String get(Headers headers, String key) {
        Header h = headers.lastHeader(key);
        if (h == null || h.value() == null) {
            return null;
        }
        return new String(h.value(), StandardCharsets.UTF_8);
    }
}
