package dev.shove;

import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;

/**
 * The connection settings of one backend, and the factory of its transport. Each backend ships one, e.g. {@code
 * InMemoryConfig}, {@code KafkaConfig}, {@code RabbitMqConfig}; pass it to {@link Broker#connect(BrokerConfig)}.
 * Implementations are immutable and never show secrets in {@code toString()}.
 *
 * @param <B> the backend's marker type, which ties backend-specific group settings to brokers of that backend
 */
public interface BrokerConfig<B> {

    /**
     * Opens a connection to the broker. Called once by {@link Broker#connect}; backend authors implement it, users
     * never call it.
     *
     * @throws BrokerUnavailableException when the broker cannot be reached
     */
    Transport open(TransportContext context);
}
