package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.AuthenticationException;
import dev.shove.Broker;
import dev.shove.BrokerConfig;
import dev.shove.BrokerUnavailableException;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.conformance.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * RabbitMQ over TLS: a {@link RabbitNode} of this class's own whose only AMQP listener is TLS ({@code
 * listeners.ssl.default}, no plain listener), with the management API over HTTPS too, and one user with a password
 * (no {@code guest}). The server certificate (for {@code localhost} only) and the client's trust store are made by
 * openssl and keytool when the class starts. About 20 s on a quiet machine (the node boots in 5-7 s, the tests take
 * 14 s, most of it the consume test waiting for the management API's statistics and the recovery test for the client to
 * dial again), up to 50 s on a busy one (boot 25 s).
 */
class RabbitMqTlsIT {
    record Msg(int n) {}

    private static final String USER = "shove-tls";
    private static final String PASSWORD = "tls-it-s3cret-" + UUID.randomUUID();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static RabbitNode node;
    private static SSLContext trusting;

    @BeforeAll
    static void startTlsNode() throws Exception {
        node = new RabbitNode(RabbitMqTlsIT::tlsConfig);
        Path certs = node.dir().resolve("certs");
        Files.createDirectories(certs);
        trusting = TestCertificates.make(certs, "DNS:localhost").trustingContext();
        node.start();
    }

