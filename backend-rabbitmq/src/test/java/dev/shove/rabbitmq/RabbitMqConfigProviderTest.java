package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.BrokerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
