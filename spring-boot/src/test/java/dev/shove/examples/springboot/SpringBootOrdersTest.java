package dev.shove.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SpringBootOrdersTest {
    @Test
    @DisplayName("SpringBootOrders books o-1 after one retry, dead-letters o-2, and exits 0")
    void journey() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exitCode = SpringBootOrders.run(
                new PrintStream(bytes, true, StandardCharsets.UTF_8),
                Duration.ofSeconds(20),
                "--spring.main.banner-mode=off");
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(exitCode).as(out).isZero();
        assertThat(out)
                .contains("o-1 retry 0: ledger down")
                .contains("o-1 retry 1: booked")
                .contains("o-2 dead: ")
                .contains("journey complete, exit code 0");
    }
}
