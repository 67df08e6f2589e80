package dev.shove.examples.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The tracing example runs to completion and prints the two traces its comment describes. */
class TracedOrdersTest {

    @Test
    @DisplayName("TracedOrders prints one trace per order: o-1 through its retry and reply, o-2 to its dead letter")
    void printsTheTwoTraces() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);

        TracedOrders.Result result = TracedOrders.run(out, Duration.ofMillis(100), Duration.ofSeconds(20));

        String printed = buffer.toString(StandardCharsets.UTF_8);
        assertThat(result.problems()).as(printed).isEmpty();
        assertThat(printed).contains("two traces, as described");
    }
}
