package dev.shove.jdbc;

import dev.shove.Broker;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.kafka.KafkaConfig;

/** {@link EndToEndContract} through Kafka ({@code SHOVE_KAFKA_BOOTSTRAP}, default 127.0.0.1:9092). */
class EndToEndKafkaIT extends EndToEndContract {
    @Override
    Broker<?> connect() {
        String bootstrap = BrokerAvailability.env("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
        String first = bootstrap.split(",")[0];
        int colon = first.lastIndexOf(':');
        BrokerAvailability.require(
                "Kafka", "kafka", first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
        return Broker.connect(KafkaConfig.of(bootstrap));
    }
}
