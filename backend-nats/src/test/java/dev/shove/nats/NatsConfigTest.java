package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NatsConfigTest {

    @Test
    @DisplayName("of() takes a comma-separated server list; a bare host:port means nats://, a missing port 4222")
    void serverList() {
        NatsConfig config = NatsConfig.of("nats://a:1, b:2 ,nats://c");
        assertThat(config.servers()).containsExactly("nats://a:1", "nats://b:2", "nats://c:4222");
        assertThat(config.isTls()).isFalse();
    }

    @Test
    @DisplayName("a tls:// server turns TLS on, with hostname verification by default")
    void tlsScheme() {
        NatsConfig config = NatsConfig.of("tls://nats.internal:4222");
        assertThat(config.isTls()).isTrue();
        assertThat(config.isTlsHostnameVerification()).isTrue();
        assertThat(config.toBuilder().noTlsHostnameVerification().build().isTlsHostnameVerification())
                .isFalse();
    }

    @Test
    @DisplayName("another scheme, or no server at all, is refused with a message saying what is expected")
    void badServers() {
        assertThatThrownBy(() -> NatsConfig.of("amqp://x:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nats://");
        assertThatThrownBy(() -> NatsConfig.of(" , "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one server");
    }

    @Test
    @DisplayName("credentials in a server address are refused without showing them")
    void credentialsInAddressRefused() {
        assertThatThrownBy(() -> NatsConfig.of("nats://app:hunter2@host:4222"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("credentials(user, password)")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2"));
    }

    @Test
    @DisplayName("toString never shows a password, a token or an NKey seed")
    void noSecretsInToString() {
        String seed = "SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4";
        assertThat(NatsConfig.builder("nats://h")
                        .credentials("app", "hunter2")
                        .build()
                        .toString())
                .contains("user 'app'")
                .doesNotContain("hunter2");
        assertThat(NatsConfig.builder("nats://h").token("t0k3n-secret").build().toString())
                .contains("auth=token")
                .doesNotContain("t0k3n-secret");
        assertThat(NatsConfig.builder("nats://h").nkeySeed(seed).build().toString())
                .contains("auth=nkey")
                .doesNotContain(seed);
    }

    @Test
    @DisplayName("one authentication at a time: a later setter replaces an earlier one")
    void oneAuthentication() {
        NatsConfig config = NatsConfig.builder("nats://h")
                .credentials("app", "pw")
                .token("tok")
                .build();
        assertThat(config.username()).isEmpty();
        assertThat(config.toString()).contains("auth=token");
    }

    @Test
    @DisplayName("durations are checked at once, naming the setting, its range and the value")
    void durationsChecked() {
        assertThatThrownBy(() -> NatsConfig.builder("nats://h").ackWait(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ackWait")
                .hasMessageContaining("300 ms")
                .hasMessageContaining("10 ms");
        assertThatThrownBy(() -> NatsConfig.builder("nats://h").apiTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("apiTimeout")
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> NatsConfig.builder("nats://h").shardLease(Duration.ofMillis(500)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shardLease")
                .hasMessageContaining("at least 1 s");
        assertThatThrownBy(() -> NatsConfig.builder("nats://h").streamMaxAge(Duration.ofDays(400)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("streamMaxAge");
    }

    @Test
    @DisplayName("counts are checked at once, naming the setting, its range and the value")
    void countsChecked() {
        assertThatThrownBy(() -> NatsConfig.builder("nats://h").maxAckPending(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("NATS maxAckPending must be between 1 and 10000000, was 0");
        assertThatThrownBy(() -> NatsConfig.builder("nats://h").replicas(7))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("NATS replicas must be between 1 and 5, was 7");
    }

    @Test
    @DisplayName("every default is a named constant, and toBuilder keeps what was set")
    void defaultsAndToBuilder() {
        NatsConfig config = NatsConfig.ofDefaults();
        assertThat(config.servers()).containsExactly(NatsConfig.DEFAULT_SERVER);
        assertThat(config.ackWait()).isEqualTo(NatsConfig.DEFAULT_ACK_WAIT);
        assertThat(config.maxAckPending()).isEqualTo(NatsConfig.DEFAULT_MAX_ACK_PENDING);
        assertThat(config.streamMaxAge()).contains(NatsConfig.DEFAULT_STREAM_MAX_AGE);
        assertThat(config.storage()).isEqualTo(NatsConfig.Storage.FILE);
        NatsConfig changed = config.toBuilder()
                .ackWait(Duration.ofSeconds(3))
                .noStreamMaxAge()
                .build();
        assertThat(changed.toBuilder().build().ackWait()).isEqualTo(Duration.ofSeconds(3));
        assertThat(changed.streamMaxAge()).isEmpty();
        assertThat(config.ackWait()).as("the original is unchanged").isEqualTo(NatsConfig.DEFAULT_ACK_WAIT);
    }

    @Test
    @DisplayName("a stream max age shorter than the duplicate window is refused at build, naming both settings")
    void maxAgeBelowDuplicateWindowRefused() {
        assertThatThrownBy(() -> NatsConfig.builder("nats://h:1")
                        .streamMaxAge(Duration.ofSeconds(30))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("NATS streamMaxAge 30 s is shorter than duplicateWindow 2 min: JetStream refuses such a"
                        + " stream. Raise streamMaxAge, or lower duplicateWindow to at most 30 s");
        assertThatThrownBy(() -> NatsConfig.builder("nats://h:1")
                        .deadLetterMaxAge(Duration.ofMinutes(1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deadLetterMaxAge 1 min is shorter than duplicateWindow 2 min");
        assertThat(NatsConfig.builder("nats://h:1")
                        .streamMaxAge(Duration.ofSeconds(30))
                        .duplicateWindow(Duration.ofSeconds(30))
                        .build()
                        .streamMaxAge())
                .contains(Duration.ofSeconds(30));
    }

    @Test
    @DisplayName("dead letters are kept until replayed or purged unless deadLetterMaxAge says otherwise")
    void deadLetterMaxAge() {
        assertThat(NatsConfig.of("nats://h:1").deadLetterMaxAge()).isEmpty();
        NatsConfig aged = NatsConfig.builder("nats://h:1")
                .deadLetterMaxAge(Duration.ofDays(30))
                .build();
        assertThat(aged.deadLetterMaxAge()).contains(Duration.ofDays(30));
        assertThat(aged.toBuilder().noDeadLetterMaxAge().build().deadLetterMaxAge())
                .isEmpty();
        assertThat(aged.toString()).contains("deadLetterMaxAge=PT720H");
    }
}
