package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The autoscalers' sleeps end on a shared grid, so that many idle registrations wake the scheduler together. */
class AutoscalerPollTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private static final long FIVE_SECONDS = 5 * SECOND;
    private static final long GRAIN = ConsumerPool.POLL_GRAIN_NANOS;

    @Test
    void sleepsAtLeastTheIntervalAndAtMostOneGrainMore() {
        for (long now : new long[] {0, 1, GRAIN - 1, 123_456_789L, -987_654_321L, Long.MAX_VALUE / 4}) {
            long sleep = ConsumerPool.untilNextPoll(now, FIVE_SECONDS);
            assertThat(sleep).as("now=%d", now).isBetween(FIVE_SECONDS, FIVE_SECONDS + GRAIN - 1);
            assertThat(Math.floorMod(now + sleep, GRAIN)).as("now=%d", now).isZero();
        }
    }

    @Test
    void autoscalersThatPollWithinOneGrainWakeAtTheSameInstant() {
        long first = 10 * SECOND + 1;
        long second = first + GRAIN / 2;
        assertThat(first + ConsumerPool.untilNextPoll(first, FIVE_SECONDS))
                .isEqualTo(second + ConsumerPool.untilNextPoll(second, FIVE_SECONDS));
    }

    @Test
    void autoscalersStartedFurtherApartKeepTheirPhases() {
        long first = 10 * SECOND + 1;
        long later = first + 2 * GRAIN;
        assertThat(later
                        + ConsumerPool.untilNextPoll(later, FIVE_SECONDS)
                        - (first + ConsumerPool.untilNextPoll(first, FIVE_SECONDS)))
                .isEqualTo(2 * GRAIN);
    }

    @Test
    void aShortIntervalGetsAGrainOfAtMostAQuarterOfIt() {
        long interval = Duration.ofMillis(40).toNanos();
        for (long now = 0; now < SECOND; now += 7_000_001L) {
            assertThat(ConsumerPool.untilNextPoll(now, interval)).isBetween(interval, interval + interval / 4 - 1);
        }
    }
}
