package dev.shove.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The IDE metadata the jar ships: every property the starter reads is described. */
class ConfigurationMetadataTest {
    @Test
    @DisplayName("META-INF/spring-configuration-metadata.json describes every shove.* property and the health switch")
    void everyPropertyDescribed() throws Exception {
        JsonNode metadata;
        try (InputStream in =
                ShoveProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the configuration processor's output in the jar").isNotNull();
            metadata = new ObjectMapper().readTree(in);
        }
        List<String> names = new ArrayList<>();
        for (JsonNode property : metadata.get("properties")) {
            names.add(property.get("name").asText());
            assertThat(property.path("description").asText())
                    .as("description of %s", property.get("name").asText())
                    .isNotBlank();
        }
        assertThat(names)
                .containsExactlyInAnyOrder(
                        "shove.uri",
                        "shove.settings",
                        "shove.client-name",
                        "shove.group.auto-startup",
                        "shove.group.drain-timeout",
                        "shove.group.default-handler-timeout",
                        "shove.group.phase",
                        "shove.tracing.enabled",
                        "management.health.shove.enabled");
    }
}
