package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.MessageMetadata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

    @Test
    void theLazyMapLooksUpTheLastValueAndHidesTheBackendsOwn() {
        RecordHeaders record = headers(KafkaHeaders.GROUP, "g", "a", "1", "b", null, "a", "ü");
        Map<String, String> hidden = KafkaHeaders.lazyFromKafka(record, true);
        assertThat(hidden.get("a")).isEqualTo("ü");
        assertThat(hidden.get("b")).isEmpty();
        assertThat(hidden.get(KafkaHeaders.GROUP)).isNull();
        assertThat(hidden.containsKey("missing")).isFalse();
        assertThat(KafkaHeaders.lazyFromKafka(record, false).get(KafkaHeaders.GROUP))
                .isEqualTo("g");
    }

    @Test
    void theLazyMapEqualsTheEagerDecoding() {
        String[] pairs = new String[40];
        for (int i = 0; i < 20; i++) {
            pairs[2 * i] = i % 5 == 0 ? KafkaHeaders.PREFIX + i : "h" + (i % 13);
            pairs[2 * i + 1] = "v" + i;
        }
        RecordHeaders record = headers(pairs);
        for (boolean hide : new boolean[] {true, false}) {
            Map<String, String> eager = KafkaHeaders.immutableFromKafka(record, hide);
            Map<String, String> lazy = KafkaHeaders.lazyFromKafka(record, hide);
            assertThat(lazy).as("hide %s", hide).isEqualTo(eager).hasSameHashCodeAs(eager);
            assertThat(eager).isEqualTo(lazy);
        }
    }

    @Test
    void threadsReadingTheLazyMapForTheFirstTimeAtOnceAllSeeEveryValue() throws Exception {
        for (int round = 0; round < 200; round++) {
            RecordHeaders record = headers("shove-message-id", "m-" + round, "tenant", "t");
            Map<String, String> map = KafkaHeaders.lazyFromKafka(record, true);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> reads = new ArrayList<>();
            try (ExecutorService threads = Executors.newFixedThreadPool(4)) {
                for (int t = 0; t < 4; t++) {
                    reads.add(threads.submit(() -> {
                        go.await();
                        return map.get("shove-message-id") + "/" + map.get("tenant");
                    }));
                }
                go.countDown();
                for (Future<String> read : reads) {
                    assertThat(read.get()).isEqualTo("m-" + round + "/t");
                }
            }
        }
    }

    @Test
    void metadataKeepsTheLazyMapAsItIs() {
        Map<String, String> lazy = KafkaHeaders.lazyFromKafka(headers("shove-message-id", "m-1"), true);
        assertThat(MessageMetadata.of("orders", "orders-0@1", lazy).headers()).isSameAs(lazy);
    }
}
