package dev.shove.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ShoveHeaders;
import dev.shove.ShoveMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WireHeadersTest {
    private static final long NOW = 1_800_000_000_000L;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final WireHeaders wire = new WireHeaders(registry);

    private double invalid(String header, String problem) {
        Counter c = registry.find(ShoveMeters.INVALID_HEADERS)
                .tag("header", header)
                .tag("problem", problem)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Nested
    @DisplayName("retry count")
    class RetryCount {
        @ParameterizedTest(name = "\"{0}\" -> {1}")
        @CsvSource({"0, 0", "3, 3", "' 4 ', 4", "1000000, 1000000"})
        @DisplayName("a readable count within 0..MAX_RETRY_COUNT is taken as it is")
        void readable(String header, int expected) {
            assertThat(wire.retryCount(Map.of(ShoveHeaders.RETRY_COUNT, header)))
                    .isEqualTo(expected);
            assertThat(registry.find(ShoveMeters.INVALID_HEADERS).counters()).isEmpty();
        }

        @Test
        @DisplayName("no header means 0, and counts nothing")
        void absent() {
            assertThat(wire.retryCount(Map.of())).isZero();
            assertThat(registry.find(ShoveMeters.INVALID_HEADERS).counters()).isEmpty();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @CsvSource({"abc", "''", "1.5", "99999999999999999999"})
        @DisplayName("an unreadable count is treated as absent (0) and counted as unreadable")
        void unreadable(String header) {
            assertThat(wire.retryCount(Map.of(ShoveHeaders.RETRY_COUNT, header)))
                    .isZero();
            assertThat(invalid(ShoveHeaders.RETRY_COUNT, "unreadable")).isEqualTo(1);
        }

        @Test
        @DisplayName("a count beyond MAX_RETRY_COUNT is clamped to it (far past any budget), counted as out of range")
        void clampedHigh() {
            assertThat(wire.retryCount(Map.of(ShoveHeaders.RETRY_COUNT, "99999999999")))
                    .isEqualTo(WireHeaders.MAX_RETRY_COUNT);
            assertThat(wire.retryCount(Map.of(ShoveHeaders.RETRY_COUNT, Long.toString(Long.MAX_VALUE))))
                    .isEqualTo(WireHeaders.MAX_RETRY_COUNT);
            assertThat(invalid(ShoveHeaders.RETRY_COUNT, "out_of_range")).isEqualTo(2);
        }

        @Test
        @DisplayName("a negative count is clamped to 0, counted as out of range")
        void clampedLow() {
            assertThat(wire.retryCount(Map.of(ShoveHeaders.RETRY_COUNT, "-2"))).isZero();
            assertThat(invalid(ShoveHeaders.RETRY_COUNT, "out_of_range")).isEqualTo(1);
        }
    }

    @Nested
    @DisplayName("not-before")
    class NotBefore {
        @Test
        @DisplayName("a due time ahead within MAX_DELAY is taken as it is")
        void ahead() {
            long due = NOW + 5_000;
            assertThat(wire.notBefore(Map.of(ShoveHeaders.NOT_BEFORE, Long.toString(due)), NOW))
                    .isEqualTo(due);
            assertThat(wire.remainingMillis(Map.of(ShoveHeaders.NOT_BEFORE, Long.toString(due)), NOW))
                    .isEqualTo(5_000);
        }

        @Test
        @DisplayName("no header, or a due time in the past, means due now, and counts nothing")
        void dueNow() {
            assertThat(wire.notBefore(Map.of(), NOW)).isEqualTo(NOW);
            assertThat(wire.notBefore(Map.of(ShoveHeaders.NOT_BEFORE, Long.toString(NOW - 60_000)), NOW))
                    .isEqualTo(NOW);
            assertThat(registry.find(ShoveMeters.INVALID_HEADERS).counters()).isEmpty();
        }

        @Test
        @DisplayName("Long.MIN_VALUE means due now: no overflow in the remaining time")
        void minValue() {
            Map<String, String> h = Map.of(ShoveHeaders.NOT_BEFORE, Long.toString(Long.MIN_VALUE));
            assertThat(wire.notBefore(h, NOW)).isEqualTo(NOW);
            assertThat(wire.remainingMillis(h, NOW)).isZero();
        }

        @Test
        @DisplayName("a far-future due time (Long.MAX_VALUE) is clamped to now + MAX_DELAY, counted as out of range")
        void farFuture() {
            Map<String, String> h = Map.of(ShoveHeaders.NOT_BEFORE, Long.toString(Long.MAX_VALUE));
            assertThat(wire.notBefore(h, NOW)).isEqualTo(NOW + Bounds.MAX_DELAY.toMillis());
            assertThat(wire.remainingMillis(h, NOW)).isEqualTo(Bounds.MAX_DELAY.toMillis());
            assertThat(invalid(ShoveHeaders.NOT_BEFORE, "out_of_range")).isEqualTo(2); // each read counts
        }

        @Test
        @DisplayName("an unreadable due time means due now, counted as unreadable")
        void unreadable() {
            assertThat(wire.notBefore(Map.of(ShoveHeaders.NOT_BEFORE, "tomorrow"), NOW))
                    .isEqualTo(NOW);
            assertThat(invalid(ShoveHeaders.NOT_BEFORE, "unreadable")).isEqualTo(1);
        }
    }

    @Nested
    @DisplayName("death count")
    class DeathCount {
        @Test
        @DisplayName("read within 0..MAX_DEATH_COUNT; absent or unreadable is 0, too large is clamped")
        void bounded() {
            assertThat(wire.deathCount(Map.of())).isZero();
            assertThat(wire.deathCount(Map.of(ShoveHeaders.DEATH_COUNT, "2"))).isEqualTo(2);
            assertThat(wire.deathCount(Map.of(ShoveHeaders.DEATH_COUNT, "x"))).isZero();
            assertThat(wire.deathCount(Map.of(ShoveHeaders.DEATH_COUNT, Long.toString(Long.MAX_VALUE))))
                    .isEqualTo(WireHeaders.MAX_DEATH_COUNT);
        }
    }
}
