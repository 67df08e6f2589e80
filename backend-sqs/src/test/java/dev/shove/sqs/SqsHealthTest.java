package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ConnectionHealth;
import dev.shove.spi.TransportContext;
import dev.shove.spi.WireHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

class SqsHealthTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final TransportContext context =
            new TransportContext(registry, "test", new WireHeaders(new SimpleMeterRegistry()));
    private final SqsHealth health = new SqsHealth(context, "http://127.0.0.1:4566");

    private static SdkClientException refused() {
        return SdkClientException.create("Unable to execute HTTP request", new ConnectException("Connection refused"));
    }

    @Test
    @DisplayName("a call without an answer marks the connection lost once, with the service, endpoint and cause")
    void lost() {
        health.unreachable(AwsClients.SQS, refused());
        health.unreachable(AwsClients.SQS, refused());

        ConnectionHealth c = context.connection();
        assertThat(c.connected()).isFalse();
        assertThat(c.detail())
                .startsWith("SQS at http://127.0.0.1:4566 cannot be reached: ")
                .contains("Unable to execute HTTP request");
        assertThat(registry.counter("shove.backend.errors", "backend", "sqs", "kind", "connection")
                        .count())
                .isEqualTo(1);
    }

    @Test
    @DisplayName("only an answer to a call begun after the loss restores the connection")
    void restoredByALaterCall() {
        long before = System.nanoTime();
        health.unreachable(AwsClients.SQS, refused());

        health.answered(AwsClients.SQS, before);
        assertThat(context.connection().connected()).isFalse();

        health.answered(AwsClients.SQS, System.nanoTime());
        assertThat(context.connection().connected()).isTrue();
    }

    @Test
    @DisplayName("with SQS and SNS both unreachable, the connection is up only once both answered again")
    void bothServices() {
        health.unreachable(AwsClients.SQS, refused());
        health.unreachable(AwsClients.SNS, refused());

        health.answered(AwsClients.SQS, System.nanoTime());
        assertThat(context.connection().connected()).isFalse();

        health.answered(AwsClients.SNS, System.nanoTime());
        assertThat(context.connection().connected()).isTrue();
    }

    @Test
    @DisplayName("a connection error or a timeout is no answer; a refusal, an interrupt or a full pool is")
    void connectionFailures() {
        assertThat(AwsClients.isConnectionFailure(refused())).isTrue();
        assertThat(AwsClients.isConnectionFailure(
                        SdkClientException.create("reset", new UncheckedIOException(new IOException("reset")))))
                .isTrue();
        assertThat(AwsClients.isConnectionFailure(ApiCallTimeoutException.create(1000)))
                .isTrue();
        assertThat(AwsClients.isConnectionFailure(QueueDoesNotExistException.builder()
                        .message("no queue")
                        .statusCode(400)
                        .build()))
                .isFalse();
        assertThat(AwsClients.isConnectionFailure(AbortedException.create("interrupted")))
                .isFalse();
        assertThat(AwsClients.isConnectionFailure(SdkClientException.create("Unable to load credentials")))
                .isFalse();
    }
}
