package dev.shove;

import java.util.Objects;
import java.util.function.Function;

/**
 * The ordering settings of a sequenced topic: strict order per key, parallel across keys.
 *
 * @param onFailure what happens to the rest of a key when one of its messages is dead-lettered
 * @param keyFunction extracts the ordering key from a message (the publisher calls it; the key travels in a header)
 * @param routingShards how many shards (queues, partitions, streams) the topic is spread over; keys are assigned to a
 *     shard by FNV-1a-64 of their UTF-8 bytes, so producers in other languages can agree
 * @param <M> the message type
 * @since 0.1.0
 */
public record Sequencing<M>(SequenceFailure onFailure, Function<? super M, String> keyFunction, int routingShards) {
    /** Shards of a sequenced topic unless {@link Topic.Builder#routingShards(int)} says otherwise. */
    public static final int DEFAULT_ROUTING_SHARDS = 8;

    /**
     * Checks the components; see the class description.
     *
     * @param onFailure what happens to the rest of a key when one of its messages is dead-lettered
     * @param keyFunction extracts the ordering key from a message (the publisher calls it; the key travels in a header)
     * @param routingShards how many shards (queues, partitions, streams) the topic is spread over; keys are assigned to
     *     a shard by FNV-1a-64 of their UTF-8 bytes, so producers in other languages can agree
     */
    public Sequencing {
        Objects.requireNonNull(onFailure, "onFailure");
        Objects.requireNonNull(keyFunction, "keyFunction");
    }

    /**
     * {@return the ordering key of a message} Never null: a null key is a programming error and fails the publish.
     *
     * @param message a message of the topic
     */
    public String keyOf(M message) {
        String key = keyFunction.apply(message);
        if (key == null) {
            throw new IllegalArgumentException("the sequence key function returned null for " + message);
        }
        return key;
    }

    /**
     * The shard a key belongs to, {@code 0 <= shard < routingShards}: FNV-1a-64 of the key's UTF-8 bytes modulo the
     * shard count, bit for bit the function of the Rust original, so that producers written against either agree.
     *
     * @param key an ordering key
     * @return the key's shard
     */
    public int shardOf(String key) {
        return Sharding.shardOf(key, routingShards);
    }
}
