package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Broker;
import dev.shove.conformance.BrokerAvailability;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RabbitMqClientMetersIT {

    @Test
    @DisplayName("with a meter registry, the RabbitMQ client's metrics collector counts there, tagged by connection")
    void clientMetersBound() {
        RabbitMqConfig config = RabbitMqConfig.of(RabbitAdmin.uri());
        BrokerAvailability.require("RabbitMQ", "rabbitmq", config.host(), config.port());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Broker<RabbitMq> broker = Broker.builder(config)
                .meterRegistry(registry)
                .clientName("meters-it")
                .connect()) {
            assertThat(broker.backendName()).isEqualTo("rabbitmq");
            Gauge connections = registry.find("rabbitmq.connections")
                    .tag("connection", "meters-it")
                    .gauge();
            assertThat(connections).as("rabbitmq.connections").isNotNull();
            assertThat(connections.value()).isEqualTo(1.0);
        }
    }
}
