package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.BrokerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NatsConfigProviderTest {

    private static NatsConfig config(String uri) {
        return (NatsConfig) BrokerConfig.fromUri(uri);
    }

    @Test
    @DisplayName("nats://h1:4222,h2 gives the servers (default port 4222); settings go to the builder")
    void settings() {
        NatsConfig c = config("nats://n1:4222,n2?connectionName=orders&ackWait=30s&maxAckPending=500&storage=memory"
                + "&replicas=3&streamMaxAge=1d&streamMaxMessages=1000000&duplicateWindow=5m&shardLease=20s"
                + "&apiTimeout=3s&connectTimeout=2s&reconnectWait=250ms");
        assertThat(c.servers()).containsExactly("nats://n1:4222", "nats://n2:4222");
        assertThat(c.isTls()).isFalse();
        assertThat(c.connectionName()).hasValue("orders");
        assertThat(c.ackWait()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.maxAckPending()).isEqualTo(500);
        assertThat(c.storage()).isEqualTo(NatsConfig.Storage.MEMORY);
        assertThat(c.replicas()).isEqualTo(3);
        assertThat(c.streamMaxAge()).hasValue(Duration.ofDays(1));
        assertThat(c.streamMaxMessages()).hasValue(1_000_000);
        assertThat(c.duplicateWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.shardLease()).isEqualTo(Duration.ofSeconds(20));
        assertThat(c.apiTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.reconnectWait()).isEqualTo(Duration.ofMillis(250));
        assertThat(config("nats://n1?streamMaxAge=none").streamMaxAge()).isEmpty();
    }

    @Test
    @DisplayName("user:password@ and token@ authenticate as in the NATS tools; password_file replaces the URI's")
    void authentication(@TempDir Path dir) throws Exception {
        NatsConfig user = config("nats://app:s%40cret@n1:4222");
        assertThat(user.username()).hasValue("app");
        assertThat(user.password()).isEqualTo("s@cret");
        assertThat(user.toString()).doesNotContain("s@cret");

        NatsConfig token = config("nats://t0ken@n1");
        assertThat(token.username()).isEmpty();
        assertThat(token.token()).isEqualTo("t0ken");

        Path secret = Files.writeString(dir.resolve("password"), "from-file\n");
        NatsConfig fromFile = config("nats://app@n1?password_file=" + secret);
        assertThat(fromFile.username()).hasValue("app");
        assertThat(fromFile.password()).isEqualTo("from-file");
    }

    @Test
    @DisplayName("tls=true connects over TLS to every server; tlsHostnameVerification=false turns the check off")
    void tls() {
        NatsConfig c = config("nats://n1:4443,n2:4443?tls=true&tlsHostnameVerification=false");
        assertThat(c.servers()).containsExactly("tls://n1:4443", "tls://n2:4443");
        assertThat(c.isTls()).isTrue();
        assertThat(c.isTlsHostnameVerification()).isFalse();
    }

    @Test
    @DisplayName("errors name the setting and what is accepted, never a password")
    void errors() {
        assertThatThrownBy(() -> config("nats://app:hunter2@n1?storage=disk"))
                .hasMessageContaining("parameter 'storage' is 'disk'; expected file or memory")
                .message()
                .doesNotContain("hunter2");
        assertThatThrownBy(() -> config("nats://app:hunter2@n1?ackwait=5s"))
                .hasMessageContaining("unknown parameter(s) [ackwait]")
                .message()
                .doesNotContain("hunter2");
        assertThatThrownBy(() -> config("nats://n1?password=hunter2"))
                .hasMessageContaining("without a user")
                .message()
                .doesNotContain("hunter2");
        assertThatThrownBy(() -> config("nats://n1?streamMaxMessages=lots")).hasMessageContaining("streamMaxMessages");
        assertThatThrownBy(() -> config("nats://?ackWait=5s")).hasMessageContaining("names no server");
    }
}
