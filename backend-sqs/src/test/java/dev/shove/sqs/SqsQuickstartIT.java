package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.examples.sqs.SqsQuickstart;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The SQS quickstart example runs to completion against the emulator. */
class SqsQuickstartIT {

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs();
    }

    @Test
    void quickstartCompletesItsJourney() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        boolean ok = SqsQuickstart.run(
                out, SqsTestSupport.endpoint(), SqsTestSupport.unique("quickstart"), Duration.ofSeconds(30));
        String printed = buffer.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(printed).isTrue();
        assertThat(printed)
                .contains("o-1: ledger down (retryCount 0) -> retry")
                .contains("o-1: booked (retryCount 1, deliveryCount 1)")
                .contains("o-2: dead letter, reason \"rejected: amount must be positive\"");
    }
}
