package dev.shove.asyncapi;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Topic;
import java.util.Map;

/**
 * shove's objects on Redis Streams ({@code docs/backends/redis.md}): every key of a topic starts with the key prefix
 * and the topic's name as hash tag, {@code shove:{orders}}; the main queue, each shard and the dead-letter queue are
 * streams, a hold tier is a sorted set scored by due time. A sequenced topic has no hold tiers (its retries wait in
 * place). AsyncAPI's Redis bindings define no fields, so the key and its type are {@code x-shove-} extensions.
 *
 * @param keyPrefix the prefix of every key, {@code shove:} by default
 */
record RedisLayout(String keyPrefix) implements Layout {
    static final String DEFAULT_KEY_PREFIX = "shove:";
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Override
    public Map<String, ObjectNode> channelBindings(Channel channel) {
        ObjectNode redis = JSON.objectNode();
        switch (channel.kind) {
            case MAIN -> {
                Topic<?> topic = channel.topic;
                redis.put("x-shove-key", topic.isSequenced() ? base(topic) + ":" + channel.address : base(topic));
                redis.put("x-shove-type", "stream");
            }
            case HOLD -> {
                redis.put("x-shove-key", base(channel.topic) + ":" + channel.address);
                redis.put("x-shove-type", "sorted set, scored by due time (epoch ms)");
            }
            case DEAD_LETTER -> {
                // the key carries the topic's hash tag, so topics sharing a dead-letter queue have a stream each
                if (channel.deadLettersOf.size() == 1) {
                    redis.put("x-shove-key", base(channel.topic) + ":" + channel.address);
                } else {
                    ArrayNode keys = redis.putArray("x-shove-keys");
                    channel.deadLettersOf.forEach(t -> keys.add(base(t) + ":" + channel.address));
                }
                redis.put("x-shove-type", "stream");
            }
        }
        redis.put("bindingVersion", "0.1.0");
        return Map.of("redis", redis);
    }

    private String base(Topic<?> topic) {
        return keyPrefix + "{" + topic.name() + "}";
    }
}
