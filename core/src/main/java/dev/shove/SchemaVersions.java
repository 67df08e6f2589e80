package dev.shove;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The schema version a codec writes and the upcasters that bring older messages up to it: schema evolution, the same
 * for every codec that supports it (JSON here, Protobuf and Avro in their modules). An immutable value, safe to share
 * between threads (as long as its upcasters are).
 *
 * <p>A versioned codec writes its {@link #current() current} version in the {@value ShoveHeaders#SCHEMA_VERSION} header
 * of every message it encodes. Reading, it takes the version from that header (a message without it was written
 * before versioning began: version 1), reads the bytes, and runs the upcasters from that version up to its own, each
 * taking a value of version {@code n} to version {@code n + 1}. So a consumer on version 3 reads messages written at 1
 * and 2. A message whose version is newer than {@code current} cannot be read by this consumer: decoding fails with
 * the version named and the message is settled by the decode-failure policy (dead-lettered, by default), where it
 * waits for a consumer that knows that version. A step without an upcaster leaves the value as the format read it.
 *
 * <p>What an upcaster works on is the codec's: the JSON tree ({@code JsonNode}) for {@link Codec#json(Class,
 * SchemaVersions)}, since JSON has no schema of its own to read old bytes with; the consumer's own message type for
 * Protobuf and Avro, which read old bytes by their own compatibility rules first.
 *
 * <pre>{@code
 * SchemaVersions<JsonNode> versions = SchemaVersions.<JsonNode>builder(3)
 *         .upcaster(1, v1 -> ((ObjectNode) v1).put("currency", "EUR"))          // 1 -> 2: currency added
 *         .upcaster(2, v2 -> ((ObjectNode) v2).set("amount", v2.get("cents"))) // 2 -> 3: cents renamed
 *         .build();
 * Topic<Order> ORDERS = Topic.builder("orders", Codec.json(Order.class, versions)).dlq().build();
 * }</pre>
 *
 * @param <R> what the upcasters transform
 * @since 0.1.0
 */
public final class SchemaVersions<R> {
    /** The version of a message without a {@value ShoveHeaders#SCHEMA_VERSION} header: the first. */
    public static final int FIRST_VERSION = 1;

    /** Longer than any int's digits: a header value past it is refused before it is parsed. */
    private static final int MAX_VERSION_TEXT = 10;

    private final int current;
    private final Map<Integer, Upcaster<R>> upcasters;
    private final Map<String, String> headers;

    private SchemaVersions(Builder<R> b) {
        this.current = b.current;
        this.upcasters = Map.copyOf(b.upcasters);
        this.headers = Map.of(ShoveHeaders.SCHEMA_VERSION, Integer.toString(current));
    }

    /**
     * Starts the versions of a schema whose current version is {@code current}.
     *
     * @param current the version this codec writes and reads up to; 1 or more
     * @param <R> what the upcasters transform
     * @return a builder without upcasters
     * @throws IllegalArgumentException when {@code current} is below 1
     */
    public static <R> Builder<R> builder(int current) {
        return new Builder<>(current);
    }

    /** {@return the version this codec writes, and the newest it reads} */
    public int current() {
        return current;
    }

    /** {@return the header a versioned codec writes on every message: {@value ShoveHeaders#SCHEMA_VERSION}} */
    public Map<String, String> headers() {
        return headers;
    }

    /**
     * {@return the schema version a message was written at, from its headers}
     *
     * @param headers the message's headers
     * @throws IllegalArgumentException when the header does not hold a version, or holds one newer than {@link
     *     #current()}; the message names the version
     */
    public int versionOf(Map<String, String> headers) {
        String text = headers.get(ShoveHeaders.SCHEMA_VERSION);
        if (text == null) {
            return FIRST_VERSION;
        }
        int version = -1;
        if (!text.isEmpty() && text.length() <= MAX_VERSION_TEXT && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            long parsed = Long.parseLong(text);
            version = parsed > Integer.MAX_VALUE ? -1 : (int) parsed;
        }
        if (version < FIRST_VERSION) {
            throw new IllegalArgumentException("header %s is '%s', not a schema version (1 or more)"
                    .formatted(ShoveHeaders.SCHEMA_VERSION, text.length() > 20 ? text.substring(0, 20) + "..." : text));
        }
        if (version > current) {
            throw new IllegalArgumentException(
                    ("schema version %d is newer than this consumer reads (up to %d): deploy a consumer that knows"
                                    + " version %d, then replay the message from the dead-letter queue")
                            .formatted(version, current, version));
        }
        return version;
    }

    /**
     * Brings a value read at {@code version} up to {@link #current()} by running each upcaster in turn.
     *
     * @param value the value as read at {@code version}
     * @param version the version it was written at, from {@link #versionOf(Map)}
     * @return the value at the current version
     * @throws Exception what an upcaster throws, or an {@link IllegalStateException} when one returns null
     */
    public R upcast(R value, int version) throws Exception {
        R v = value;
        for (int from = version; from < current; from++) {
            Upcaster<R> upcaster = upcasters.get(from);
            if (upcaster != null) {
                R next = upcaster.upcast(v);
                if (next == null) {
                    throw new IllegalStateException(
                            "the upcaster from schema version %d to %d returned null".formatted(from, from + 1));
                }
                v = next;
            }
        }
        return v;
    }

    @Override
    public String toString() {
        return "SchemaVersions[current=" + current + ", upcasters from " + upcasters.keySet() + "]";
    }

    /**
     * Takes a value of one schema version to the next.
     *
     * @param <R> what it transforms
     * @since 0.1.0
     */
    @FunctionalInterface
    public interface Upcaster<R> {
        /**
         * {@return the value at the next version; never null} It may be the given value, changed in place.
         *
         * @param previous the value at the version this upcaster was registered from
         * @throws Exception on a value it cannot upcast; the message is then settled by the decode-failure policy
         */
        R upcast(R previous) throws Exception;
    }

    /**
     * Builds {@link SchemaVersions}; not thread-safe.
     *
     * @param <R> what the upcasters transform
     * @since 0.1.0
     */
    public static final class Builder<R> {
        private final int current;
        private final Map<Integer, Upcaster<R>> upcasters = new HashMap<>();

        private Builder(int current) {
            if (current < FIRST_VERSION) {
                throw new IllegalArgumentException("a schema's current version must be 1 or more, not " + current);
            }
            this.current = current;
        }

        /**
         * Registers the upcaster from version {@code from} to {@code from + 1}.
         *
         * @param from the version it reads; from 1 to {@code current - 1}
         * @param upcaster takes a value of version {@code from} to {@code from + 1}
         * @return this builder
         * @throws IllegalArgumentException when {@code from} is out of range or already has an upcaster
         */
        public Builder<R> upcaster(int from, Upcaster<R> upcaster) {
            Objects.requireNonNull(upcaster, "upcaster");
            if (from < FIRST_VERSION || from >= current) {
                throw new IllegalArgumentException(
                        current == FIRST_VERSION
                                ? "an upcaster from version %d has nothing to reach: the current version is 1"
                                        .formatted(from)
                                : "an upcaster from version %d is out of range: the current version is %d, so upcasters go from versions 1 to %d"
                                        .formatted(from, current, current - 1));
            }
            if (upcasters.putIfAbsent(from, upcaster) != null) {
                throw new IllegalArgumentException(
                        "the upcaster from version %d to %d was already registered".formatted(from, from + 1));
            }
            return this;
        }

        /** {@return the versions} */
        public SchemaVersions<R> build() {
            return new SchemaVersions<>(this);
        }
    }
}
