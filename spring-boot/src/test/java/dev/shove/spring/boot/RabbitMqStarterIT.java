package dev.shove.spring.boot;

import dev.shove.conformance.BrokerAvailability;
import java.net.URI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The starter on RabbitMQ ({@code SHOVE_RABBITMQ_URI}, default {@code amqp://guest:guest@127.0.0.1:5672}), through a
 * {@link TcpProxy} of the test's own so that closing it makes the broker vanish for this application only. A missing
 * broker skips it, or fails it with {@code SHOVE_IT_REQUIRED=true}.
 */
class RabbitMqStarterIT extends StarterITSupport {
    private static final URI BROKER =
            URI.create(BrokerAvailability.env("SHOVE_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672"));

    private TcpProxy proxy;

    @BeforeAll
    static void requireBroker() {
        BrokerAvailability.require("RabbitMQ", "rabbitmq", BROKER, 5672);
    }

    @BeforeEach
    void openProxy() throws Exception {
        proxy = TcpProxy.to(BROKER.getHost(), BROKER.getPort() > 0 ? BROKER.getPort() : 5672);
    }

    @AfterEach
    void closeProxy() throws Exception {
        proxy.close();
    }

    @Override
    String uri() {
        String userInfo = BROKER.getRawUserInfo() == null ? "" : BROKER.getRawUserInfo() + "@";
        String path = BROKER.getRawPath() == null ? "" : BROKER.getRawPath();
        // the connection recovers fast, so the test sees it come back or stay down within seconds
        return "amqp://" + userInfo + "127.0.0.1:" + proxy.port() + path;
    }

    @Test
    @DisplayName("the shove health component goes DOWN when the broker goes away")
    void healthDown() throws Exception {
        assertHealthDownWhenBrokerVanishes(proxy::close);
    }
}
