package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.shove.AuthenticationException;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.ShoveException;
import dev.shove.Topic;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * shove over TLS and SASL_SSL/SCRAM-SHA-512 on a real broker of this class's own ({@link KafkaOwnBroker}, ports
 * 19190-19192, certificates made when the class starts): publishing and consuming over each listener, configured by
 * the builder and by a {@code kafka://} URI, and the failures a wrong password, an untrusted certificate and revoked
 * credentials give: at once, not retriable, saying what to check, and without a secret.
 */
class KafkaSecurityIT {
    record Msg(int n) {}

    /**
     * The API timeout of the configs that are refused: a failure that waited for it, or retried until it ran out,
     * would take this long.
     */
    private static final Duration API_TIMEOUT = Duration.ofSeconds(120);

    /**
     * A quarter of {@link #API_TIMEOUT}: the client learns of a refused handshake or login in one round trip (about a
     * second here), but a machine this busy can take seconds to set up the clients.
     */
    private static final Duration FAST = API_TIMEOUT.dividedBy(4);

    private static KafkaOwnBroker kafka;

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = KafkaOwnBroker.secure();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    private static KafkaConfig.Builder sslConfig() {
        return KafkaConfig.builder(kafka.sslBootstrap()).partitions(2).sessionTimeout(Duration.ofSeconds(6));
    }

    private static KafkaConfig.Builder scramConfig(String user, String password) {
        return KafkaConfig.builder(kafka.saslSslBootstrap())
                .partitions(2)
                .sessionTimeout(Duration.ofSeconds(6))
                .ssl(kafka.ssl())
                .sasl(KafkaSasl.scramSha512(user, password));
    }

    @Test
    @DisplayName("over TLS (the broker's certificate checked against the trust store), a topic is declared, published"
            + " to and consumed, a retry going through its hold topic")
    void publishesAndConsumesOverTls() {
        roundTrip(sslConfig().ssl(kafka.ssl()).build(), "tls");
    }

    @Test
    @DisplayName("over SASL_SSL with SCRAM-SHA-512, a topic is declared, published to and consumed, a retry going"
            + " through its hold topic")
    void publishesAndConsumesOverSaslSsl() {
        roundTrip(scramConfig(KafkaOwnBroker.USER, KafkaOwnBroker.PASSWORD).build(), "scram");
    }

    @Test
    @DisplayName("a kafka:// URI with a trust store and SCRAM-SHA-512 credentials connects over SASL_SSL, publishes"
            + " and consumes, and its config never shows the passwords")
    void uriConfiguresSaslSsl() {
        String uri = "kafka://" + kafka.saslSslBootstrap() + "?partitions=2&sessionTimeout=6s"
                + "&ssl.truststore=" + encode(kafka.trustStore().toString())
                + "&ssl.truststorePassword=" + encode(KafkaOwnBroker.STORE_PASSWORD)
                + "&sasl.mechanism=SCRAM-SHA-512&sasl.username=" + encode(KafkaOwnBroker.USER)
                + "&sasl.password=" + encode(KafkaOwnBroker.PASSWORD);
        KafkaConfig config = (KafkaConfig) dev.shove.BrokerConfig.fromUri(uri);
        assertThat(config.toString())
                .doesNotContain(KafkaOwnBroker.PASSWORD)
                .doesNotContain(KafkaOwnBroker.STORE_PASSWORD);
        roundTrip(config, "uri");
    }

    @Test
    @DisplayName("a wrong SCRAM password fails the connection at once with an AuthenticationException (not retriable)"
            + " naming the broker, the user and what to check, and showing no password")
    void wrongPasswordFailsFast() {
        String wrong = "not-the-s3cret";
        KafkaConfig config =
                scramConfig(KafkaOwnBroker.USER, wrong).apiTimeout(API_TIMEOUT).build();
        long start = System.nanoTime();
        Throwable failure = catchThrowable(() -> Broker.connect(config).close());
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).isLessThan(FAST);
        assertThat(failure).isInstanceOf(AuthenticationException.class);
        assertThat(((AuthenticationException) failure).isRetriable()).isFalse();
        assertThat(failure.getMessage())
                .contains(kafka.saslSslBootstrap())
                .contains("'" + KafkaOwnBroker.USER + "'")
                .contains("SCRAM-SHA-512")
                .contains("password");
        assertNoSecret(failure, wrong);
        assertThat(config.toString()).doesNotContain(wrong).doesNotContain(KafkaOwnBroker.STORE_PASSWORD);

        String uri = "kafka://" + kafka.saslSslBootstrap() + "?ssl.truststore="
                + encode(kafka.trustStore().toString()) + "&ssl.truststorePassword="
                + encode(KafkaOwnBroker.STORE_PASSWORD) + "&sasl.mechanism=SCRAM-SHA-512&sasl.username="
                + encode(KafkaOwnBroker.USER) + "&sasl.password=" + encode(wrong) + "&apiTimeout=120s";
        start = System.nanoTime();
        Throwable byUri = catchThrowable(() -> Broker.connect(uri).close());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);
        assertThat(byUri).isInstanceOf(AuthenticationException.class);
        assertThat(((AuthenticationException) byUri).isRetriable()).isFalse();
        assertNoSecret(byUri, wrong);
    }

    @Test
    @DisplayName("a broker certificate from an authority the trust store does not hold fails the connection at once"
            + " with an AuthenticationException (not retriable) naming the broker and the trust store to fix, and"
            + " showing no password")
    void untrustedCertificateFailsFast() {
        KafkaConfig config = sslConfig()
                .ssl(KafkaSsl.ofTruststore(kafka.foreignTrustStore(), KafkaOwnBroker.STORE_PASSWORD))
                .apiTimeout(API_TIMEOUT)
                .build();
        long start = System.nanoTime();
        Throwable failure = catchThrowable(() -> Broker.connect(config).close());
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).isLessThan(FAST);
        assertThat(failure).isInstanceOf(AuthenticationException.class);
        assertThat(((AuthenticationException) failure).isRetriable()).isFalse();
        assertThat(failure.getMessage())
                .contains(kafka.sslBootstrap())
                .contains("TLS")
                .contains("trust store")
                .contains("unable to find valid certification path");
        assertNoSecret(failure, KafkaOwnBroker.STORE_PASSWORD);
    }

    @Test
    @DisplayName("a trust store whose password is wrong fails the connection at once, not retriable, naming the store"
            + " file and why it did not load, and showing neither password")
    void wrongTrustStorePasswordFailsClearly() {
        String wrong = "not-the-store-s3cret";
        KafkaConfig config = sslConfig()
                .ssl(KafkaSsl.ofTruststore(kafka.trustStore(), wrong))
                .apiTimeout(API_TIMEOUT)
                .build();
        long start = System.nanoTime();
        Throwable failure = catchThrowable(() -> Broker.connect(config).close());

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);
        assertThat(failure).isInstanceOf(ShoveException.class);
        assertThat(((ShoveException) failure).isRetriable()).isFalse();
        assertThat(failure.getMessage())
                .contains(kafka.sslBootstrap())
                .contains(kafka.trustStore().toString())
                .contains("password was incorrect");
        assertNoSecret(failure, wrong);
        assertNoSecret(failure, KafkaOwnBroker.STORE_PASSWORD);
    }

    @Test
    @DisplayName("credentials revoked on the broker while connected show in broker.connection(): down, saying the"
            + " broker refused the user, without the password")
    void revokedCredentialsShowInHealth() throws Exception {
        String user = "shove-it-revoked";
        String password = "revoked-it-s3cret";
        try (Admin admin = sslAdmin()) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            try (Broker<Kafka> broker =
                    Broker.connect(scramConfig(user, password).build())) {
                assertThat(broker.connection().connected()).isTrue();
                admin.alterUserScramCredentials(
                                List.of(new UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_512)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                // the broker ends the session after KafkaOwnBroker.REAUTH; the connection watch pings every 5 s
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !broker.connection().connected());
                assertThat(broker.connection().detail())
                        .contains(kafka.saslSslBootstrap())
                        .contains("'" + user + "'")
                        .doesNotContain(password);
            }
        }
    }

    /** Declares a topic with a hold tier, publishes three messages, retries one once, and awaits all three acked. */
    private static void roundTrip(KafkaConfig config, String prefix) {
        Topic<Msg> topic = Topic.builder(prefix + "-orders", Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        Set<Integer> acked = ConcurrentHashMap.newKeySet();
        Set<Integer> retried = ConcurrentHashMap.newKeySet();
        try (Broker<Kafka> broker = Broker.connect(config)) {
            broker.topology().declare(topic);
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                if (m.n() == 0 && meta.retryCount() == 0) {
                    return Outcome.retry();
                }
                if (meta.retryCount() > 0) {
                    retried.add(m.n());
                }
                acked.add(m.n());
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publishBatch(topic, List.of(new Msg(0), new Msg(1), new Msg(2)));
            await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() == 3);
            assertThat(retried).containsExactly(0);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
    }

    /** An admin client over the TLS listener (no SASL): the broker has no authorizer, so it may manage users. */
    private static Admin sslAdmin() {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.sslBootstrap());
        p.putAll(sslConfig().ssl(kafka.ssl()).build().commonProperties());
        return Admin.create(p);
    }

    /** Neither the message nor a cause's message nor the stack trace's text shows {@code secret}. */
    private static void assertNoSecret(Throwable failure, String secret) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).doesNotContain(secret);
            assertThat(t.toString()).doesNotContain(secret);
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
