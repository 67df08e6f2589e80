/**
 * The NATS JetStream backend, over the official {@code io.nats:jnats} client: one stream per topic and per
 * dead-letter queue (limits retention), durable pull consumers per group, retries delayed exactly by the server
 * ({@code nakWithDelay}) on a retry subject of the group, dead letters published by the library, sequenced topics on
 * shard subjects read by one leased consumer per shard, broadcast topics on an ephemeral consumer per subscriber, and
 * start positions and seeks by stream sequence or time. Start with {@link dev.shove.nats.NatsConfig}; the mapping and
 * the operational notes are in {@code docs/backends/nats.md}.
 */
@NullMarked
package dev.shove.nats;

import org.jspecify.annotations.NullMarked;
