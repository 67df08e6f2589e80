package dev.shove.internal;

import java.util.OptionalLong;

/**
 * The {@code OptionalLong} timestamps of messages' metadata, the last one kept: messages published in the same
 * millisecond (hundreds of them at full speed) share one object instead of allocating one each. Thread-safe without a
 * lock: an {@code OptionalLong} is immutable (final fields), so a racing reader sees an older or a newer one, each
 * checked against the value asked for.
 */
final class Timestamps {
    private OptionalLong last = OptionalLong.empty();

    /** {@return {@code timestampMs} as an optional, empty when negative (the broker gives none)} */
    OptionalLong of(long timestampMs) {
        if (timestampMs < 0) {
            return OptionalLong.empty();
        }
        OptionalLong cached = last;
        if (cached.isPresent() && cached.getAsLong() == timestampMs) {
            return cached;
        }
        OptionalLong fresh = OptionalLong.of(timestampMs);
        last = fresh;
        return fresh;
    }
}
