package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.conformance.faults.FaultReport;
import dev.shove.conformance.faults.FaultSuite;
import dev.shove.conformance.faults.FaultTarget;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault suite on Redis Streams, against a redis-server of the test's own (append-only file, fsync on every write,
 * so a SIGKILL loses nothing the server acknowledged), which it kills with SIGKILL and starts again once while
 * consumers are being killed.
 */
class RedisFaultIT {
    /** The first port of the range these tests may use for servers of their own. */
    private static final int FIRST_PORT = 31_000;

    @Test
    @DisplayName("consumers killed at random and the server restarted once: every message ends acknowledged or"
            + " dead-lettered, none lost, duplicates within the in-flight bound")
    void faults() throws Exception {
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort(
                FIRST_PORT, 20, false, port -> new String[] {"--appendonly", "yes", "--appendfsync", "always"})) {
            String uri = "redis://127.0.0.1:" + server.port() + "?claimIdle=3s&leaseRenewal=500ms&shardLease=2s";
            FaultReport report = FaultSuite.builder("redis", uri)
                    .messages(1_000)
                    .target(FaultTarget.restarting("own redis-server (appendfsync always), SIGKILL and start", () -> {
                        server.kill();
                        server.restart();
                    }))
                    .settle(Duration.ofSeconds(5)) // a dead consumer's entries are claimed after 3 s idle
                    .build()
                    .run();
            assertThat(report.restarts()).isEqualTo(1);
        }
    }
}
