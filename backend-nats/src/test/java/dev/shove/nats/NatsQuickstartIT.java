package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.examples.nats.NatsQuickstart;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The NATS quickstart example runs to completion against the real server. */
class NatsQuickstartIT {
    private static final Set<String> before = new HashSet<>();

    @BeforeAll
    static void nats() throws Exception {
        NatsTestSupport.requireNats();
        before.addAll(NatsTestSupport.streams());
    }

    @AfterAll
    static void cleanUp() throws Exception {
        NatsTestSupport.deleteStreamsCreatedSince(before);
    }

    @Test
    void quickstartCompletesItsJourney() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        boolean ok = NatsQuickstart.run(
                out, NatsTestSupport.URL, NatsTestSupport.unique("quickstart"), Duration.ofSeconds(30));
        String printed = buffer.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(printed).isTrue();
        assertThat(printed)
                .contains("o-1: ledger down (retryCount 0) -> retry")
                .contains("o-1: booked (retryCount 1")
                .contains("o-2: dead letter, reason \"rejected: amount must be positive\"");
    }
}
