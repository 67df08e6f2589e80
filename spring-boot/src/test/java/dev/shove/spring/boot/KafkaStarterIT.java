package dev.shove.spring.boot;

import dev.shove.conformance.BrokerAvailability;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The starter on Kafka ({@code SHOVE_KAFKA_BOOTSTRAP}, default {@code 127.0.0.1:9092}); the broker that goes away is
 * one of the test's own ({@link KafkaPrivateBroker}). A missing broker skips it, or
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

    /** The broker of {@link #healthDown()}; null for the other tests, which use the shared one. */
    private KafkaPrivateBroker own;

    @AfterEach
    void stopOwnBroker() throws Exception {
        if (own != null) {
            closeContext();
            context = null;
            own.close();
        }
    }

    @Override
    String uri() {
        return "kafka://" + (own != null ? own.bootstrap() : BOOTSTRAP) + "?partitions=1&apiTimeout=5s";
    }

    @Test
    @DisplayName("the shove health component goes DOWN when the broker goes away (a broker of the test's own, killed)")
    void healthDown() throws Exception {
        own = KafkaPrivateBroker.start();
        assertHealthDownWhenBrokerVanishes(own::kill);
    }
}
