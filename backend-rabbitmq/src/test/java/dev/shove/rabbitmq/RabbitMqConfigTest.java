package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RabbitMqConfigTest {

    @Test
    @DisplayName("an amqp URI gives host, port, credentials and vhost, percent-decoded")
    void parsesUri() {
        RabbitMqConfig config = RabbitMqConfig.of("amqp://app%40corp:p%3Ass%2Fw@rabbit.internal:5673/orders%2Feu");
        assertThat(config.host()).isEqualTo("rabbit.internal");
        assertThat(config.port()).isEqualTo(5673);
        assertThat(config.username()).isEqualTo("app@corp");
        assertThat(config.password()).isEqualTo("p:ss/w");
        assertThat(config.virtualHost()).isEqualTo("orders/eu");
        assertThat(config.isTls()).isFalse();
    }

    @Test
    @DisplayName("defaults: port 5672, user guest, vhost '/', management API on port 15672 of the same host")
    void defaults() {
        RabbitMqConfig config = RabbitMqConfig.of("amqp://localhost");
        assertThat(config.port()).isEqualTo(5672);
        assertThat(config.username()).isEqualTo("guest");
        assertThat(config.password()).isEqualTo("guest");
        assertThat(config.virtualHost()).isEqualTo("/");
        assertThat(config.managementApi()).contains(URI.create("http://localhost:15672"));
        assertThat(config.publishChannels()).isEqualTo(RabbitMqConfig.DEFAULT_PUBLISH_CHANNELS);
        assertThat(config.isTransactionalSettlement()).isFalse();
        assertThat(RabbitMqConfig.of("amqp://localhost/").virtualHost()).isEqualTo("/");
        assertThat(RabbitMqConfig.of("amqp://localhost/%2F").virtualHost()).isEqualTo("/");
    }

    @Test
    @DisplayName("amqps means TLS on port 5671 and an https management API on 15671")
    void amqps() {
        RabbitMqConfig config = RabbitMqConfig.of("amqps://u:p@broker.example.com");
        assertThat(config.isTls()).isTrue();
        assertThat(config.port()).isEqualTo(5671);
        assertThat(config.isTlsHostnameVerification()).isTrue();
        assertThat(config.managementApi()).contains(URI.create("https://broker.example.com:15671"));
    }

    @Test
    @DisplayName("withTls turns TLS on with the given context")
    void customTls() throws Exception {
        SSLContext context = SSLContext.getDefault();
        RabbitMqConfig config =
                RabbitMqConfig.builder("amqp://localhost").tls(context).build();
        assertThat(config.isTls()).isTrue();
        assertThat(config.sslContext()).containsSame(context);
    }

    @Test
    @DisplayName("toString and error messages never show the password")
    void redactsPassword() {
        RabbitMqConfig config = RabbitMqConfig.of("amqp://app:hunter2@localhost:5672/prod").toBuilder()
                .managementCredentials("admin", "s3cret")
                .build();
        assertThat(config.toString())
                .doesNotContain("hunter2")
                .doesNotContain("s3cret")
                .contains("app:****@");
        assertThat(config.redactedUri()).isEqualTo("amqp://app:****@localhost:5672/prod");
        assertThatThrownBy(() -> RabbitMqConfig.of("http://app:hunter2@localhost"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("amqp://")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> RabbitMqConfig.of("amqp://app:hunter2@localhost/a/b"))
                .hasMessageNotContaining("hunter2");
    }

    @Test
    @DisplayName("a URI without host, with query parameters or a multi-segment path is refused with the reason")
    void refusesBadUris() {
        assertThatThrownBy(() -> RabbitMqConfig.of("amqp:///vhost")).hasMessageContaining("no host");
        assertThatThrownBy(() -> RabbitMqConfig.of("amqp://localhost?heartbeat=5"))
                .hasMessageContaining("query parameters");
        assertThatThrownBy(() -> RabbitMqConfig.of("amqp://localhost/a/b")).hasMessageContaining("%2F");
        assertThatThrownBy(() -> RabbitMqConfig.of("amqp://:pw@localhost")).hasMessageContaining("empty user");
    }

    @Test
    @DisplayName("with... methods return copies and validate their argument, naming the setting")
    void withers() {
        RabbitMqConfig base = RabbitMqConfig.ofDefaults();
        RabbitMqConfig changed = base.toBuilder()
                .publishChannels(8)
                .connectionName("orders-service")
                .credentials("svc", "pw")
                .virtualHost("prod")
                .recoveryInterval(Duration.ofMillis(500))
                .transactionalSettlement()
                .quorumQueues()
                .noManagementApi()
                .build();
        assertThat(base.publishChannels()).isEqualTo(4);
        assertThat(base.isQuorumQueues()).isFalse();
        assertThat(base.toString()).contains("queues=classic");
        assertThat(base.connectionName()).isEmpty();
        assertThat(changed.publishChannels()).isEqualTo(8);
        assertThat(changed.connectionName()).contains("orders-service");
        assertThat(changed.username()).isEqualTo("svc");
        assertThat(changed.virtualHost()).isEqualTo("prod");
        assertThat(changed.recoveryInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(changed.isTransactionalSettlement()).isTrue();
        assertThat(changed.isQuorumQueues()).isTrue();
        assertThat(changed.toString()).contains("queues=quorum");
        assertThat(changed.managementApi()).isEmpty();
        assertThatThrownBy(() -> base.toBuilder().publishChannels(0).build()).hasMessageContaining("publishChannels");
        assertThatThrownBy(() -> base.toBuilder().publishAttempts(0).build()).hasMessageContaining("publishAttempts");
        assertThatThrownBy(() -> base.toBuilder().confirmTimeout(Duration.ZERO).build())
                .hasMessageContaining("confirmTimeout");
        assertThatThrownBy(() -> base.toBuilder().managementApi("ftp://x").build())
                .hasMessageContaining("http://");
    }

    @Test
    @DisplayName("the management API's address and credentials can be set apart from the AMQP ones")
    void management() {
        RabbitMqConfig config = RabbitMqConfig.of("amqp://app:pw@localhost").toBuilder()
                .managementApi("http://mgmt.internal:8080/")
                .managementCredentials("monitor", "m")
                .build();
        assertThat(config.managementApi()).contains(URI.create("http://mgmt.internal:8080"));
        assertThat(config.managementUsername()).isEqualTo("monitor");
        assertThat(config.managementPassword()).isEqualTo("m");
        assertThat(RabbitMqConfig.of("amqp://app:pw@localhost").managementUsername())
                .isEqualTo("app");
    }

    @Test
    @DisplayName("user-info in the management API's URI sets its credentials and never shows in toString or errors")
    void managementUserInfo() {
        RabbitMqConfig config = RabbitMqConfig.of("amqp://app:pw@localhost").toBuilder()
                .managementApi("https://mon%40corp:s3cr%3At@mgmt.internal:15671/")
                .build();
        assertThat(config.managementApi()).contains(URI.create("https://mgmt.internal:15671"));
        assertThat(config.managementUsername()).isEqualTo("mon@corp");
        assertThat(config.managementPassword()).isEqualTo("s3cr:t");
        assertThat(config.toString())
                .contains("management=https://mgmt.internal:15671")
                .doesNotContain("s3cr")
                .doesNotContain("mon%40corp");
        assertThatThrownBy(() -> RabbitMqConfig.ofDefaults().toBuilder().managementApi("ftp://mon:s3cret@mgmt"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RabbitMqConfig.ofDefaults().toBuilder().managementApi("http://mon:s3cret@mgmt:x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("s3cret");
    }

    @Test
    @DisplayName("credentials given apart win over the URI's user-info when set later, and the reverse")
    void managementCredentialsLaterWins() {
        RabbitMqConfig config = RabbitMqConfig.ofDefaults().toBuilder()
                .managementApi("http://a:1@mgmt:15672")
                .managementCredentials("b", "2")
                .build();
        assertThat(config.managementUsername()).isEqualTo("b");
        assertThat(config.managementPassword()).isEqualTo("2");
    }

    @Test
    @DisplayName("amqps (or tls(...)) defaults the management API to https on 15671, with the AMQP credentials")
    void tlsManagementDefault() throws Exception {
        RabbitMqConfig viaContext = RabbitMqConfig.builder("amqp://app:pw@broker")
                .tls(SSLContext.getDefault())
                .build();
        assertThat(viaContext.managementApi()).contains(URI.create("https://broker:15671"));
        assertThat(viaContext.managementUsername()).isEqualTo("app");
        assertThat(viaContext.managementPassword()).isEqualTo("pw");
    }

    @Test
    @DisplayName("the AMQP password is never sent to a plain-http management API when AMQP uses TLS")
    void noCleartextFallback() {
        assertThatThrownBy(() -> RabbitMqConfig.builder("amqps://app:hunter2@broker")
                        .managementApi("http://broker:15672")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://broker:15672")
                .hasMessageContaining("managementCredentials")
                .hasMessageNotContaining("hunter2");
        assertThat(RabbitMqConfig.builder("amqps://app:hunter2@broker")
                        .managementApi("http://broker:15672")
                        .managementCredentials("monitor", "m")
                        .build()
                        .managementUsername())
                .isEqualTo("monitor");
    }
}
