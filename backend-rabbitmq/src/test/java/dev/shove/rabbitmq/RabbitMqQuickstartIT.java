package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.examples.rabbitmq.RabbitMqQuickstart;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The RabbitMQ quickstart example runs to completion against the real broker. */
class RabbitMqQuickstartIT {
    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    @Test
    void quickstartCompletesItsJourney() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        boolean ok = RabbitMqQuickstart.run(out, RabbitAdmin.uri(), admin.unique("quickstart"), Duration.ofSeconds(30));
        String printed = buffer.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(printed).isTrue();
        assertThat(printed)
                .contains("o-1: ledger down (retryCount 0) -> retry")
                .contains("o-1: booked (retryCount 1")
                .contains("o-2: dead letter, reason \"rejected: amount must be positive\"");
    }
}
