package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.AuthenticationException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How a refused TLS handshake or SASL login is reported ({@link KafkaTopology#refused}); KafkaSecurityIT shows it live. */
class KafkaRefusalTest {
    private static final KafkaConfig SCRAM = KafkaConfig.builder("k1:9093")
            .ssl(KafkaSsl.ofTruststore(Path.of("/etc/trust.p12"), "trust-s3cret"))
            .sasl(KafkaSasl.scramSha512("svc-orders", "sasl-s3cret"))
            .build();

    @Test
    @DisplayName("a refused SASL login, however deep in the causes, is an AuthenticationException (not retriable)"
            + " naming the broker, the user and the mechanism, never a password")
    void saslRefusal() {
        var refusal = new SaslAuthenticationException("Authentication failed during authentication due to invalid"
                + " credentials with SASL mechanism SCRAM-SHA-512");
        ExecutionException failure = new ExecutionException(refusal);
        AuthenticationException e = KafkaTopology.refused(SCRAM, failure);

        assertThat(e).isNotNull().cause().isSameAs(failure);
        assertThat(e.isRetriable()).isFalse();
        assertThat(e.getMessage())
                .contains("Kafka at k1:9093 refused user 'svc-orders' (SCRAM-SHA-512)")
                .contains("invalid credentials")
                .contains("check the user name and password")
                .doesNotContain("sasl-s3cret")
                .doesNotContain("trust-s3cret");
    }

    @Test
    @DisplayName("a failed TLS handshake is an AuthenticationException (not retriable) giving the root cause and the"
            + " trust store to check")
    void tlsRefusal() {
        var handshake = new SSLHandshakeException("PKIX path building failed: unable to find valid certification path");
        var refusal = new SslAuthenticationException("SSL handshake failed", handshake);
        AuthenticationException e = KafkaTopology.refused(SCRAM, refusal);

        assertThat(e).isNotNull();
        assertThat(e.isRetriable()).isFalse();
        assertThat(e.getMessage())
                .startsWith("the TLS handshake with Kafka at k1:9093 failed: SSL handshake failed (PKIX path building")
                .contains("trust store")
                .doesNotContain("trust-s3cret");
    }

    @Test
    @DisplayName("a client message that repeats a secret of the config has it redacted")
    void secretsInClientMessagesAreRedacted() {
        var refusal = new SaslAuthenticationException("login with sasl-s3cret failed; trust store trust-s3cret");
        AuthenticationException e = KafkaTopology.refused(SCRAM, refusal);

        assertThat(e).isNotNull();
        assertThat(e.getMessage())
                .contains("login with [redacted] failed; trust store [redacted]")
                .doesNotContain("s3cret");
    }

    @Test
    @DisplayName("a broker that does not answer is no refusal: it stays the retriable 'unavailable' case")
    void timeoutIsNoRefusal() {
        assertThat(KafkaTopology.refused(SCRAM, new ExecutionException(new TimeoutException("Timed out"))))
                .isNull();
    }
}
