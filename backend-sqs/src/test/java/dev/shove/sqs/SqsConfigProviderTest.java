package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.BrokerConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

class SqsConfigProviderTest {

    private static SqsConfig config(String uri) {
        return (SqsConfig) BrokerConfig.fromUri(uri);
    }

    private static AwsCredentials credentials(SqsConfig config) {
        return config.credentialsProvider().orElseThrow().resolveCredentials();
    }

    @Test
    @DisplayName("sqs://<region>?endpoint=...: the host is the region, the settings go to the builder by name")
    void settings() {
        SqsConfig c = config("sqs://us-east-1?endpoint=http://127.0.0.1:4566&snsEndpoint=http://127.0.0.1:4567"
                + "&namePrefix=staging-&receiveWait=5s&visibilityTimeout=2m&maxReceiveCount=7&maxConnections=50"
                + "&apiCallTimeout=10s&settleLinger=0ms&broadcastQueueExpiry=1m");
        assertThat(c.region()).contains("us-east-1");
        assertThat(c.endpoint()).contains(URI.create("http://127.0.0.1:4566"));
        assertThat(c.snsEndpoint()).contains(URI.create("http://127.0.0.1:4567"));
        assertThat(c.namePrefix()).isEqualTo("staging-");
        assertThat(c.receiveWait()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.visibilityTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.maxReceiveCount()).isEqualTo(7);
        assertThat(c.maxConnections()).isEqualTo(50);
        assertThat(c.apiCallTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.settleLinger()).isZero();
        assertThat(c.broadcastQueueExpiry()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.usesSns()).isTrue();
        assertThat(c.credentialsProvider()).isEmpty();
    }

    @Test
    @DisplayName("without a region or credentials the SDK's default chains apply; sns=false is noSns()")
    void defaults() {
        SqsConfig c = config("sqs:?sns=false");
        assertThat(c.region()).isEmpty();
        assertThat(c.credentialsProvider()).isEmpty();
        assertThat(c.usesSns()).isFalse();
        assertThat(config("sqs:").toString()).isEqualTo(SqsConfig.ofDefaults().toString());
    }

    @Test
    @DisplayName("accessKeyId with secretAccessKey (or secretAccessKey_file) and sessionToken are static credentials,"
            + " never shown")
    void credentials(@TempDir Path dir) throws IOException {
        Path secret = dir.resolve("secret");
        Files.writeString(secret, "s3cr3t-from-file\n");
        SqsConfig fromFile = config("sqs://eu-west-1?accessKeyId=AKIDEXAMPLE&secretAccessKey_file=" + secret);
        assertThat(credentials(fromFile).accessKeyId()).isEqualTo("AKIDEXAMPLE");
        assertThat(credentials(fromFile).secretAccessKey()).isEqualTo("s3cr3t-from-file");
        assertThat(fromFile.toString()).doesNotContain("s3cr3t");

        SqsConfig session = config("sqs://eu-west-1?accessKeyId=AKID&secretAccessKey=hunter2&sessionToken=t0ken-value");
        assertThat(session.toString()).doesNotContain("hunter2").doesNotContain("t0ken-value");
        assertThat(credentials(session))
                .isInstanceOfSatisfying(
                        AwsSessionCredentials.class,
                        s -> assertThat(s.sessionToken()).isEqualTo("t0ken-value"));
    }

    @Test
    @DisplayName("queueUrl.<name> and topicArn.<topic> give topology created elsewhere")
    void givenTopology() {
        SqsConfig c = config("sqs://eu-west-1?queueUrl.orders=https://sqs.eu-west-1.amazonaws.com/1/prod-orders"
                + "&queueUrl.orders-dlq=https://sqs.eu-west-1.amazonaws.com/1/prod-orders-dlq"
                + "&topicArn.orders=arn:aws:sns:eu-west-1:1:prod-orders");
        assertThat(c.queueUrls())
                .containsEntry("orders", "https://sqs.eu-west-1.amazonaws.com/1/prod-orders")
                .containsEntry("orders-dlq", "https://sqs.eu-west-1.amazonaws.com/1/prod-orders-dlq");
        assertThat(c.topicArns()).containsEntry("orders", "arn:aws:sns:eu-west-1:1:prod-orders");
    }

    @Test
    @DisplayName("errors name the URI and the setting, and never show a secret")
    void errors() {
        assertThatThrownBy(() -> config("sqs://eu-west-1?secretAccessKey=hunter2"))
                .hasMessageContaining("SQS URI 'sqs://eu-west-1'")
                .hasMessageContaining("accessKeyId and secretAccessKey go together")
                .message()
                .doesNotContain("hunter2");
        assertThatThrownBy(() -> config("sqs://eu-west-1?accessKeyId=a&secretAccessKey=hunter2&recieveWait=1s"))
                .hasMessageContaining("unknown parameter(s) [recieveWait]")
                .message()
                .doesNotContain("hunter2");
        assertThatThrownBy(() -> config("sqs://eu-west-1?receiveWait=30s"))
                .hasMessageContaining("SQS URI 'sqs://eu-west-1'")
                .hasMessageContaining("receiveWait");
        assertThatThrownBy(() -> config("sqs://EU_WEST?endpoint=http://x:1"))
                .hasMessageContaining("region must look like 'eu-west-1'");
        assertThatThrownBy(() -> config("sqs://eu-west-1?endpoint=ftp://x"))
                .hasMessageContaining("endpoint 'ftp://x' must be an http:// or https:// address");
        assertThatThrownBy(() -> config("sqs://AKID:hunter2@eu-west-1"))
                .hasMessageContaining("credentials do not go before the region")
                .message()
                .doesNotContain("hunter2");
        assertThatThrownBy(() -> config("sqs://127.0.0.1:4566"))
                .hasMessageContaining("names a port or a path")
                .hasMessageContaining("endpoint=http://127.0.0.1:4566");
    }
}
