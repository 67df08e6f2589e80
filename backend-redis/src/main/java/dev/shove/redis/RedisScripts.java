package dev.shove.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The Lua scripts that make the backend's multi-step moves atomic. Each runs on the keys of one topic, which share a
 * hash tag, so it also runs on a Redis Cluster. Sent with {@code EVALSHA}, and with {@code EVAL} once when the server
 * does not know the script yet (a new server, a restart, {@code SCRIPT FLUSH}).
 */
final class RedisScripts {
    private RedisScripts() {}

    /** A script and its SHA-1. */
    record Script(String name, String body, String sha) {
        static Script of(String name, String body) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
                return new Script(name, body, HexFormat.of().formatHex(digest));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("no SHA-1 in this JVM", e);
            }
        }

        /** Runs the script; on {@code NOSCRIPT}, sends its body once. */
        <T> CompletableFuture<T> run(
                RedisClusterAsyncCommands<String, byte[]> redis, ScriptOutputType type, String[] keys, byte[]... args) {
            CompletableFuture<T> sha =
                    redis.<T>evalsha(this.sha, type, keys, args).toCompletableFuture();
            return sha.handle((value, error) -> {
                        Throwable cause =
                                error instanceof CompletionException c && c.getCause() != null ? c.getCause() : error;
                        if (cause instanceof RedisNoScriptException
                                || cause != null
                                        && String.valueOf(cause.getMessage()).startsWith("NOSCRIPT")) {
                            return redis.<T>eval(body, type, keys, args).toCompletableFuture();
                        }
                        return error == null
                                ? CompletableFuture.completedFuture(value)
                                : CompletableFuture.<T>failedFuture(cause);
                    })
                    .thenCompose(f -> f);
        }
    }

    /**
     * Moves a delivered entry into a hold tier: adds the copy to the tier's sorted set (scored by its due time) and
     * acknowledges the original, together, and only while the entry is still pending to this consumer (a consumer that
     * comes back after its entry was reclaimed by another must not settle it a second time). KEYS: stream, tier.
     * ARGV: group, consumer, entry id, due time (ms), member. Returns 1, or 0 when the entry is not this consumer's.
     */
    static final Script HOLD = Script.of("hold", """
            local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2])
            if #p == 0 then return 0 end
            redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
            redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
            return 1
            """);

    /**
     * Moves a delivered entry to the dead-letter stream: adds the copy and acknowledges the original together, only
     * while the entry is pending to this consumer. KEYS: stream, dead-letter stream. ARGV: group, consumer, entry id,
     * trim kind ('' for none, MAXLEN or MINID), trim value, then the copy's fields and values. Returns 1, or 0 when the
     * entry is not this consumer's.
     */
    static final Script DEAD_LETTER = Script.of("dead-letter", """
            local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2])
            if #p == 0 then return 0 end
            if ARGV[4] == '' then
              redis.call('XADD', KEYS[2], '*', unpack(ARGV, 6))
            else
              redis.call('XADD', KEYS[2], ARGV[4], '~', ARGV[5], '*', unpack(ARGV, 6))
            end
            redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
            return 1
            """);

    /**
     * Moves a due copy from a hold tier back to its stream: removes it from the sorted set and appends it to the
     * stream, together. The removal decides: of several requeuers (processes) moving the same copy at once, exactly
     * one appends it. KEYS: tier, stream. ARGV: member, trim kind, trim value, then the fields and values. Returns 1
     * when moved, 0 when another requeuer moved it first, -1 when the stream no longer exists (the copy stays).
     */
    static final Script REQUEUE = Script.of("requeue", """
            if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
            if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
            if ARGV[2] == '' then
              redis.call('XADD', KEYS[2], '*', unpack(ARGV, 4))
            else
              redis.call('XADD', KEYS[2], ARGV[2], '~', ARGV[3], '*', unpack(ARGV, 4))
            end
            return 1
            """);

    /**
     * Renews the entries a consumer holds (resets their idle time, without counting a delivery), skipping those no
     * longer pending to it. KEYS: stream. ARGV: group, consumer, entry ids. Returns the ids it no longer holds.
     */
    static final Script RENEW = Script.of("renew", """
            local lost = {}
            for i = 3, #ARGV do
              local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1, ARGV[2])
              if #p == 0 then
                lost[#lost + 1] = ARGV[i]
              else
                redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
              end
            end
            return lost
            """);

    /**
     * Declares a topic: records its shape in the meta hash on first declaration, refuses another shape later, and
     * creates its streams empty when they do not exist. KEYS: meta, then the streams. ARGV: shape. Returns 'OK', or the
     * shape recorded earlier when it differs.
     */
    static final Script DECLARE = Script.of("declare", """
            local shape = redis.call('HGET', KEYS[1], 'shape')
            if shape and shape ~= ARGV[1] then return shape end
            if not shape then redis.call('HSET', KEYS[1], 'shape', ARGV[1]) end
            for i = 2, #KEYS do
              if redis.call('EXISTS', KEYS[i]) == 0 then
                redis.call('XGROUP', 'CREATE', KEYS[i], 'shove-declare', '$', 'MKSTREAM')
                redis.call('XGROUP', 'DESTROY', KEYS[i], 'shove-declare')
              end
            end
            return 'OK'
            """);

    /**
     * Removes dead letters for good: deletes the entries and acknowledges them for the group, together (a deleted
     * entry left pending would be handed to a dead-letter consumer as an empty entry); a group that does not exist on
     * the stream is no error. KEYS: dead-letter stream. ARGV: group, entry ids. Returns how many entries were deleted.
     */
    static final Script REMOVE_DEAD_LETTERS = Script.of("remove-dead-letters", """
            local n = redis.call('XDEL', KEYS[1], unpack(ARGV, 2))
            redis.pcall('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2))
            return n
            """);

    /** Extends a shard lease held by this consumer. KEYS: lease. ARGV: consumer, ttl ms. Returns 1, or 0 if lost. */
    static final Script LEASE_RENEW = Script.of("lease-renew", """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return 1
            end
            return 0
            """);

    /** Releases a shard lease if this consumer holds it. KEYS: lease. ARGV: consumer. */
    static final Script LEASE_RELEASE = Script.of("lease-release", """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
            return 0
            """);

    /**
     * Deletes a consumer from its group if it holds no pending entry (deleting one that does would orphan them).
     * KEYS: stream. ARGV: group, consumer. Returns 1 if deleted.
     */
    static final Script FORGET_CONSUMER = Script.of("forget-consumer", """
            local p = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2])
            if #p > 0 then return 0 end
            redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
            return 1
            """);
}
