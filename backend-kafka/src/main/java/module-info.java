/** shove's Kafka backend, over kafka-clients. */
module dev.shove.kafka {
    requires transitive dev.shove;
    requires kafka.clients;

    exports dev.shove.kafka;

    provides dev.shove.spi.BrokerConfigProvider with
            dev.shove.kafka.KafkaConfigProvider;
}
