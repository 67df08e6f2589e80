package dev.shove.spi;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;

/**
 * Durations written for people, as every message of shove and its backends shows them: {@code 250 ms}, {@code 1.5
 * s}, {@code 30 s}, {@code 1 min}, {@code 1 min 30 s}, {@code 2 h}, {@code 1 day}; never ISO-8601's {@code PT1M30S}.
 * Stateless and thread-safe.
 *
 * @since 0.1.0
 */
public final class DurationText {
    private DurationText() {}

    /**
     * {@return {@code duration} for a message: below a second in {@code ms} (or {@code µs}), below a minute in
     * seconds with up to three decimals, else in days, hours, minutes and seconds, leaving out the units that are
     * zero}
     *
     * @param duration any duration; a negative one gets a leading {@code -}
     */
    public static String of(Duration duration) {
        if (duration.isNegative()) {
            return "-" + of(duration.negated());
        }
        if (duration.isZero()) {
            return "0 s";
        }
        if (duration.compareTo(Duration.ofMillis(1)) < 0) {
            return decimal(duration.toNanos(), 1_000) + " µs";
        }
        if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
            return decimal(duration.toNanos(), 1_000_000) + " ms";
        }
        StringBuilder out = new StringBuilder();
        long days = duration.toDays();
        if (days > 0) {
            out.append(days).append(days == 1 ? " day" : " days");
        }
        append(out, duration.toHoursPart(), "h");
        append(out, duration.toMinutesPart(), "min");
        Duration seconds = Duration.ofSeconds(duration.toSecondsPart(), duration.toNanosPart());
        if (!seconds.isZero()) {
            out.append(out.isEmpty() ? "" : " ")
                    .append(decimal(seconds.toNanos(), 1_000_000_000))
                    .append(" s");
        }
        return out.toString();
    }

    private static void append(StringBuilder out, int amount, String unit) {
        if (amount > 0) {
            out.append(out.isEmpty() ? "" : " ").append(amount).append(' ').append(unit);
        }
    }

    /** {@code value / unit} with at most three decimals, trailing zeros dropped. */
    private static String decimal(long value, long unit) {
        return BigDecimal.valueOf(value)
                .divide(BigDecimal.valueOf(unit), 3, RoundingMode.HALF_UP)
                .stripTrailingZeros()
                .toPlainString();
    }
}
