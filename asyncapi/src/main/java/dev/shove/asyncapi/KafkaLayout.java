package dev.shove.asyncapi;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * shove's objects on Kafka ({@code docs/backends/kafka.md}): a topic per main queue, hold tier and dead-letter queue,
 * each of {@code partitions} partitions; a sequenced topic is one topic of one partition per shard (partition {@code
 * i} is shard {@code i}, the sequence key is the record key) and has no hold topics, its retries waiting in place.
 *
 * @param partitions partitions of new topics other than a sequenced topic's main one (the backend's default is 8)
 * @param replicas the replication factor, when the URI sets one (else the broker's default)
 * @param keyHeader the header whose value becomes the record key of unsequenced messages, if any
 */
record KafkaLayout(
        int partitions,
        @Nullable Integer replicas,
        @Nullable String keyHeader) implements Layout {
    static final int DEFAULT_PARTITIONS = 8;
    private static final String VERSION = "0.5.0";
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Override
    public Map<String, ObjectNode> channelBindings(Channel channel) {
        ObjectNode kafka = JSON.objectNode();
        if (channel.kind == Channel.Kind.MAIN && channel.topic.isSequenced()) {
            kafka.put("topic", channel.topic.name());
            kafka.put("partitions", channel.topic.sequencing().orElseThrow().routingShards());
            kafka.put("x-shove-shard-is-partition", true);
        } else {
            kafka.put("partitions", partitions);
        }
        if (replicas != null) {
            kafka.put("replicas", replicas);
        }
        kafka.put("bindingVersion", VERSION);
        return Map.of("kafka", kafka);
    }

    @Override
    public Map<String, ObjectNode> messageBindings(Topic<?> topic) {
        String description;
        if (topic.isSequenced()) {
            description = "The sequence key (also in the " + ShoveHeaders.SEQUENCE_KEY + " header); the record goes"
                    + " to the partition of its shard.";
        } else if (keyHeader != null) {
            description = "The value of the message's '" + keyHeader + "' header; a message without it has no key.";
        } else {
            return Map.of();
        }
        ObjectNode kafka = JSON.objectNode();
        kafka.putObject("key").put("type", "string").put("description", description);
        kafka.put("bindingVersion", VERSION);
        return Map.of("kafka", kafka);
    }
}
