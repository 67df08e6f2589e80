package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Broker;
import dev.shove.conformance.BrokerAvailability;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class KafkaClientMetersIT {
    private static final String BOOTSTRAP = BrokerAvailability.env("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");

    @Test
    @DisplayName("with a meter registry, the Kafka clients' own meters are bound there, and unbound on close")
    void clientMetersBound() {
        String first = BOOTSTRAP.split(",")[0].trim();
        BrokerAvailability.require(
                "Kafka",
                "kafka",
                first.substring(0, first.lastIndexOf(':')),
                Integer.parseInt(first.substring(first.lastIndexOf(':') + 1)));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Broker<Kafka> broker = Broker.builder(KafkaConfig.of(BOOTSTRAP))
                .meterRegistry(registry)
                .clientName("meters-it")
                .connect()) {
            assertThat(broker.backendName()).isEqualTo("kafka");
            assertThat(names(registry))
                    .anyMatch(n -> n.startsWith("kafka.producer."))
                    .anyMatch(n -> n.startsWith("kafka.admin.client."));
        }
    }

    private static java.util.List<String> names(SimpleMeterRegistry registry) {
        return registry.getMeters().stream()
                .map(Meter::getId)
                .map(Meter.Id::getName)
                .toList();
    }
}
