package dev.shove.rabbitmq;

import dev.shove.conformance.faults.FaultSuite;
import dev.shove.conformance.faults.FaultTarget;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fault suite on RabbitMQ, against the shared broker: consumers are killed with SIGKILL at random moments. The
 * broker restart is pluggable ({@link #RESTART}) and none for now: the shared broker must not be restarted, and a
 * RabbitMQ node of the tests' own is another change's to add.
 */
class RabbitMqFaultIT {
    /** What restarts the broker: none until the tests have a RabbitMQ node of their own. */
    static final FaultTarget RESTART =
            FaultTarget.none("shared RabbitMQ broker, never restarted; no own-node helper in these tests yet");

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    @Test
    @DisplayName("consumers killed at random: every message ends acknowledged or dead-lettered, none lost, duplicates"
            + " within the in-flight bound")
    void faults() throws Exception {
        FaultSuite.builder("rabbitmq", RabbitAdmin.uri())
                .topicName(admin.unique("faults"))
                .messages(1_000)
                .target(RESTART)
                .settle(Duration.ofSeconds(3)) // a dead connection's unacknowledged messages come back at once
                .build()
                .run();
    }
}
