/**
 * The Redis Streams backend, over {@code lettuce-core}: a stream per topic (a stream per shard for sequenced topics)
 * read by consumer groups with {@code XREADGROUP}, acknowledgements coalesced into one {@code XACK} per batch, retries
 * held in sorted sets scored by their due time and moved back by Lua scripts, crashed consumers' entries reclaimed
 * with {@code XAUTOCLAIM}, shard leases for per-key order, standalone Redis and Redis Cluster. Start with {@link
 * dev.shove.redis.RedisConfig}; the mapping is documented in {@code docs/backends/redis.md}.
 */
@NullMarked
package dev.shove.redis;

import org.jspecify.annotations.NullMarked;
