package dev.shove.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BoundsTest {

    @Test
    @DisplayName("positive accepts 1 ns up to MAX_TIMEOUT and refuses zero, negatives and more, naming the setting")
    void positive() {
        assertThat(Bounds.positive("drain", Duration.ofNanos(1))).isEqualTo(Duration.ofNanos(1));
        assertThat(Bounds.positive("drain", Bounds.MAX_TIMEOUT)).isEqualTo(Bounds.MAX_TIMEOUT);
        assertThatThrownBy(() -> Bounds.positive("drain", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("drain must be positive and at most 1 day, was 0 s");
        assertThatThrownBy(() -> Bounds.positive("drain", Duration.ofSeconds(Long.MAX_VALUE)))
                .hasMessageStartingWith("drain must be positive and at most 1 day, was ");
    }

    @Test
    @DisplayName("nonNegative accepts zero")
    void nonNegative() {
        assertThat(Bounds.nonNegative("cooldown", Duration.ZERO)).isZero();
        assertThatThrownBy(() -> Bounds.nonNegative("cooldown", Duration.ofMillis(-1)))
                .hasMessage("cooldown must be zero or positive and at most 1 day, was -1 ms");
    }

    @Test
    @DisplayName("within names a custom maximum in days")
    void within() {
        assertThatThrownBy(() -> Bounds.within("delay", Duration.ofDays(8), false, Bounds.MAX_DELAY))
                .hasMessage("delay must be positive and at most 7 days, was 8 days");
    }
}
