package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ManagementOutageTest {
    private static final String BASE = "http://127.0.0.1:15672";

    @Test
    @DisplayName("a management API that cannot be read is a WARN once, with the fix, not one every minute")
    void warnsOnce() {
        ManagementOutage outage = new ManagementOutage();
        String log = stderrDuring(() -> {
            for (int minute = 0; minute < 5; minute++) {
                outage.failed(BASE, new ConnectException("Connection refused"), Duration.ofMinutes(1));
            }
        });
        assertThat(log.lines().filter(l -> l.contains("WARN"))).hasSize(1);
        assertThat(log)
                .contains("rabbitmq-plugins enable rabbitmq_management")
                .contains("noManagementApi()")
                .contains("every 1 min");
    }

    @Test
    @DisplayName("after the API answered again, a new outage is reported again")
    void newOutageWarnsAgain() {
        ManagementOutage outage = new ManagementOutage();
        String log = stderrDuring(() -> {
            outage.failed(BASE, new IOException("HTTP 503"), Duration.ofMinutes(1));
            outage.answered(BASE);
            outage.answered(BASE);
            outage.failed(BASE, new IOException("HTTP 503"), Duration.ofMinutes(1));
        });
        assertThat(log.lines().filter(l -> l.contains("WARN"))).hasSize(2);
        assertThat(log.lines().filter(l -> l.contains("answers again"))).hasSize(1);
    }

    /** What slf4j-simple (the test binding, which writes to the System.err of each call) printed. */
    private static synchronized String stderrDuring(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
