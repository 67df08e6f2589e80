package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.BrokerConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class KafkaConfigProviderTest {

    private static KafkaConfig config(String uri) {
        return (KafkaConfig) BrokerConfig.fromUri(uri);
    }

    @Test
    @DisplayName("kafka://h1:9092,h2:9092 gives the bootstrap servers; settings go to the builder")
    void settings() {
        KafkaConfig c = config("kafka://k1:9092,k2:9093?partitions=12&replicationFactor=3&commitInterval=50ms"
                + "&sessionTimeout=15s&messageKeyHeader=tenant");
        assertThat(c.bootstrapServers()).isEqualTo("k1:9092,k2:9093");
        assertThat(c.partitions()).isEqualTo(12);
        assertThat(c.replicationFactor()).contains((short) 3);
        assertThat(c.commitInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(c.sessionTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(c.messageKeyHeader()).contains("tenant");
    }

    @Test
    @DisplayName("transactional=true turns on transactional settlement; it is off by default")
    void transactional() {
        assertThat(config("kafka://k:9092?transactional=true").transactional()).isTrue();
        assertThat(config("kafka://k:9092?transactional=false").transactional()).isFalse();
        assertThat(config("kafka://k:9092").transactional()).isFalse();
    }

    @Test
    @DisplayName("topic.*, holdTopic.* and deadLetterTopic.* pass broker topic configs for the topics shove creates")
    void topicConfigs() {
        KafkaConfig c = config("kafka://k:9092?topic.max.message.bytes=4194304&holdTopic.retention.ms=86400000"
                + "&deadLetterTopic.retention.ms=2592000000");
        assertThat(c.topicConfigs()).containsExactly(Map.entry("max.message.bytes", "4194304"));
        assertThat(c.holdTopicConfigs()).containsExactly(Map.entry("retention.ms", "86400000"));
        assertThat(c.deadLetterTopicConfigs()).containsExactly(Map.entry("retention.ms", "2592000000"));
    }

    @Test
    @DisplayName("sasl.* and ssl=true set SASL_SSL; client.* passes kafka-clients properties through")
    void security() {
        KafkaConfig c = config("kafka://k:9093?ssl=true&sasl.mechanism=SCRAM-SHA-512&sasl.username=svc"
                + "&sasl.password=hunter2&client.fetch.min.bytes=1024");
        assertThat(c.commonProperties()).containsEntry("security.protocol", "SASL_SSL");
        assertThat(c.sasl()).hasValueSatisfying(s -> assertThat(s.mechanism()).isEqualTo("SCRAM-SHA-512"));
        assertThat(c.clientProperties()).containsEntry("fetch.min.bytes", "1024");
        assertThat(c.toString()).doesNotContain("hunter2");
    }

    @Test
    @DisplayName("errors name the setting and what is accepted, never a password")
    void errors() {
        assertThatThrownBy(() -> config("kafka://k:9092?sasl.mechanism=KERBEROS&sasl.username=u&sasl.password=p"))
                .hasMessageContaining("parameter 'sasl.mechanism' is 'KERBEROS'; expected PLAIN, SCRAM-SHA-256");
        assertThatThrownBy(() -> config(
                        "kafka://k:9092?sasl.mechanism=PLAIN&sasl.username=u&sasl.password=hunter2" + "&partitons=3"))
                .hasMessageContaining("unknown parameter(s) [partitons]")
                .message()
                .doesNotContain("hunter2");
        assertThatThrownBy(() -> config("kafka://k:9092?sasl.password=hunter2"))
                .hasMessageContaining("need sasl.mechanism")
                .message()
                .doesNotContain("hunter2");
        assertThatThrownBy(() -> config("kafka://?partitions=1")).hasMessageContaining("names no broker");
    }
}
