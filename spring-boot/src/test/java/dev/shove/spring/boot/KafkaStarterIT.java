package dev.shove.spring.boot;

import dev.shove.conformance.BrokerAvailability;
import org.junit.jupiter.api.BeforeAll;

/**
 * The starter on Kafka ({@code SHOVE_KAFKA_BOOTSTRAP}, default {@code 127.0.0.1:9092}). A missing broker skips it, or
 * fails it with {@code SHOVE_IT_REQUIRED=true}.
 */
class KafkaStarterIT extends StarterITSupport {
    private static final String BOOTSTRAP = BrokerAvailability.env("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");

    @BeforeAll
    static void requireBroker() {
        String first = BOOTSTRAP.split(",")[0];
        int colon = first.lastIndexOf(':');
        BrokerAvailability.require(
                "Kafka", "kafka", first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
    }

    @Override
    String uri() {
        return "kafka://" + BOOTSTRAP + "?partitions=1";
    }
}
