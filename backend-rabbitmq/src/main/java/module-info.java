/** shove's RabbitMQ backend, over amqp-client; the management API over the JDK's HTTP client. */
module dev.shove.rabbitmq {
    requires transitive dev.shove;
    requires com.rabbitmq.client;
    requires java.net.http;

    exports dev.shove.rabbitmq;

    provides dev.shove.spi.BrokerConfigProvider with
            dev.shove.rabbitmq.RabbitMqConfigProvider;
}
