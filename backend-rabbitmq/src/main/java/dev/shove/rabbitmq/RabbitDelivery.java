package dev.shove.rabbitmq;

import com.rabbitmq.client.AMQP;
import dev.shove.spi.Delivery;
import java.util.Map;

/**
 * One message received on a consumer channel. Besides what the engine sees, it keeps what settling it needs: its
 * delivery tag, the channel epoch it belongs to (a tag is meaningless on a recovered channel), its AMQP properties
 * (copies keep them) and, for a sequenced topic, its shard.
 */
final class RabbitDelivery implements Delivery {
    final RabbitSubscription subscription;
    final long tag;
    final int epoch;
    final int shard;
    final AMQP.BasicProperties properties;
    private final byte[] body;
    private final Map<String, String> headers;
    private final String queue;
    private final boolean redelivered;
    private final int deliveryCount;

    RabbitDelivery(
            RabbitSubscription subscription,
            long tag,
            int epoch,
            String queue,
            int shard,
            boolean redelivered,
            boolean quorum,
            AMQP.BasicProperties properties,
            byte[] body) {
        this.subscription = subscription;
        this.tag = tag;
        this.epoch = epoch;
        this.queue = queue;
        this.shard = shard;
        this.redelivered = redelivered;
        this.properties = properties;
        this.body = body;
        this.headers = AmqpMessages.toStrings(properties.getHeaders());
        this.deliveryCount = AmqpMessages.deliveryCount(properties.getHeaders(), quorum);
    }

    @Override
    public byte[] payload() {
        return body;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String deliveryId() {
        return queue + "#" + tag + "@" + subscription.consumerId();
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public boolean redelivered() {
        return redelivered;
    }

    @Override
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public String toString() {
        return "RabbitDelivery[" + deliveryId() + "]";
    }
}
