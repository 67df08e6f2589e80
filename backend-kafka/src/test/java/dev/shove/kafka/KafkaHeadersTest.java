package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** Decoding a record's headers into the map a handler sees. */
class KafkaHeadersTest {

    private static RecordHeaders headers(String... namesAndValues) {
        RecordHeaders out = new RecordHeaders();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            String value = namesAndValues[i + 1];
            out.add(namesAndValues[i], value == null ? null : value.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void decodesEveryHeaderAsUtf8AndANullValueAsEmpty() {
        Map<String, String> map =
                KafkaHeaders.immutableFromKafka(headers("shove-message-id", "m-1", "tenant", "ü", "empty", null), true);
        assertThat(map)
                .containsExactlyInAnyOrderEntriesOf(Map.of("shove-message-id", "m-1", "tenant", "ü", "empty", ""));
    }

    @Test
    void theLastValueOfARepeatedNameWins() {
        Map<String, String> map = KafkaHeaders.immutableFromKafka(headers("a", "1", "b", "2", "a", "3"), true);
        assertThat(map).containsExactlyInAnyOrderEntriesOf(Map.of("a", "3", "b", "2"));
    }

    @Test
    void theBackendsOwnHeadersAreHiddenOnlyWhenAsked() {
        RecordHeaders record = headers(KafkaHeaders.GROUP, "g", "a", "1");
        assertThat(KafkaHeaders.immutableFromKafka(record, true)).containsOnlyKeys("a");
        assertThat(KafkaHeaders.immutableFromKafka(record, false)).containsOnlyKeys(KafkaHeaders.GROUP, "a");
    }

    @Test
    void extrasWinOverTheRecordsHeaders() {
        Map<String, String> map = KafkaHeaders.immutableFromKafka(
                headers("shove-retry-count", "0", "a", "1"), true, "shove-retry-count", "2", "shove-not-before", "9");
        assertThat(map)
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("shove-retry-count", "2", "a", "1", "shove-not-before", "9"));
    }

    @Test
    void manyHeadersAreAllKeptTheSameAsTheMutableDecoding() {
        String[] pairs = new String[40];
        for (int i = 0; i < 20; i++) {
            pairs[2 * i] = "h" + (i % 13); // seven names repeat
            pairs[2 * i + 1] = "v" + i;
        }
        RecordHeaders record = headers(pairs);
        Map<String, String> expected = new HashMap<>(KafkaHeaders.fromKafka(record, true));
        assertThat(KafkaHeaders.immutableFromKafka(record, true))
                .isEqualTo(expected)
                .hasSize(13);
    }

    @Test
    void theMapIsTheJdksOwnImmutableMapSoACopyOfItIsItself() {
        for (int n = 0; n <= 6; n++) {
            String[] pairs = new String[2 * n];
            for (int i = 0; i < n; i++) {
                pairs[2 * i] = "h" + i;
                pairs[2 * i + 1] = "v" + i;
            }
            Map<String, String> map = KafkaHeaders.immutableFromKafka(headers(pairs), true);
            assertThat(Map.copyOf(map)).as("%d headers", n).isSameAs(map);
        }
    }
}
