package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.conformance.faults.FaultReport;
import dev.shove.conformance.faults.FaultSuite;
import dev.shove.conformance.faults.FaultTarget;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault suite on Kafka, against a broker of this test's own ({@link KafkaOwnBroker#plain()}, ports 19290-19291,
 * never the shared one): consumers are killed with SIGKILL at random moments and the broker is restarted once
 * (SIGTERM, SIGKILL after 20 s, then started again on the same data directory and ports). The broker is thrown away
 * with its topics afterwards.
 *
 * <p>Kafka's duplicate bound is wider than the other backends': a partition's committed offset cannot pass a record
 * still in a handler, so a kill hands back every record completed after it too (docs/reliability.md).
 */
class KafkaFaultIT {

    @Test
    @DisplayName("consumers killed at random and the broker restarted once: every message ends acknowledged or"
            + " dead-lettered, none lost, duplicates within the in-flight bound")
    void faults() throws Exception {
        try (KafkaOwnBroker kafka = KafkaOwnBroker.plain()) {
            String uri = "kafka://" + kafka.plainBootstrap() + "?sessionTimeout=6s&partitions=4";
            String topicName = "it-faults-" + UUID.randomUUID().toString().substring(0, 8);
            FaultReport report = FaultSuite.builder("kafka", uri)
                    .topicName(topicName)
                    .messages(600) // fewer than elsewhere: the broker restart and the 6 s session timeouts take their
                    // time
                    .target(FaultTarget.restarting("own Kafka broker, SIGTERM and start", kafka::restart))
                    .contiguousCommit() // the committed offset stops at the oldest unfinished record of its partition
                    .settle(Duration.ofSeconds(10)) // a dead member's partitions move after the 6 s session timeout
                    .build()
                    .run();
            assertThat(report.restarts()).isEqualTo(1);
        }
    }
}
