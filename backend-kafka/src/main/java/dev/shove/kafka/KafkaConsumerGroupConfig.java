package dev.shove.kafka;

import dev.shove.ConsumerOptions;
import dev.shove.GroupConfig;

/**
 * Consumer-group settings on Kafka: min..max consumers (each one a {@code KafkaConsumer} and a member of the Kafka
 * consumer group) and the common {@link ConsumerOptions}. Immutable.
 *
 * <p>The Kafka group id is the shove group's name ({@link dev.shove.ConsumerGroupConfig#withGroupName(String)},
 * default: the topic's name); the dead-letter consumer uses {@code {group}-dlq}. More consumers than partitions leave
 * the extra ones idle, so keep {@code max} at or below the topic's partitions.
 *
 * <pre>{@code
 * ConsumerGroupConfig.of(KafkaConsumerGroupConfig.of(1, 4).withPrefetch(100))
 * }</pre>
 */
public final class KafkaConsumerGroupConfig extends GroupConfig<Kafka, KafkaConsumerGroupConfig> {

    private KafkaConsumerGroupConfig(int min, int max, ConsumerOptions options) {
        super(min, max, options);
    }

    /** Between {@code min} and {@code max} consumers, default options. */
    public static KafkaConsumerGroupConfig of(int min, int max) {
        return new KafkaConsumerGroupConfig(min, max, ConsumerOptions.defaults());
    }

    /** Exactly one consumer, default options. */
    public static KafkaConsumerGroupConfig ofDefaults() {
        return of(1, 1);
    }

    @Override
    protected KafkaConsumerGroupConfig copy(int min, int max, ConsumerOptions options) {
        return new KafkaConsumerGroupConfig(min, max, options);
    }
}
