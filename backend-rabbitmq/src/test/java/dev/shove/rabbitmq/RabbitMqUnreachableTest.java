package dev.shove.rabbitmq;

import dev.shove.conformance.UnreachableBroker;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RabbitMqUnreachableTest {

    @Test
    @DisplayName("connecting to a closed port fails within the connect timeout, in the shape every backend shares")
    void closedPort() {
        UnreachableBroker.check(
                "RabbitMQ",
                port -> "amqp://guest:guest@127.0.0.1:" + port + "?connectTimeout=2s",
                port -> "amqp://guest:****@127.0.0.1:" + port + "/%2F");
    }
}
