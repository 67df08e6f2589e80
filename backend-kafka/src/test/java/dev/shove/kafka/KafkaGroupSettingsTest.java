package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class KafkaGroupSettingsTest {

    @Test
    @DisplayName("keeps the group's consumer properties and names the kafka backend")
    void keeps() {
        KafkaGroupSettings s = KafkaGroupSettings.builder()
                .consumerProperty("fetch.min.bytes", "65536")
                .consumerProperty("max.poll.records", "50")
                .build();
        assertThat(s.consumerProperties())
                .containsEntry("fetch.min.bytes", "65536")
                .hasSize(2);
        assertThat(s.backend()).isEqualTo("kafka");
    }

    @Test
    @DisplayName("refuses a property shove sets itself, naming it")
    void refusesOwned() {
        assertThatThrownBy(() -> KafkaGroupSettings.builder().consumerProperty("group.id", "other"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'group.id' is set by shove")
                .hasMessageContaining("enable.auto.commit");
    }

    @Test
    @DisplayName("toString hides secrets")
    void hidesSecrets() {
        KafkaGroupSettings s = KafkaGroupSettings.builder()
                .consumerProperty("ssl.key.password", "hunter2")
                .consumerProperty("fetch.min.bytes", "1")
                .build();
        assertThat(s.toString()).doesNotContain("hunter2").contains("ssl.key.password=****", "fetch.min.bytes=1");
    }
}
