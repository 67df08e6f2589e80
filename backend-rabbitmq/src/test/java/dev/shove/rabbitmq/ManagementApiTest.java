package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.spi.QueueStats;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ManagementApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @DisplayName("queue depth is messages_ready and messages_unacknowledged; extra fields are ignored")
    void parses() throws Exception {
        assertThat(ManagementApi.parseStats(JSON.readTree(
                        "{\"name\":\"orders\",\"messages_ready\":12,\"messages_unacknowledged\":3,\"consumers\":2}")))
                .isEqualTo(new QueueStats(12, 3));
    }

    @Test
    @DisplayName("a queue whose statistics are not collected yet reads as empty")
    void missingFields() throws Exception {
        assertThat(ManagementApi.parseStats(JSON.readTree("{}"))).isEqualTo(new QueueStats(0, 0));
    }
}
