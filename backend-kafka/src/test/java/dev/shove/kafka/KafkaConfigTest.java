package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class KafkaConfigTest {

    @Test
    @DisplayName("without TLS or SASL the protocol is PLAINTEXT and the defaults apply")
    void plaintextDefaults() {
        KafkaConfig config = KafkaConfig.of("k1:9092");
        assertThat(config.commonProperties())
                .containsEntry("bootstrap.servers", "k1:9092")
                .containsEntry("security.protocol", "PLAINTEXT");
        assertThat(config.partitions()).isEqualTo(KafkaConfig.DEFAULT_PARTITIONS);
        assertThat(config.replicationFactor()).isEmpty();
    }

    @Test
    @DisplayName("SASL over TLS gives SASL_SSL with the trust store, the mechanism and a JAAS line")
    void saslOverSsl() {
        KafkaConfig config = KafkaConfig.builder("k1:9093")
                .ssl(KafkaSsl.ofTruststore(Path.of("/etc/trust.p12"), "trust-secret")
                        .withStoreType("PKCS12"))
                .sasl(KafkaSasl.scramSha512("svc", "pa\"ss"))
                .build();
        Map<String, Object> p = config.commonProperties();
        assertThat(p)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry(
                        "ssl.truststore.location", Path.of("/etc/trust.p12").toString())
                .containsEntry("ssl.truststore.password", "trust-secret")
                .containsEntry("ssl.truststore.type", "PKCS12")
                .containsEntry("ssl.endpoint.identification.algorithm", "https")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        assertThat((String) p.get("sasl.jaas.config"))
                .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"svc\""
                        + " password=\"pa\\\"ss\";");
    }

    @Test
    @DisplayName("TLS alone gives SSL, SASL alone SASL_PLAINTEXT; hostname verification can be turned off")
    void protocols() {
        assertThat(KafkaConfig.builder("k:1")
                        .ssl(KafkaSsl.ofSystemTruststore().withoutHostnameVerification())
                        .build()
                        .commonProperties())
                .containsEntry("security.protocol", "SSL")
                .containsEntry("ssl.endpoint.identification.algorithm", "");
        assertThat(KafkaConfig.builder("k:1")
                        .sasl(KafkaSasl.plain("u", "p"))
                        .build()
                        .commonProperties())
                .containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry("sasl.mechanism", "PLAIN");
    }

    @Test
    @DisplayName("toString never shows passwords, JAAS lines or secret-looking client properties")
    void toStringRedactsSecrets() {
        KafkaConfig config = KafkaConfig.builder("k:1")
                .ssl(KafkaSsl.ofTruststore(Path.of("/t.jks"), "trust-secret")
                        .withKeystore(Path.of("/k.jks"), "store-secret", "key-secret"))
                .sasl(KafkaSasl.plain("user", "sasl-secret"))
                .clientProperty("sasl.jaas.config", "x password=\"raw-secret\";")
                .clientProperty("client.rack", "rack-1")
                .build();
        String shown = config.toString();
        assertThat(shown).doesNotContain("trust-secret", "store-secret", "key-secret", "sasl-secret", "raw-secret");
        assertThat(shown).contains("rack-1", "user", "[redacted]");
    }

    @Test
    @DisplayName("setting a builder value twice fails naming the value; bad values are refused")
    void builderChecks() {
        assertThatThrownBy(() -> KafkaConfig.builder("k:1").partitions(3).partitions(4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partitions");
        assertThatThrownBy(() -> KafkaConfig.builder("k:1").partitions(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KafkaConfig.builder(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KafkaConfig.builder("k:1").commitInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("commitInterval");
    }

    @Test
    @DisplayName("a topic config given twice fails naming it; a blank name fails")
    void topicConfigOnce() {
        KafkaConfig.Builder b = KafkaConfig.builder("k:1").topicConfig("max.message.bytes", "2000000");
        assertThatThrownBy(() -> b.topicConfig("max.message.bytes", "3000000"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("topicConfig 'max.message.bytes' was already set to 2000000");
        assertThatThrownBy(() -> b.holdTopicConfig(" ", "1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdTopicConfig");
        assertThat(b.build().toString()).contains("topicConfigs={max.message.bytes=2000000}");
    }

    @Test
    @DisplayName("transactional() gives the transport the transactions capability and shows in toString; given twice"
            + " it fails")
    void transactionalMode() {
        KafkaConfig config = KafkaConfig.builder("k:1").transactional().build();
        assertThat(config.transactional()).isTrue();
        assertThat(config.toString()).contains("transactional");
        assertThat(KafkaTransport.capabilities(true).transactions()).isTrue();
        assertThat(KafkaTransport.capabilities(false).transactions()).isFalse();
        assertThat(KafkaConfig.of("k:1").transactional()).isFalse();
        assertThat(KafkaConfig.of("k:1").toString()).doesNotContain("transactional");
        assertThatThrownBy(() -> KafkaConfig.builder("k:1").transactional().transactional())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transactional");
    }
}
