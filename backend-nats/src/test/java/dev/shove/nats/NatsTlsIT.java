package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.AuthenticationException;
import dev.shove.Broker;
import dev.shove.BrokerUnavailableException;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.conformance.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A second nats-server of this test's own ({@link NatsTestSupport.OwnServer}, on a port of its choosing) with a TLS
 * listener and a user with a password; its certificate (for {@code localhost} only) and the client's trust store are
 * made by openssl and keytool when the test starts.
 */
class NatsTlsIT {
    record Msg(int n) {}

    private static final String USER = "shove";
    private static final String PASSWORD = "tls-it-s3cret";
    private static final String STORE_PASSWORD = TestCertificates.STORE_PASSWORD;

    private static NatsTestSupport.OwnServer server;
    private static Path trustStore;

    @BeforeAll
    static void startTlsServer() throws Exception {
        Path certs = Files.createTempDirectory("shove-nats-tls-");
        TestCertificates made = TestCertificates.make(certs, "DNS:localhost");
        Path key = made.serverKey();
        Path cert = made.serverCertificate();
        trustStore = made.trustStore();
        Path conf = certs.resolve("server.conf");
        Files.writeString(conf, """
                tls {
                  cert_file: "%s"
                  key_file: "%s"
                }
                authorization {
                  user: "%s"
                  password: "%s"
                }
                """.formatted(cert, key, USER, PASSWORD));
        server = new NatsTestSupport.OwnServer("-c", conf.toString()).start();
    }

    @AfterAll
    static void stopTlsServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static NatsConfig.Builder config(String host) {
        return NatsConfig.builder("tls://" + host + ":" + server.port())
                .credentials(USER, PASSWORD)
                .trustStore(trustStore, STORE_PASSWORD)
                .connectTimeout(Duration.ofSeconds(5));
    }

    @Test
    @DisplayName("over TLS with a user and password, the backend declares, publishes and consumes")
    void publishesAndConsumesOverTls() {
        Topic<Msg> topic = Topic.builder("tls-orders", Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        try (Broker<Nats> broker = Broker.connect(config("localhost").build())) {
            broker.topology().declare(topic);
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                if (meta.retryCount() == 0 && m.n() == 0) {
                    return Outcome.retry();
                }
                seen.add(m.n());
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publishBatch(topic, List.of(new Msg(0), new Msg(1), new Msg(2)));
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 3);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
    }

    @Test
    @DisplayName("the server's certificate must name the host connected to: 127.0.0.1 is refused, unless hostname"
            + " verification is switched off")
    void hostnameIsVerified() {
        assertThatThrownBy(() -> Broker.connect(config("127.0.0.1").build()).close())
                .isInstanceOf(BrokerUnavailableException.class);
        try (Broker<Nats> broker =
                Broker.connect(config("127.0.0.1").noTlsHostnameVerification().build())) {
            broker.ping(Duration.ofSeconds(5));
        }
    }

    @Test
    @DisplayName("a wrong password is refused with an AuthenticationException (not retriable) naming the user, never a"
            + " password")
    void wrongPasswordRefused() {
        NatsConfig wrong =
                config("localhost").credentials(USER, "not-the-password").build();
        assertThatThrownBy(() -> Broker.connect(wrong).close())
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e ->
                        assertThat(((AuthenticationException) e).isRetriable()).isFalse())
                .hasMessageContaining(USER)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-the-password"));
        assertThat(wrong.toString()).doesNotContain("not-the-password").doesNotContain(STORE_PASSWORD);
    }
}