    private static String tlsConfig(RabbitNode.Ports ports) {
        try {
            Path certs = node.dir().resolve("certs");
            String ca = certs.resolve("ca.pem").toString();
            String pem = certs.resolve("server.pem").toString();
            String key = certs.resolve("server-key.pem").toString();
            return """
                    listeners.tcp = none
                    listeners.ssl.default = 127.0.0.1:%1$d
                    ssl_options.cacertfile = %7$s
                    ssl_options.certfile = %3$s
                    ssl_options.keyfile = %4$s
                    ssl_options.verify = verify_none
                    ssl_options.fail_if_no_peer_cert = false
                    management.ssl.ip = 127.0.0.1
                    management.ssl.port = %2$d
                    management.ssl.cacertfile = %7$s
                    management.ssl.certfile = %3$s
                    management.ssl.keyfile = %4$s
                    default_user = %5$s
                    default_pass = %6$s
                    default_user_tags.administrator = true
                    loopback_users = none
                    collect_statistics_interval = 500
                    """.formatted(ports.amqp(), ports.management(), pem, key, USER, PASSWORD, ca);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stopTlsNode() throws IOException {
        if (node != null) {
            node.close();
        }
    }

    private static RabbitMqConfig.Builder config(String host) {
        return RabbitMqConfig.builder("amqps://" + host + ":" + node.ports().amqp())
                .credentials(USER, PASSWORD)
                .tls(trusting)
                .managementApi("https://" + host + ":" + node.ports().management())
                .connectTimeout(Duration.ofSeconds(5))
                .recoveryInterval(Duration.ofMillis(500));
    }

    @Test
    @DisplayName("over TLS with a user and password, the backend declares, publishes, retries through a hold queue,"
            + " consumes and reads depth from the HTTPS management API; the broker sees an ssl connection")
    void publishesAndConsumesOverTls() throws Exception {
        String name = "it-tls-" + UUID.randomUUID().toString().substring(0, 8);
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        try (Broker<RabbitMq> broker =
                Broker.connect(config("localhost").connectionName(name).build())) {
            broker.topology().declare(topic);
            broker.publisher().publishBatch(topic, List.of(new Msg(0), new Msg(1), new Msg(2)));
            RabbitMqTransport transport = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            assertThat(transport.stats(topic).ready()).isEqualTo(3);

            JsonNode connection =
                    await().atMost(Duration.ofSeconds(10)).until(() -> connectionNamed(name), c -> c != null);
            assertThat(connection.path("ssl").asBoolean())
                    .as("TLS, seen by the broker")
                    .isTrue();
            assertThat(connection.path("user").asText()).isEqualTo(USER);

            CountDownLatch release = new CountDownLatch(1);
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                if (meta.retryCount() == 0 && m.n() == 0) {
                    return Outcome.retry();
                }
                if (m.n() == 2) {
                    release.await(30, TimeUnit.SECONDS); // in flight until the management API has counted it
                }
                seen.add(m.n());
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(20))
                    .alias("an unacknowledged message, counted by the HTTPS management API")
                    .until(() -> transport.stats(topic).inFlight() >= 1);
            release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 3);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
    }

    @Test
    @DisplayName("a connection the broker closes shows as down in connection health, then comes back over TLS by"
            + " itself")
    void recoversOverTls() throws Exception {
        String name = "it-tls-recover-" + UUID.randomUUID().toString().substring(0, 8);
        try (Broker<RabbitMq> broker =
                Broker.connect(config("localhost").connectionName(name).build())) {
            assertThat(broker.connection().connected()).isTrue();
            JsonNode connection =
                    await().atMost(Duration.ofSeconds(10)).until(() -> connectionNamed(name), c -> c != null);
            managementDelete("/api/connections/"
                    + URLEncoder.encode(connection.path("name").asText(), StandardCharsets.UTF_8)
                            .replace("+", "%20"));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !broker.connection().connected());
            assertThat(broker.connection().detail()).contains("lost");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> broker.connection().connected());
            broker.ping(Duration.ofSeconds(5));
        }
    }

    @Test
    @DisplayName("the server's certificate must name the host connected to: 127.0.0.1 is refused at once with an"
            + " AuthenticationException (not retriable) that says so, unless hostname verification is switched off")
    void hostnameIsVerified() {
        RabbitMqConfig byAddress = config("127.0.0.1").noManagementApi().build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Broker.connect(byAddress).close())
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e ->
                        assertThat(((AuthenticationException) e).isRetriable()).isFalse())
                .hasMessageContaining("127.0.0.1:" + node.ports().amqp())
                .hasMessageContaining("certificate")
                .hasMessageContaining("127.0.0.1")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        try (Broker<RabbitMq> broker = Broker.connect(config("127.0.0.1")
                .noTlsHostnameVerification()
                .noManagementApi()
                .build())) {
            broker.ping(Duration.ofSeconds(5));
        }
    }

    @Test
    @DisplayName(
            "a wrong password is refused at once with an AuthenticationException (not retriable) naming the broker,"
                    + " the user and what to check, never a password")
    void wrongPasswordRefused() {
        String wrongPassword = "not-the-password-" + UUID.randomUUID();
        RabbitMqConfig wrong = config("localhost")
                .credentials(USER, wrongPassword)
                .publishAttempts(5)
                .build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Broker.connect(wrong).close())
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e ->
                        assertThat(((AuthenticationException) e).isRetriable()).isFalse())
                .hasMessageContaining(
                        "amqps://" + USER + ":****@localhost:" + node.ports().amqp())
                .hasMessageContaining("refused user '" + USER + "'")
                .hasMessageContaining("password")
                .satisfies(e ->
                        assertThat(e.getMessage()).doesNotContain(wrongPassword).doesNotContain(PASSWORD));
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("no retries, no waiting for a timeout")
                .isLessThan(Duration.ofSeconds(5));
        assertThat(wrong.toString()).doesNotContain(wrongPassword);
    }

    @Test
    @DisplayName("an amqps:// URI with trustStore and trustStorePassword trusts the private authority: publishes and"
            + " consumes over TLS; the config shows neither password")
    void uriWithTrustStore() throws Exception {
        String name = "it-tls-uri-" + UUID.randomUUID().toString().substring(0, 8);
        Topic<Msg> topic = Topic.builder(name, Msg.class).build();
        Path trustStore = node.dir().resolve("certs").resolve("trust.p12");
        String uri = "amqps://" + USER + ":" + URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8) + "@localhost:"
                + node.ports().amqp() + "?managementApi=false&trustStore="
                + URLEncoder.encode(trustStore.toString(), StandardCharsets.UTF_8) + "&trustStorePassword="
                + URLEncoder.encode(TestCertificates.STORE_PASSWORD, StandardCharsets.UTF_8);
        BrokerConfig<?> config = BrokerConfig.fromUri(uri);
        assertThat(config.toString()).doesNotContain(PASSWORD).doesNotContain(TestCertificates.STORE_PASSWORD);
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        try (Broker<?> broker = Broker.connect(config)) {
            broker.topology().declare(topic);
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                seen.add(m.n());
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, new Msg(7));
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.contains(7));
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
    }

    @Test
    @DisplayName("an amqps:// URI without trustStore trusts the JVM's CAs only: this broker's certificate, from a"
            + " private authority, is refused at once"
            + " with an AuthenticationException (not retriable) that says the certificate is not trusted and how to"
            + " trust it, never the password")
    void untrustedCertificateRefused() {
        String uri = "amqps://" + USER + ":" + URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8) + "@localhost:"
                + node.ports().amqp() + "?managementApi=false&connectTimeout=5s";
        long start = System.nanoTime();
        assertThatThrownBy(() -> Broker.connect(BrokerConfig.fromUri(uri)).close())
                .isInstanceOf(AuthenticationException.class)
                .satisfies(e ->
                        assertThat(((AuthenticationException) e).isRetriable()).isFalse())
                .hasMessageContaining(
                        "amqps://" + USER + ":****@localhost:" + node.ports().amqp())
                .hasMessageContaining("not trusted")
                .hasMessageContaining("tls(SSLContext)")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    @DisplayName("amqps:// to a plain AMQP port fails at once with a BrokerUnavailableException that says the port may"
            + " not take TLS")
    void tlsToPlainPortRefused() {
        URI shared = URI.create(RabbitAdmin.uri());
        int plainPort = shared.getPort() > 0 ? shared.getPort() : RabbitMqConfig.DEFAULT_PORT;
        BrokerAvailability.require("RabbitMQ", "rabbitmq", shared.getHost(), plainPort);
        RabbitMqConfig tlsToPlain = RabbitMqConfig.builder("amqps://" + shared.getHost() + ":" + plainPort)
                .credentials(USER, PASSWORD)
                .tls(trusting)
                .noTlsHostnameVerification()
                .noManagementApi()
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Broker.connect(tlsToPlain).close())
                .isInstanceOf(BrokerUnavailableException.class)
                .hasMessageContaining("TLS handshake")
                .hasMessageContaining("Does port " + plainPort + " take TLS")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(PASSWORD));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    /** The management API's view of the connection with this client-provided name, or null. */
    private static @Nullable JsonNode connectionNamed(String name) throws IOException, InterruptedException {
        for (JsonNode c : management("/api/connections")) {
            if (name.equals(c.path("client_properties").path("connection_name").asText())) {
                return c;
            }
        }
        return null;
    }

    private static JsonNode management(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http().send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    private static void managementDelete(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http().send(
                        request(path)
                                .header("X-Reason", "closed by RabbitMqTlsIT")
                                .DELETE()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IOException("DELETE " + path + ": HTTP " + r.statusCode() + " " + r.body());
        }
    }

    private static HttpClient http() {
        return HttpClient.newBuilder()
                .sslContext(trusting)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private static HttpRequest.Builder request(String path) {
        String auth = Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        return HttpRequest.newBuilder(
                        URI.create("https://localhost:" + node.ports().management() + path))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + auth);
    }
}
