package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SqsConfigTest {

    @Test
    @DisplayName("defaults: default chains, SNS on, 20 s long polls, 30 s visibility, redrive after 20 receives")
    void defaults() {
        SqsConfig c = SqsConfig.ofDefaults();

        assertThat(c.region()).isEmpty();
        assertThat(c.endpoint()).isEmpty();
        assertThat(c.usesSns()).isTrue();
        assertThat(c.namePrefix()).isEmpty();
        assertThat(c.receiveWait()).isEqualTo(SqsConfig.DEFAULT_RECEIVE_WAIT);
        assertThat(c.visibilityTimeout()).isEqualTo(SqsConfig.DEFAULT_VISIBILITY_TIMEOUT);
        assertThat(c.maxReceiveCount()).isEqualTo(SqsConfig.DEFAULT_MAX_RECEIVE_COUNT);
        assertThat(c.maxConnections()).isEqualTo(SqsConfig.DEFAULT_MAX_CONNECTIONS);
        assertThat(c.settleLinger()).isEqualTo(SqsConfig.DEFAULT_SETTLE_LINGER);
    }

    @Test
    @DisplayName("emulator(endpoint): us-east-1, the endpoint for SQS and SNS, placeholder credentials")
    void emulator() {
        SqsConfig c = SqsConfig.emulator("http://127.0.0.1:4566");

        assertThat(c.region()).contains("us-east-1");
        assertThat(c.endpoint()).hasValueSatisfying(u -> assertThat(u).hasToString("http://127.0.0.1:4566"));
        assertThat(c.snsEndpoint()).isEqualTo(c.endpoint());
        assertThat(c.credentialsProvider()).isPresent();
    }

    @Test
    @DisplayName("toString never shows the secret key or the session token")
    void noSecrets() {
        SqsConfig c = SqsConfig.builder()
                .region("eu-west-1")
                .credentials("AKIDEXAMPLE", "wJalrXUtnFEMI-secret", "session-token-secret")
                .build();

        assertThat(c.toString())
                .doesNotContain("wJalrXUtnFEMI-secret")
                .doesNotContain("session-token-secret")
                .contains("eu-west-1")
                .contains("credentials=static session");
    }

    @Test
    @DisplayName("toBuilder keeps every setting and changes only what is set again")
    void toBuilderKeeps() {
        SqsConfig c = SqsConfig.builder()
                .region("eu-west-1")
                .namePrefix("staging-")
                .noSns()
                .receiveWait(Duration.ofSeconds(5))
                .queueUrl("orders", "https://sqs.eu-west-1.amazonaws.com/1/orders")
                .build();
        SqsConfig d = c.toBuilder().maxReceiveCount(5).build();

        assertThat(d.namePrefix()).isEqualTo("staging-");
        assertThat(d.usesSns()).isFalse();
        assertThat(d.receiveWait()).isEqualTo(Duration.ofSeconds(5));
        assertThat(d.queueUrls()).containsEntry("orders", "https://sqs.eu-west-1.amazonaws.com/1/orders");
        assertThat(d.maxReceiveCount()).isEqualTo(5);
        assertThat(c.maxReceiveCount()).isEqualTo(SqsConfig.DEFAULT_MAX_RECEIVE_COUNT);
    }

    @Test
    @DisplayName("each setter checks its value at once, naming the setting, its range and the value")
    void validation() {
        SqsConfig.Builder b = SqsConfig.builder();

        assertThatThrownBy(() -> b.region("Europe"))
                .hasMessageContaining("region")
                .hasMessageContaining("Europe");
        assertThatThrownBy(() -> b.endpoint("ftp://x")).hasMessageContaining("endpoint");
        assertThatThrownBy(() -> b.namePrefix("a.b"))
                .hasMessageContaining("namePrefix")
                .hasMessageContaining("a.b");
        assertThatThrownBy(() -> b.receiveWait(Duration.ofSeconds(21)))
                .hasMessageContaining("receiveWait")
                .hasMessageContaining("21 s");
        assertThatThrownBy(() -> b.receiveWait(Duration.ofMillis(1500))).hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> b.visibilityTimeout(Duration.ofHours(13))).hasMessageContaining("visibilityTimeout");
        assertThatThrownBy(() -> b.visibilityTimeout(Duration.ofMillis(500))).hasMessageContaining("at least 1 s");
        assertThatThrownBy(() -> b.maxReceiveCount(0)).hasMessageContaining("between 1 and 1000, was 0");
        assertThatThrownBy(() -> b.maxConnections(0)).hasMessageContaining("maxConnections");
        assertThatThrownBy(() -> b.topicArn("orders", "orders")).hasMessageContaining("SNS topic ARN");
        assertThatThrownBy(() -> b.credentials("id", " ")).hasMessageContaining("secret access key");
    }

    @Test
    @DisplayName("the visibility timeout of receives is the handler timeout plus 2 s, rounded up to seconds, or the"
            + " configured one without a handler timeout")
    void leaseDerivedFromHandlerTimeout() {
        assertThat(SqsSubscription.leaseSeconds(Duration.ofSeconds(30), Duration.ofSeconds(30)))
                .isEqualTo(32);
        assertThat(SqsSubscription.leaseSeconds(Duration.ofMillis(200), Duration.ofSeconds(30)))
                .isEqualTo(3);
        assertThat(SqsSubscription.leaseSeconds(null, Duration.ofSeconds(45))).isEqualTo(45);
        assertThat(SqsSubscription.leaseSeconds(Duration.ofDays(1), Duration.ofSeconds(30)))
                .isEqualTo(43_200);
    }

    @Test
    @DisplayName("a poller waits for a full receive of free places in a window of three receives or more, for half the"
            + " window in a small one")
    void pollThreshold() {
        assertThat(SqsSubscription.threshold(1)).isEqualTo(1);
        assertThat(SqsSubscription.threshold(10)).isEqualTo(5);
        assertThat(SqsSubscription.threshold(20)).isEqualTo(5);
        assertThat(SqsSubscription.threshold(30)).isEqualTo(10);
        assertThat(SqsSubscription.threshold(1000)).isEqualTo(10);
    }

    @Test
    @DisplayName("queueRetention defaults to SQS's longest, 14 days, and takes whole seconds between 1 min and 14 days")
    void queueRetention() {
        assertThat(SqsConfig.ofDefaults().queueRetention()).isEqualTo(Duration.ofDays(14));
        assertThat(SqsConfig.builder()
                        .queueRetention(Duration.ofDays(2))
                        .build()
                        .queueRetention())
                .isEqualTo(Duration.ofDays(2));
        assertThatThrownBy(() -> SqsConfig.builder().queueRetention(Duration.ofDays(15)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SQS queueRetention");
        assertThatThrownBy(() -> SqsConfig.builder().queueRetention(Duration.ofSeconds(30)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SQS queueRetention must be whole seconds between 1 min and 14 days, was 30 s");
    }
}
