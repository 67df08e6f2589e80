package dev.shove.internal;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** Message ids: random (version 4) UUIDs from a thread-local generator; unique, not secret, and cheap. */
final class Ids {
    private Ids() {}

    public static String newMessageId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long msb = (r.nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }
}
