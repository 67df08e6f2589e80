package dev.shove;

import java.time.Duration;
import java.util.regex.Pattern;

/** Broker-side names derived from a topic: one place, so every backend names things alike. */
final class Naming {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");

    private Naming() {}

    /** The name of a hold tier: {@code {queue}-hold-{compact delay}}. */
    static String holdQueue(String queue, Duration delay) {
        return queue + "-hold-" + compact(delay);
    }

    /**
     * A duration in the largest unit that expresses it exactly: {@code 500ms}, {@code 5s}, {@code 90s}, {@code 2m},
     * {@code 1h}. Sub-second tiers therefore never collide with each other or with whole seconds.
     */
    static String compact(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 != 0) {
            return ms + "ms";
        }
        long s = ms / 1000;
        if (s % 60 != 0) {
            return s + "s";
        }
        long m = s / 60;
        if (m % 60 != 0) {
            return m + "m";
        }
        return (m / 60) + "h";
    }

    /**
     * Checks that a name is usable on every supported broker: 1 to 200 characters of letters, digits, {@code .},
     * {@code _} and {@code -}, starting with a letter or digit.
     */
    static String requireValidName(String name, String what) {
        if (name == null || !VALID.matcher(name).matches()) {
            throw new IllegalArgumentException(("%s '%s' is not usable on every broker: use 1 to 200 letters, digits,"
                            + " '.', '_' or '-', starting with a letter or digit")
                    .formatted(what, name));
        }
        return name;
    }
}
