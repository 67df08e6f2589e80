package dev.shove.rabbitmq;

/**
 * Where a publish goes on RabbitMQ: a queue, through the default exchange with {@code mandatory} (a message no queue
 * takes comes back instead of vanishing), or a broadcast topic's fanout exchange without it (a broadcast nobody
 * subscribes to reaches nobody, which is not an error).
 *
 * @param exchange the exchange; empty for the default exchange
 * @param routingKey the queue's name for the default exchange; empty for a fanout exchange, which ignores it
 * @param mandatory whether the broker returns the message when no queue takes it
 */
record Route(String exchange, String routingKey, boolean mandatory) {

    /** Straight to a queue: the default exchange, the queue's name as routing key, mandatory. */
    static Route queue(String queue) {
        return new Route("", queue, true);
    }

    /** To a broadcast topic's fanout exchange: every bound subscriber queue, or none. */
    static Route fanout(String exchange) {
        return new Route(exchange, "", false);
    }

    boolean isQueue() {
        return exchange.isEmpty();
    }

    /** The queue or exchange, for messages: {@code queue 'orders'} or {@code exchange 'prices-broadcast'}. */
    @Override
    public String toString() {
        return isQueue() ? "queue '" + routingKey + "'" : "exchange '" + exchange + "'";
    }
}
