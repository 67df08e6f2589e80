package dev.shove.sqs;

import dev.shove.conformance.faults.FaultSuite;
import dev.shove.conformance.faults.FaultTarget;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault suite on SQS, against the shared emulator: consumers are killed with SIGKILL at random moments. The broker
 * is not restarted: the emulator keeps nothing across a restart (it holds its queues in memory), so a restart would
 * lose every message by design and prove nothing about shove.
 */
class SqsFaultIT {
    private static final Set<String> before = new HashSet<>();

    @BeforeAll
    static void sqs() {
        SqsTestSupport.requireSqs();
        before.addAll(SqsTestSupport.snapshot());
    }

    @AfterAll
    static void cleanUp() {
        SqsTestSupport.deleteCreatedSince(before);
    }

    @Test
    @DisplayName("consumers killed at random: every message ends acknowledged or dead-lettered, none lost, duplicates"
            + " within the in-flight bound")
    void faults() throws Exception {
        String uri = "sqs://us-east-1?endpoint=" + URLEncoder.encode(SqsTestSupport.endpoint(), StandardCharsets.UTF_8)
                + "&accessKeyId=emulator&secretAccessKey=emulator&visibilityTimeout=3s&receiveWait=2s";
        FaultSuite.builder("sqs", uri)
                .topicName(SqsTestSupport.unique("faults"))
                .messages(1_000)
                .target(FaultTarget.none("the SQS emulator keeps nothing across a restart (in memory only)"))
                .settle(Duration.ofSeconds(6)) // visibility timeout 3 s after the last long poll of 2 s
                .build()
                .run();
    }
}
