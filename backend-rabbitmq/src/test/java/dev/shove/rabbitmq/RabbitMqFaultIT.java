package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.conformance.faults.FaultReport;
import dev.shove.conformance.faults.FaultSuite;
import dev.shove.conformance.faults.FaultTarget;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fault suite on RabbitMQ, against a {@link RabbitNode} of this class's own: consumers are killed with SIGKILL at
 * random moments and the broker is restarted once ({@code rabbitmqctl stop_app}, then {@code start_app}: every
 * connection is closed and the ports close; shove's queues are durable and its messages persistent, so the node keeps
 * them). Never the shared broker, which other suites use.
 */
class RabbitMqFaultIT {

    @RegisterExtension
    @Order(1)
    static final RabbitNode node = RabbitNode.plain();

    @RegisterExtension
    @Order(2)
    static final RabbitAdmin admin = new RabbitAdmin(node::config);

    @Test
    @DisplayName("consumers killed at random and the broker restarted once: every message ends acknowledged or"
            + " dead-lettered, none lost, duplicates within the in-flight bound")
    void faults() throws Exception {
        // the suite's consumers run in child JVMs and connect with the URI alone: it names the node's management API
        String management = "http://127.0.0.1:" + node.ports().management();
        String uri = node.uri() + "?managementApi=" + URLEncoder.encode(management, StandardCharsets.UTF_8);
        FaultReport report = FaultSuite.builder("rabbitmq", uri)
                .topicName(admin.unique("faults"))
                .messages(1_000)
                .target(FaultTarget.restarting("own RabbitMQ node, rabbitmqctl stop_app and start_app", () -> {
                    node.stopApp();
                    node.startApp();
                }))
                .settle(Duration.ofSeconds(3)) // a dead connection's unacknowledged messages come back at once
                .build()
                .run();
        assertThat(report.restarts()).isEqualTo(1);
    }
}
