package dev.shove.redis;

import dev.shove.spi.Bounds;
import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.Objects;

/**
 * How a topic's streams are trimmed as messages are added: by length ({@code XADD ... MAXLEN ~ n}) or by age ({@code
 * XADD ... MINID ~ <now - age>}). Trimming is approximate ({@code ~}): Redis trims whole macro nodes, so a stream
 * may keep a little more than asked, never less. Immutable and thread-safe.
 *
 * <pre>{@code
 * RedisConfig config = RedisConfig.builder("redis://localhost:6379")
 *         .trim(RedisTrim.maxLen(1_000_000))                        // every topic
 *         .trim("audit-events", RedisTrim.maxAge(Duration.ofDays(3))) // one topic
 *         .build();
 * }</pre>
 *
 * <p>Trimming removes entries whether or not a consumer group has read them: a group that falls behind by more than
 * the limit loses what was trimmed (see {@code docs/backends/redis.md}).
 *
 * @since 0.1.0
 */
public final class RedisTrim {
    /** The most entries {@link #maxLen(long)} accepts. */
    public static final long MAX_LENGTH = Long.MAX_VALUE / 2;

    /** The longest age {@link #maxAge(Duration)} accepts. */
    public static final Duration MAX_AGE = Duration.ofDays(3650);

    private final long maxLen;
    private final Duration maxAge;

    private RedisTrim(long maxLen, Duration maxAge) {
        this.maxLen = maxLen;
        this.maxAge = maxAge;
    }

    /**
     * Keeps about the newest {@code entries} entries of each stream.
     *
     * @param entries how many of the newest entries each stream keeps (a few more may stay)
     * @return the trim
     * @throws IllegalArgumentException unless {@code 1 <= entries <= MAX_LENGTH}
     */
    public static RedisTrim maxLen(long entries) {
        if (entries < 1 || entries > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "Redis trim maxLen must be between 1 and " + MAX_LENGTH + ", was " + entries);
        }
        return new RedisTrim(entries, Duration.ZERO);
    }

    /**
     * Keeps the entries added during the last {@code age}. A retry waiting in a hold tier is not in the stream, so an
     * age shorter than a hold delay trims nothing it needs.
     *
     * @param age how long entries are kept after they were added
     * @return the trim
     * @throws IllegalArgumentException unless the age is at least 1 ms and at most 3650 days
     */
    public static RedisTrim maxAge(Duration age) {
        Objects.requireNonNull(age, "age");
        if (age.isNegative() || age.isZero() || age.toMillis() < 1) {
            throw new IllegalArgumentException("Redis trim maxAge must be at least 1 ms, was " + DurationText.of(age));
        }
        return new RedisTrim(0, Bounds.within("Redis trim maxAge", age, false, MAX_AGE));
    }

    /** {@return the length limit, or 0 when trimming by age} */
    public long length() {
        return maxLen;
    }

    /** {@return the age limit, or zero when trimming by length} */
    public Duration age() {
        return maxAge;
    }

    /** The {@code MAXLEN}/{@code MINID} arguments of an {@code XADD}, as Lua script arguments: kind and value. */
    String[] xaddArgs(long nowMs) {
        if (maxLen > 0) {
            return new String[] {"MAXLEN", Long.toString(maxLen)};
        }
        return new String[] {"MINID", Math.max(0, nowMs - maxAge.toMillis()) + "-0"};
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedisTrim t && t.maxLen == maxLen && t.maxAge.equals(maxAge);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(maxLen) * 31 + maxAge.hashCode();
    }

    @Override
    public String toString() {
        return maxLen > 0 ? "maxLen(" + maxLen + ")" : "maxAge(" + maxAge + ")";
    }
}
