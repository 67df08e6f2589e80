package dev.shove.rabbitmq;

import dev.shove.ConsumerOptions;
import dev.shove.GroupConfig;

/**
 * Consumer-group settings on RabbitMQ: min..max consumers and the common {@link ConsumerOptions}. Immutable.
 *
 * <p>Each consumer of a group is one AMQP channel on the broker's connection, consuming with {@code basic.qos} set to
 * its window: the prefetch for a plain topic; prefetch plus lane buffer, shared by the channel's consumers of every
 * shard ({@code global} qos), for a sequenced topic. Consumers of a plain topic compete for its queue; on a sequenced
 * topic each shard queue has a single active consumer and the others stand by.
 *
 * <pre>{@code
 * ConsumerGroupConfig.of(RabbitMqConsumerGroupConfig.of(1, 4).withPrefetch(50))
 * }</pre>
 */
public final class RabbitMqConsumerGroupConfig extends GroupConfig<RabbitMq, RabbitMqConsumerGroupConfig> {

    private RabbitMqConsumerGroupConfig(int min, int max, ConsumerOptions options) {
        super(min, max, options);
    }

    /** Between {@code min} and {@code max} consumers, default options. */
    public static RabbitMqConsumerGroupConfig of(int min, int max) {
        return new RabbitMqConsumerGroupConfig(min, max, ConsumerOptions.defaults());
    }

    /** Exactly one consumer, default options. */
    public static RabbitMqConsumerGroupConfig ofDefaults() {
        return of(1, 1);
    }

    @Override
    protected RabbitMqConsumerGroupConfig copy(int min, int max, ConsumerOptions options) {
        return new RabbitMqConsumerGroupConfig(min, max, options);
    }
}
