package dev.shove.asyncapi;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Topic;
import java.util.Map;

/**
 * shove's objects on RabbitMQ ({@code docs/backends/rabbitmq.md}): durable queues published to through the default
 * exchange, named as shove names them; a sequenced topic has a single-active-consumer queue per shard and hold queues
 * per shard; a hold queue's messages expire after its delay ({@code x-message-ttl}) and are dead-lettered back to the
 * queue they came from; a broadcast topic is a durable fanout exchange {@code {name}-broadcast}, to which each
 * subscriber binds a queue of its own.
 *
 * @param vhost the virtual host, {@code /} unless the URI names another
 */
record AmqpLayout(String vhost) implements Layout {
    private static final String VERSION = "0.3.0";
    private static final int PERSISTENT = 2;
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Override
    public boolean hasShardHolds(Topic<?> topic) {
        return topic.isSequenced();
    }

    @Override
    public Map<String, ObjectNode> channelBindings(Channel channel) {
        ObjectNode amqp = JSON.objectNode();
        if (channel.kind == Channel.Kind.MAIN && channel.topic.isBroadcast()) {
            amqp.put("is", "routingKey");
            ObjectNode exchange = amqp.putObject("exchange");
            exchange.put("name", channel.topic.name() + "-broadcast");
            exchange.put("type", "fanout");
            exchange.put("durable", true);
            exchange.put("autoDelete", false);
            exchange.put("vhost", vhost);
        } else {
            amqp.put("is", "queue");
            ObjectNode queue = amqp.putObject("queue");
            queue.put("name", channel.address);
            queue.put("durable", true);
            queue.put("exclusive", false);
            queue.put("autoDelete", false);
            queue.put("vhost", vhost);
            if (channel.kind == Channel.Kind.MAIN && channel.topic.isSequenced()) {
                amqp.putObject("x-shove-queue-arguments").put("x-single-active-consumer", true);
            } else if (channel.kind == Channel.Kind.HOLD) {
                ObjectNode arguments = amqp.putObject("x-shove-queue-arguments");
                arguments.put("x-message-ttl", channel.tier().delay().toMillis());
                arguments.put("x-dead-letter-exchange", "");
                arguments.put("x-dead-letter-routing-key", channel.returnsTo());
            }
        }
        amqp.put("bindingVersion", VERSION);
        return Map.of("amqp", amqp);
    }

    @Override
    public Map<String, ObjectNode> operationBindings(Channel channel, boolean send) {
        ObjectNode amqp = JSON.objectNode();
        if (send) {
            amqp.put("deliveryMode", PERSISTENT);
        } else if (channel.kind == Channel.Kind.MAIN && channel.topic.isBroadcast()) {
            return Map.of();
        } else {
            amqp.put("ack", true);
        }
        amqp.put("bindingVersion", VERSION);
        return Map.of("amqp", amqp);
    }
}
