package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.conformance.faults.FaultReport;
import dev.shove.conformance.faults.FaultSuite;
import dev.shove.conformance.faults.FaultTarget;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault suite on NATS JetStream, against a nats-server of the test's own (file storage), which it kills with
 * SIGKILL and starts again once while consumers are being killed.
 */
class NatsFaultIT {

    @Test
    @DisplayName("consumers killed at random and the server restarted once: every message ends acknowledged or"
            + " dead-lettered, none lost, duplicates within the in-flight bound")
    void faults() throws Exception {
        try (NatsTestSupport.OwnServer server = new NatsTestSupport.OwnServer().start()) {
            String uri = server.url() + "?ackWait=2s&shardLease=2s&reconnectWait=250ms&apiTimeout=2s";
            FaultReport report = FaultSuite.builder("nats", uri)
                    .messages(1_000)
                    .target(FaultTarget.restarting("own nats-server, SIGKILL and start", () -> {
                        server.kill();
                        server.start();
                    }))
                    .settle(Duration.ofSeconds(4)) // ack wait 2 s, twice
                    .build()
                    .run();
            assertThat(report.restarts()).isEqualTo(1);
        }
    }
}
