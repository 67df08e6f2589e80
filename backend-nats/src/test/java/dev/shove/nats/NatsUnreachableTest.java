package dev.shove.nats;

import dev.shove.conformance.UnreachableBroker;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NatsUnreachableTest {

    @Test
    @DisplayName("connecting to a closed port fails within the connect timeout, in the shape every backend shares")
    void closedPort() {
        UnreachableBroker.check(
                "NATS", port -> "nats://127.0.0.1:" + port + "?connectTimeout=2s", port -> "nats://127.0.0.1:" + port);
    }
}
