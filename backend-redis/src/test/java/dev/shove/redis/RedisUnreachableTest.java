package dev.shove.redis;

import dev.shove.conformance.UnreachableBroker;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RedisUnreachableTest {

    @Test
    @DisplayName("connecting to a closed port fails within the connect timeout, in the shape every backend shares")
    void closedPort() {
        UnreachableBroker.check(
                "Redis",
                port -> "redis://127.0.0.1:" + port + "?connectTimeout=2s",
                port -> "redis://127.0.0.1:" + port);
    }
}
