package dev.shove.asyncapi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Topic;
import java.util.Map;

/**
 * What shove's objects of a topic are on one kind of broker: which of them exist there, and the AsyncAPI bindings
 * that describe them. The defaults are shove's own names with no bindings ({@link #PLAIN}: the in-memory broker, NATS);
 * each broker with bindings overrides them, following its backend's page under {@code docs/backends/}.
 */
interface Layout {
    /** No bindings, and every object under shove's name. */
    Layout PLAIN = new Layout() {};

    /** Whether the topic's main queue (or its shards) exists on this broker. */
    default boolean hasMain(Topic<?> topic) {
        return true;
    }

    /** Whether an unsequenced topic's hold tiers are broker objects here (not delayed copies or timers). */
    default boolean hasHolds(Topic<?> topic) {
        return !topic.isSequenced() && !topic.isBroadcast();
    }

    /** Whether a sequenced topic has hold tiers per shard here (elsewhere its retries wait in place). */
    default boolean hasShardHolds(Topic<?> topic) {
        return false;
    }

    /** The channel's bindings on this broker, by binding name ({@code kafka}, {@code amqp}, {@code sqs}, ...). */
    default Map<String, ObjectNode> channelBindings(Channel channel) {
        return Map.of();
    }

    /** The bindings of a topic's messages on this broker. */
    default Map<String, ObjectNode> messageBindings(Topic<?> topic) {
        return Map.of();
    }

    /** The bindings of sending to ({@code send}) or receiving from a channel on this broker. */
    default Map<String, ObjectNode> operationBindings(Channel channel, boolean send) {
        return Map.of();
    }
}
