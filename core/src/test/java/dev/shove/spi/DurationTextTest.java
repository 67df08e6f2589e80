package dev.shove.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DurationTextTest {

    @Test
    @DisplayName("durations read like 30 s, 1 min, 1 min 30 s, 250 ms, 2 h, 1 day: never PT1M")
    void readsLikeText() {
        assertThat(DurationText.of(Duration.ofSeconds(30))).isEqualTo("30 s");
        assertThat(DurationText.of(Duration.ofMinutes(1))).isEqualTo("1 min");
        assertThat(DurationText.of(Duration.ofSeconds(90))).isEqualTo("1 min 30 s");
        assertThat(DurationText.of(Duration.ofMillis(250))).isEqualTo("250 ms");
        assertThat(DurationText.of(Duration.ofMillis(1500))).isEqualTo("1.5 s");
        assertThat(DurationText.of(Duration.ofHours(2))).isEqualTo("2 h");
        assertThat(DurationText.of(Duration.ofDays(1))).isEqualTo("1 day");
        assertThat(DurationText.of(Duration.ofDays(7).plusHours(1))).isEqualTo("7 days 1 h");
        assertThat(DurationText.of(Duration.ofNanos(1500))).isEqualTo("1.5 µs");
        assertThat(DurationText.of(Duration.ZERO)).isEqualTo("0 s");
        assertThat(DurationText.of(Duration.ofSeconds(-5))).isEqualTo("-5 s");
    }

    @Test
    @DisplayName("a bound's error shows the range and the value as text")
    void boundsUseIt() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Bounds.positive("drainTimeout", Duration.ofDays(2)))
                .hasMessage("drainTimeout must be positive and at most 1 day, was 2 days");
    }
}
