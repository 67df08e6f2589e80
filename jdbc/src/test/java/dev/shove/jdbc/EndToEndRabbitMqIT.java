package dev.shove.jdbc;

import dev.shove.Broker;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.rabbitmq.RabbitMqConfig;
import java.net.URI;

/** {@link EndToEndContract} through RabbitMQ ({@code SHOVE_RABBITMQ_URI}, default amqp://guest:guest@127.0.0.1:5672). */
class EndToEndRabbitMqIT extends EndToEndContract {
    @Override
    Broker<?> connect() {
        String uri = BrokerAvailability.env("SHOVE_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672");
        BrokerAvailability.require("RabbitMQ", "rabbitmq", URI.create(uri), 5672);
        return Broker.connect(RabbitMqConfig.of(uri));
    }
}
