package dev.shove.internal;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Message ids: random (version 4) UUIDs from a thread-local generator; unique, not secret, and cheap. */
final class Ids {
    private Ids() {}

    public static String newMessageId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return new UUID(mostSignificantBits(r), leastSignificantBits(r)).toString();
    }

    /** A new id's high 64 bits: random but for the version (4). */
    static long mostSignificantBits(ThreadLocalRandom r) {
        return (r.nextLong() & ~0xF000L) | 0x4000L;
    }

    /** A new id's low 64 bits: random but for the variant (IETF). */
    static long leastSignificantBits(ThreadLocalRandom r) {
        return (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    }
}
