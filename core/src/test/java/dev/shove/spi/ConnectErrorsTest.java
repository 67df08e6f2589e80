package dev.shove.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.BrokerUnavailableException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ConnectErrorsTest {

    @Test
    @DisplayName("a refused connection reads the same on every broker, whatever the client's wording")
    void refused() {
        BrokerUnavailableException e = ConnectErrors.cannotConnect(
                "Redis",
                "redis://127.0.0.1:6390",
                Duration.ofSeconds(10),
                new IllegalStateException(
                        "Unable to connect to 127.0.0.1/<unresolved>:6390",
                        new ConnectException("Connection refused: /127.0.0.1:6390")),
                "redis");
        assertThat(e)
                .hasMessage("cannot connect to Redis at redis://127.0.0.1:6390 (connection refused); is it running?"
                        + " Locally: scripts/brokers.sh up redis")
                .hasRootCauseInstanceOf(ConnectException.class);
        assertThat(e.isRetriable()).isTrue();
    }

    @Test
    @DisplayName("a timeout names the connect timeout as text; an unknown host names the host")
    void timeoutAndHost() {
        assertThat(ConnectErrors.reason(
                        new IOException("x", new SocketTimeoutException("Connect timed out")), Duration.ofSeconds(3)))
                .isEqualTo("no connection within 3 s");
        assertThat(ConnectErrors.reason(new UnknownHostException("kafak"), Duration.ofSeconds(3)))
                .isEqualTo("unknown host 'kafak'");
        assertThat(ConnectErrors.reason(new IOException("Unable to connect to NATS servers"), Duration.ofSeconds(3)))
                .isEqualTo("Unable to connect to NATS servers");
    }
}
