package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.BrokerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RabbitMqConfigProviderTest {

    private static RabbitMqConfig config(String uri) {
        return (RabbitMqConfig) BrokerConfig.fromUri(uri);
    }

    @Test
    @DisplayName("the URI without its query is the AMQP URI; the settings go to the builder")
    void settings() {
        RabbitMqConfig c = config("amqp://app:pw@rabbit:5673/orders?connectionName=svc&publishChannels=8"
                + "&recoveryInterval=500ms&managementApi=false&transactionalSettlement=true&quorumQueues=true");
        assertThat(c.host()).isEqualTo("rabbit");
        assertThat(c.port()).isEqualTo(5673);
        assertThat(c.virtualHost()).isEqualTo("orders");
        assertThat(c.connectionName()).contains("svc");
        assertThat(c.publishChannels()).isEqualTo(8);
        assertThat(c.recoveryInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.managementApi()).isEmpty();
        assertThat(c.isTransactionalSettlement()).isTrue();
        assertThat(c.isQuorumQueues()).isTrue();
        assertThat(config("amqp://app:pw@rabbit/orders").isQuorumQueues()).isFalse();
    }

    @Test
    @DisplayName("password_file replaces the URI's password with a file's content")
    void passwordFile(@TempDir Path dir) throws IOException {
        Path secret = Files.writeString(dir.resolve("pw"), "s3cret\n");
        RabbitMqConfig c = config("amqps://app@rabbit/v?password_file=" + secret);
        assertThat(c.username()).isEqualTo("app");
        assertThat(c.password()).isEqualTo("s3cret");
        assertThat(c.isTls()).isTrue();
    }

    @Test
    @DisplayName("an unknown setting is refused, naming it; the message never shows the password")
    void unknown() {
        assertThatThrownBy(() -> config("amqp://app:hunter2@rabbit?publishChanels=8"))
                .hasMessageContaining("unknown parameter(s) [publishChanels]")
                .message()
                .doesNotContain("hunter2");
    }

    @Test
    @DisplayName("trustStore with trustStorePassword makes the TLS context from the file; a wrong password is refused"
            + " naming the file and not the password; a password without a store is refused")
    void trustStore(@TempDir Path dir) throws Exception {
        Path store = dir.resolve("ca.p12");
        KeyStore empty = KeyStore.getInstance("PKCS12");
        empty.load(null, null);
        try (OutputStream out = Files.newOutputStream(store)) {
            empty.store(out, "st0re-pw".toCharArray());
        }

        RabbitMqConfig c = config("amqps://app:pw@rabbit/v?trustStore=" + store + "&trustStorePassword=st0re-pw");
        assertThat(c.isTls()).isTrue();
        assertThat(c.sslContext()).isPresent();
        assertThat(c.toString()).doesNotContain("st0re-pw");

        assertThatThrownBy(() -> config("amqps://app:pw@rabbit/v?trustStore=" + store + "&trustStorePassword=wr0ng"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(store.toString())
                .message()
                .doesNotContain("wr0ng");
        assertThatThrownBy(() -> config("amqps://app:pw@rabbit/v?trustStorePassword=st0re-pw"))
                .hasMessageContaining("trustStorePassword is given without trustStore")
                .message()
                .doesNotContain("st0re-pw");
    }
}
