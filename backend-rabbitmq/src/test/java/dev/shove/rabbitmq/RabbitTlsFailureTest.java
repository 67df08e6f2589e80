package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.AuthenticationException;
import dev.shove.BrokerUnavailableException;
import dev.shove.ShoveException;
import java.io.IOException;
import java.net.ConnectException;
import java.security.cert.CertificateException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How a connection that fails in its TLS handshake is worded ({@link RabbitMqTransport#tlsFailure}); RabbitMqTlsIT
 * proves the same against a real broker. These are the cases it cannot reach: failures that are not TLS at all.
 */
class RabbitTlsFailureTest {
    private static final RabbitMqConfig CONFIG = RabbitMqConfig.of("amqps://app:s3cret@rabbit.internal:5671/orders");

    @Test
    @DisplayName("a refused or timed-out connection is not a TLS failure: the caller keeps its 'is it running?' hint")
    void notTls() {
        assertThat(RabbitMqTransport.tlsFailure(CONFIG, new IOException(new ConnectException("Connection refused"))))
                .isNull();
        assertThat(RabbitMqTransport.tlsFailure(CONFIG, new TimeoutException("handshake timed out")))
                .isNull();
    }

    @Test
    @DisplayName("a certificate for another host is an AuthenticationException (not retriable) naming the host, the way"
            + " out, the masked URI and never the password")
    void otherHost() {
        SSLHandshakeException handshake = new SSLHandshakeException("(certificate_unknown) No name matching");
        handshake.initCause(new CertificateException("No name matching rabbit.internal found"));

        ShoveException failure = RabbitMqTransport.tlsFailure(CONFIG, handshake);

        assertThat(failure).isInstanceOf(AuthenticationException.class).hasCause(handshake);
        assertThat(failure.isRetriable()).isFalse();
        assertThat(failure.getMessage())
                .contains("amqps://app:****@rabbit.internal:5671/orders")
                .contains("does not name host 'rabbit.internal'")
                .contains("noTlsHostnameVerification()")
                .doesNotContain("s3cret");
    }

    @Test
    @DisplayName("a handshake that fails for another reason than trust or host name stays a retriable"
            + " BrokerUnavailableException asking whether the port takes TLS")
    void otherHandshakeFailure() {
        SSLHandshakeException handshake = new SSLHandshakeException("Remote host terminated the handshake");

        ShoveException failure = RabbitMqTransport.tlsFailure(CONFIG, handshake);

        assertThat(failure).isInstanceOf(BrokerUnavailableException.class);
        assertThat(failure.isRetriable()).isTrue();
        assertThat(failure.getMessage()).contains("Does port 5671 take TLS").doesNotContain("s3cret");
    }
}
