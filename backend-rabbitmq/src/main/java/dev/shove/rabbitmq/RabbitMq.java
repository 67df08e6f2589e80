package dev.shove.rabbitmq;

/**
 * The marker type of the RabbitMQ backend: {@code Broker<RabbitMq>}. Never instantiated.
 *
 * @since 0.1.0
 */
public final class RabbitMq {
    private RabbitMq() {}
}
