package dev.shove.rabbitmq;

/** The marker type of the RabbitMQ backend: {@code Broker<RabbitMq>}. Never instantiated. */
public final class RabbitMq {
    private RabbitMq() {}
}
