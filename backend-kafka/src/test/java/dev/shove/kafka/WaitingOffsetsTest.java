package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.NavigableMap;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class WaitingOffsetsTest {

    private static NavigableMap<Long, WaitingOffsets.Wait> waits(int count) {
        NavigableMap<Long, WaitingOffsets.Wait> waits = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            waits.put(1_000_000L + i, new WaitingOffsets.Wait(3, 1_800_000_000_000L + i));
        }
        return waits;
    }

    @Test
    @DisplayName("waits survive a round trip through the commit metadata")
    void roundTrip() {
        NavigableMap<Long, WaitingOffsets.Wait> waits = waits(3);
        assertThat(WaitingOffsets.decode(WaitingOffsets.encode(waits))).isEqualTo(waits);
    }

    @Test
    @DisplayName("no waits: empty metadata, as a plain commit has")
    void noWaitsNoMetadata() {
        assertThat(WaitingOffsets.encode(new TreeMap<>())).isEmpty();
        assertThat(WaitingOffsets.decode("")).isEmpty();
    }

    @Test
    @DisplayName("metadata not written by shove is ignored")
    void foreignMetadataIgnored() {
        assertThat(WaitingOffsets.decode("checkpoint 42")).isEmpty();
    }

    @Test
    @DisplayName("a malformed entry is skipped, the others are kept")
    void malformedEntrySkipped() {
        assertThat(WaitingOffsets.decode(WaitingOffsets.PREFIX + "5:1:100,x:y:z,7:2"))
                .containsOnlyKeys(5L);
    }

    @Test
    @DisplayName("too many waits for Kafka's metadata limit: the lowest offsets are kept, within the limit")
    void overflowKeepsLowestOffsets() {
        NavigableMap<Long, WaitingOffsets.Wait> waits = waits(500);
        String metadata = WaitingOffsets.encode(waits);
        assertThat(metadata.length()).isLessThanOrEqualTo(WaitingOffsets.MAX_CHARS);
        NavigableMap<Long, WaitingOffsets.Wait> kept = WaitingOffsets.decode(metadata);
        assertThat(kept).isNotEmpty().hasSizeLessThan(500);
        assertThat(kept).isEqualTo(waits.headMap(waits.firstKey() + kept.size()));
        assertThat(WaitingOffsets.fits(waits)).isFalse();
        assertThat(WaitingOffsets.fits(waits(3))).isTrue();
    }
}
