package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.AuthenticationException;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.conformance.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A Redis of the test's own with a TLS port only ({@value #TLS_PORT} or one of the next four) and an ACL user, its certificates made at test
 * time with {@code openssl} (a CA, and a server certificate for 127.0.0.1 signed by it): shove connects with {@code
 * rediss://}, the user's credentials and the CA as its trust, then publishes, retries and consumes over it.
 */
class RedisTlsAclIT {
    private static final int TLS_PORT = 56381;
    private static final String USER = "orders-svc";
    private static final String PASSWORD = "s3cret-Pa55";

    private static Path certs;
    private static RedisServerProcess server;

    record Msg(int n) {}

    @BeforeAll
    static void start() throws Exception {
        certs = Files.createTempDirectory("shove-redis-tls-");
        TestCertificates.make(certs, "IP:127.0.0.1", "DNS:localhost");
        Files.writeString(
                certs.resolve("users.acl"), "user default off\nuser " + USER + " on >" + PASSWORD + " ~* &* +@all\n");
        server = RedisServerProcess.startOnFreePort(TLS_PORT, 5, true, port -> new String[] {
            "--tls-port",
            Integer.toString(port),
            "--tls-cert-file",
            certs.resolve("server.pem").toString(),
            "--tls-key-file",
            certs.resolve("server-key.pem").toString(),
            "--tls-ca-cert-file",
            certs.resolve("ca.pem").toString(),
            "--tls-auth-clients",
            "no",
            "--aclfile",
            certs.resolve("users.acl").toString()
        });
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (certs != null) {
            try (var files = Files.walk(certs)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }

    private static RedisConfig.Builder tls() {
        return RedisConfig.builder("rediss://127.0.0.1:" + server.port())
                .tlsTrustedCertificates(certs.resolve("ca.pem"));
    }

    @Test
    @DisplayName("over TLS with an ACL user, shove publishes, retries through a hold tier and consumes")
    void publishAndConsumeOverTls() {
        Topic<Msg> topic = Topic.builder(RedisTestSupport.unique("tls"), Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (Broker<Redis> broker =
                Broker.connect(tls().credentials(USER, PASSWORD).build())) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                seen.add(m.n() + "@" + meta.retryCount());
                return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
            });
            group.start();
            for (int i = 0; i < 5; i++) {
                broker.publisher().publish(topic, new Msg(i));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 10);
            assertThat(seen).contains("0@0", "0@1", "4@0", "4@1");
            assertThat(group.stop(Duration.ofSeconds(10)).exitCode()).isZero();
        }
    }

    @Test
    @DisplayName("a wrong password fails the connection with an AuthenticationException (not retriable) naming the"
            + " server and the user, and no message shows the password")
    void wrongPasswordRefused() {
        String wrong = "not-the-" + PASSWORD;
        assertThatThrownBy(() -> Broker.connect(tls().credentials(USER, wrong).build()))
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e ->
                        assertThat(((AuthenticationException) e).isRetriable()).isFalse())
                .hasMessageContaining("rediss://" + USER + ":****@127.0.0.1:" + server.port())
                .hasMessageContaining("refused user '" + USER + "'")
                .satisfies(e -> assertThat(e.toString()).doesNotContain(wrong).doesNotContain(PASSWORD));
    }

    @Test
    @DisplayName("no credentials where the default user is off fails the connection with an AuthenticationException")
    void missingCredentialsRefused() {
        assertThatThrownBy(() -> Broker.connect(tls().build()))
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e ->
                        assertThat(((AuthenticationException) e).isRetriable()).isFalse())
                .hasMessageContaining("check the user name and password");
    }

    @Test
    @DisplayName("a server certificate the client does not trust fails the connection with an AuthenticationException"
            + " (not retriable) that names the trusted certificates to check")
    void untrustedCertificateRefused() {
        assertThatThrownBy(() -> Broker.connect(RedisConfig.builder("rediss://127.0.0.1:" + server.port())
                        .credentials(USER, PASSWORD)
                        .connectTimeout(Duration.ofSeconds(5))
                        .build()))
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e ->
                        assertThat(((AuthenticationException) e).isRetriable()).isFalse())
                .hasMessageContaining("TLS handshake")
                .hasMessageContaining("tlsTrustedCertificates")
                .satisfies(e -> assertThat(e.toString()).doesNotContain(PASSWORD));
    }
}
