package dev.shove;

import java.nio.charset.StandardCharsets;

/**
 * Assigns ordering keys to shards by FNV-1a-64 of the key's UTF-8 bytes, modulo the shard count as an unsigned
 * number: bit-for-bit the function of the Rust original, so producers written against either agree on shards.
 */
final class Sharding {
    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private Sharding() {}

    static long fnv1a64(String key) {
        long hash = OFFSET_BASIS;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            hash ^= (b & 0xff);
            hash *= PRIME;
        }
        return hash;
    }

    static int shardOf(String key, int shards) {
        return (int) Long.remainderUnsigned(fnv1a64(key), shards);
    }
}
