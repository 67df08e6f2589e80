package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Timestamps")
class TimestampsTest {

    @Test
    @DisplayName("messages of the same millisecond share one optional")
    void sameMillisecondShared() {
        Timestamps timestamps = new Timestamps();

        OptionalLong first = timestamps.of(1_000L);

        assertThat(timestamps.of(1_000L)).isSameAs(first).hasValue(1_000L);
    }

    @Test
    @DisplayName("each timestamp gets its own value, also going back to an earlier one")
    void valuesFollowTheMessage() {
        Timestamps timestamps = new Timestamps();

        assertThat(timestamps.of(1_000L)).hasValue(1_000L);
        assertThat(timestamps.of(1_001L)).hasValue(1_001L);
        assertThat(timestamps.of(1_000L)).hasValue(1_000L);
        assertThat(timestamps.of(0L)).hasValue(0L);
    }

    @Test
    @DisplayName("a negative timestamp (none from the broker) is empty")
    void negativeIsEmpty() {
        Timestamps timestamps = new Timestamps();
        timestamps.of(5L);

        assertThat(timestamps.of(-1L)).isEmpty();
    }
}
