package dev.shove.redis;

import dev.shove.spi.HeaderMapBuilder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * How a message is laid out in a stream entry, and in a hold tier's sorted set.
 *
 * <p>An entry's fields are the payload under {@value #PAYLOAD} and every header under its own name, so a message
 * reads naturally in {@code redis-cli} ({@code XRANGE shove:{orders} - +}) and another producer can write one with a
 * plain {@code XADD}. An entry without a {@value #PAYLOAD} field (written by someone else) is read as follows: with
 * exactly one field, that field's value is the payload; otherwise the payload is empty and every field is a header.
 *
 * <p>A held copy is one member of a sorted set: 16 random bytes (so that two equal copies stay two members), then the
 * entry's fields, length-prefixed. Only Java reads it back; the Lua script that moves it is handed the fields.
 */
final class RedisEntries {
    /** The field holding the payload. Starts with shove's reserved prefix, so it never collides with a user header. */
    static final String PAYLOAD = "shove-payload";

    /** On a copy in a hold tier: the consumer group it belongs to; other groups skip it when it comes back. */
    static final String GROUP = "shove-redis-group";

    private static final byte[] EMPTY = new byte[0];

    private RedisEntries() {}

    /** The fields of an entry: payload first, then the headers. */
    static Map<String, byte[]> fields(byte[] payload, Map<String, String> headers) {
        Map<String, byte[]> body = LinkedHashMap.newLinkedHashMap(headers.size() + 1);
        body.put(PAYLOAD, payload);
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (!h.getKey().equals(PAYLOAD) && !h.getKey().equals(GROUP)) {
                body.put(h.getKey(), h.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        return body;
    }

    /** The fields as alternating names and values, for a Lua script's arguments. */
    static List<byte[]> flatten(Map<String, byte[]> fields) {
        List<byte[]> out = new ArrayList<>(fields.size() * 2);
        for (Map.Entry<String, byte[]> f : fields.entrySet()) {
            out.add(f.getKey().getBytes(StandardCharsets.UTF_8));
            out.add(f.getValue());
        }
        return out;
    }

    /**
     * A message read from an entry. {@code headers}: immutable, kept by the engine as they are; {@code group}: the
     * consumer group a held copy was addressed to, or null.
     */
    record Message(
            byte[] payload,
            Map<String, String> headers,
            @Nullable String group) {}

    /** Reads an entry's fields (see the class comment). */
    static Message read(Map<String, byte[]> body) {
        byte[] payload = body.get(PAYLOAD);
        if (payload == null && body.size() == 1) {
            return new Message(body.values().iterator().next(), Map.of(), null);
        }
        HeaderMapBuilder headers = new HeaderMapBuilder(body.size());
        String group = null;
        for (Map.Entry<String, byte[]> f : body.entrySet()) {
            String name = f.getKey();
            if (name.equals(PAYLOAD)) {
                continue;
            }
            String value = f.getValue() == null ? "" : new String(f.getValue(), StandardCharsets.UTF_8);
            if (name.equals(GROUP)) {
                group = value;
            } else {
                headers.put(name, value);
            }
        }
        return new Message(payload == null ? EMPTY : payload, headers.build(), group);
    }

    /** A sorted-set member holding these fields. */
    static byte[] member(Map<String, byte[]> fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + fields.size() * 32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            byte[] random = new byte[16];
            ThreadLocalRandom.current().nextBytes(random);
            out.write(random);
            out.writeInt(fields.size());
            for (Map.Entry<String, byte[]> f : fields.entrySet()) {
                byte[] name = f.getKey().getBytes(StandardCharsets.UTF_8);
                out.writeInt(name.length);
                out.write(name);
                out.writeInt(f.getValue().length);
                out.write(f.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The fields of a sorted-set member written by {@link #member}.
     *
     * @throws IllegalArgumentException when the member is not one
     */
    static Map<String, byte[]> fieldsOf(byte[] member) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(member))) {
            in.skipNBytes(16);
            int n = in.readInt();
            if (n < 0 || n > member.length) {
                throw new IllegalArgumentException("not a held copy: " + n + " fields");
            }
            Map<String, byte[]> fields = LinkedHashMap.newLinkedHashMap(n);
            for (int i = 0; i < n; i++) {
                String name = new String(readBlock(in, member.length), StandardCharsets.UTF_8);
                fields.put(name, readBlock(in, member.length));
            }
            return fields;
        } catch (IOException e) {
            throw new IllegalArgumentException("not a held copy: " + e, e);
        }
    }

    private static byte[] readBlock(DataInputStream in, int max) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > max) {
            throw new IOException("a block of " + length + " bytes in a member of " + max);
        }
        return in.readNBytes(length);
    }

    /**
     * A stream entry id as one non-negative {@code long}, for {@link dev.shove.MessageMetadata#offset()} and {@link
     * dev.shove.Position.Captured}: the milliseconds shifted left by {@value #SEQUENCE_BITS} bits, plus the sequence.
     * Exact for ids generated before the year 2109 with fewer than 2,097,152 entries in one millisecond.
     */
    static long offsetOf(String id) {
        int dash = id.indexOf('-');
        long ms = Long.parseLong(dash < 0 ? id : id.substring(0, dash));
        long seq = dash < 0 ? 0 : Long.parseUnsignedLong(id.substring(dash + 1));
        if (ms >= (1L << (63 - SEQUENCE_BITS)) || seq >= (1L << SEQUENCE_BITS)) {
            return -1;
        }
        return (ms << SEQUENCE_BITS) | seq;
    }

    /** How many low bits of an {@link #offsetOf offset} hold the entry id's sequence part. */
    static final int SEQUENCE_BITS = 21;

    /** The entry id of an {@link #offsetOf offset}. */
    static String idOf(long offset) {
        return (offset >>> SEQUENCE_BITS) + "-" + (offset & ((1L << SEQUENCE_BITS) - 1));
    }

    /** The milliseconds part of an entry id. */
    static long millisOf(String id) {
        int dash = id.indexOf('-');
        try {
            return Long.parseLong(dash < 0 ? id : id.substring(0, dash));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The id just before {@code id}: what {@code XGROUP SETID} needs so that {@code id} is delivered next. */
    static String before(String id) {
        int dash = id.indexOf('-');
        long ms = Long.parseLong(dash < 0 ? id : id.substring(0, dash));
        long seq = dash < 0 ? 0 : Long.parseUnsignedLong(id.substring(dash + 1));
        if (seq > 0) {
            return ms + "-" + (seq - 1);
        }
        if (ms == 0) {
            return "0-0";
        }
        return (ms - 1) + "-" + Long.toUnsignedString(-1L);
    }

    /** Compares two entry ids. */
    static int compare(String a, String b) {
        int da = a.indexOf('-');
        int db = b.indexOf('-');
        long ma = Long.parseLong(da < 0 ? a : a.substring(0, da));
        long mb = Long.parseLong(db < 0 ? b : b.substring(0, db));
        if (ma != mb) {
            return Long.compare(ma, mb);
        }
        long sa = da < 0 ? 0 : Long.parseUnsignedLong(a.substring(da + 1));
        long sb = db < 0 ? 0 : Long.parseUnsignedLong(b.substring(db + 1));
        return Long.compareUnsigned(sa, sb);
    }
}
