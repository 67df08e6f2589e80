package dev.shove.kafka;

import dev.shove.conformance.UnreachableBroker;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class KafkaUnreachableTest {

    @Test
    @DisplayName("connecting to a closed port fails within the connect timeout, in the shape every backend shares")
    void closedPort() {
        UnreachableBroker.check(
                "Kafka", port -> "kafka://127.0.0.1:" + port + "?connectTimeout=2s", port -> "127.0.0.1:" + port);
    }
}
