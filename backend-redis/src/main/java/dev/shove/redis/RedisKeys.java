package dev.shove.redis;

import dev.shove.HoldTier;
import dev.shove.Topic;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis keys of one topic. Every key is {@code prefix + "{" + topic + "}"} followed by the name of the broker
 * object ({@code shove:{orders}}, {@code shove:{orders}:orders-seq-3}, {@code shove:{orders}:orders-hold-5s}, {@code
 * shove:{orders}:orders-dlq}), so the topic's name is the hash tag of all its keys: on a Redis Cluster they share one
 * slot, which the Lua scripts that move entries between them need.
 */
final class RedisKeys {
    private final String prefix;

    RedisKeys(String prefix) {
        this.prefix = prefix;
    }

    private String base(Topic<?> topic) {
        return prefix + "{" + topic.name() + "}";
    }

    /** The main stream of an unsequenced or broadcast topic. */
    String main(Topic<?> topic) {
        return base(topic);
    }

    /** The stream of shard {@code index} of a sequenced topic. */
    String shard(Topic<?> topic, int index) {
        return base(topic) + ":" + topic.shardName(index);
    }

    /** The streams a topic's messages are published to and consumed from: the main stream or every shard. */
    List<String> streams(Topic<?> topic) {
        if (!topic.isSequenced()) {
            return List.of(main(topic));
        }
        int shards = topic.sequencing().orElseThrow().routingShards();
        List<String> out = new ArrayList<>(shards);
        for (int i = 0; i < shards; i++) {
            out.add(shard(topic, i));
        }
        return out;
    }

    /** The stream a message of shard {@code shard} (-1: none) goes to. */
    String streamFor(Topic<?> topic, int shard) {
        return shard >= 0 && topic.isSequenced() ? shard(topic, shard) : main(topic);
    }

    /** The sorted set of one hold tier. */
    String hold(Topic<?> topic, HoldTier tier) {
        return base(topic) + ":" + tier.queue();
    }

    /** The dead-letter stream (named {@code queue}). */
    String deadLetters(Topic<?> topic, String queue) {
        return base(topic) + ":" + queue;
    }

    /** The hash describing the topic's shape, written by the first declare and checked by later ones. */
    String meta(Topic<?> topic) {
        return base(topic) + ":meta";
    }

    /** The lease of shard {@code index} of a sequenced topic, held by one consumer of {@code group}. */
    String lease(Topic<?> topic, String group, int index) {
        return base(topic) + ":lease:" + group + ":" + index;
    }

    /** The sorted set of the live consumers of {@code group} on a sequenced topic, scored by their last heartbeat. */
    String members(Topic<?> topic, String group) {
        return base(topic) + ":members:" + group;
    }

    /** The hash of sequenced retries waiting in place in {@code group}: entry → retry count and due time. */
    String waits(Topic<?> topic, String group) {
        return base(topic) + ":waits:" + group;
    }

    /** The logical name (a queue name, as the engine knows it) of a stream key of {@code topic}. */
    static String queueName(Topic<?> topic, String streamKey, String mainKey) {
        if (streamKey.equals(mainKey)) {
            return topic.name();
        }
        int colon = streamKey.lastIndexOf("}:");
        return colon < 0 ? topic.name() : streamKey.substring(colon + 2);
    }
}
