package dev.shove.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * The upper bounds of configured durations, and the checks that enforce them, shared by core and backend configs:
 * no setting may push shove's time arithmetic (deadlines in nanoseconds, due times in epoch milliseconds) past the
 * range of a {@code long}. Each check names the setting, the range and the value in its message.
 *
 * @since 0.1.0
 */
public final class Bounds {
    /** The longest timeout, interval or wait any setting accepts: one day. */
    public static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    /**
     * The longest delay shove honours, seven days: a retry or defer delay, a hold tier; also the furthest ahead a
     * {@link dev.shove.ShoveHeaders#NOT_BEFORE} header read from the wire may lie.
     */
    public static final Duration MAX_DELAY = Duration.ofDays(7);

    private Bounds() {}

    /**
     * {@return {@code value} when it is positive and at most {@link #MAX_TIMEOUT}}
     *
     * @param setting the setting's name, for the error
     * @param value the duration to check
     * @throws IllegalArgumentException naming {@code setting} otherwise
     */
    public static Duration positive(String setting, Duration value) {
        return within(setting, value, false, MAX_TIMEOUT);
    }

    /**
     * {@return {@code value} when it is zero or positive and at most {@link #MAX_TIMEOUT}}
     *
     * @param setting the setting's name, for the error
     * @param value the duration to check
     * @throws IllegalArgumentException naming {@code setting} otherwise
     */
    public static Duration nonNegative(String setting, Duration value) {
        return within(setting, value, true, MAX_TIMEOUT);
    }

    /**
     * {@return {@code value} when it is positive (or zero, if {@code zeroAllowed}) and at most {@code max}}
     *
     * @param setting the setting's name, for the error
     * @param value the duration to check
     * @param zeroAllowed whether zero passes
     * @param max the longest duration that passes
     * @throws IllegalArgumentException naming {@code setting}, the range and the value otherwise
     */
    public static Duration within(String setting, Duration value, boolean zeroAllowed, Duration max) {
        Objects.requireNonNull(value, setting);
        boolean tooSmall = zeroAllowed ? value.isNegative() : value.isNegative() || value.isZero();
        if (tooSmall || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("%s must be %s and at most %s, was %s"
                    .formatted(
                            setting,
                            zeroAllowed ? "zero or positive" : "positive",
                            DurationText.of(max),
                            DurationText.of(value)));
        }
        return value;
    }
}
