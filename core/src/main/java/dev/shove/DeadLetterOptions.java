package dev.shove;

import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * How a {@link DeadLetterQueue#replay replay} or {@link DeadLetterQueue#purge purge} runs: how many dead letters it
 * moves at most, how fast, whether it is a dry run, and after how many replays a dead letter is refused. Immutable;
 * {@link #ofDefaults()} or {@link #builder()}.
 *
 * @since 0.1.0
 */
public final class DeadLetterOptions {
    /** The default {@link #maxReplays()}. */
    public static final int DEFAULT_MAX_REPLAYS = 3;

    /** The default {@link #pageSize()}. */
    public static final int DEFAULT_PAGE_SIZE = 100;

    /** The largest {@link #pageSize()}. */
    public static final int MAX_PAGE_SIZE = 10_000;

    private static final DeadLetterOptions DEFAULTS = new Builder().build();

    private final long maxMessages;
    private final double ratePerSecond;
    private final boolean dryRun;
    private final int maxReplays;
    private final int pageSize;
    private final Consumer<DeadLetterReport> progress;

    private DeadLetterOptions(Builder b) {
        this.maxMessages = b.maxMessages;
        this.ratePerSecond = b.ratePerSecond;
        this.dryRun = b.dryRun;
        this.maxReplays = b.maxReplays;
        this.pageSize = b.pageSize;
        this.progress = b.progress;
    }

    /**
     * {@return the defaults: every dead letter, as fast as the broker takes them, {@value #DEFAULT_MAX_REPLAYS}
     * replays at most}
     */
    public static DeadLetterOptions ofDefaults() {
        return DEFAULTS;
    }

    /** {@return a new builder starting from the defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a new builder starting from these options} */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxMessages = maxMessages;
        b.ratePerSecond = ratePerSecond;
        b.dryRun = dryRun;
        b.maxReplays = maxReplays;
        b.pageSize = pageSize;
        b.progress = progress;
        return b;
    }

    /** {@return the most dead letters moved (or, in a dry run, counted as moving); empty for no limit} */
    public OptionalLong maxMessages() {
        return maxMessages == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(maxMessages);
    }

    /** {@return the most dead letters moved per second; empty for no limit} */
    public OptionalDouble ratePerSecond() {
        return ratePerSecond > 0 ? OptionalDouble.of(ratePerSecond) : OptionalDouble.empty();
    }

    /** {@return whether only to report what would move} */
    public boolean dryRun() {
        return dryRun;
    }

    /** {@return how many replays a dead letter may have had; one replayed this many times is refused and stays} */
    public int maxReplays() {
        return maxReplays;
    }

    /** {@return how many dead letters are read from the broker at a time} */
    public int pageSize() {
        return pageSize;
    }

    /** {@return the listener called with the report so far after each page, on the calling thread} */
    public Consumer<DeadLetterReport> progress() {
        return progress;
    }

    @Override
    public String toString() {
        return "DeadLetterOptions[maxMessages=" + (maxMessages == Long.MAX_VALUE ? "all" : maxMessages)
                + ", ratePerSecond=" + (ratePerSecond > 0 ? ratePerSecond : "unlimited") + ", dryRun=" + dryRun
                + ", maxReplays=" + maxReplays + ", pageSize=" + pageSize + "]";
    }

    /** Builds {@link DeadLetterOptions}; a later call of a setter replaces an earlier one. */
    public static final class Builder {
        private long maxMessages = Long.MAX_VALUE;
        private double ratePerSecond;
        private boolean dryRun;
        private int maxReplays = DEFAULT_MAX_REPLAYS;
        private int pageSize = DEFAULT_PAGE_SIZE;
        private Consumer<DeadLetterReport> progress = report -> {};

        private Builder() {}

        /**
         * Moves at most {@code max} dead letters.
         *
         * @param max at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code max} is less than 1
         */
        public Builder maxMessages(long max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxMessages must be at least 1, was " + max);
            }
            this.maxMessages = max;
            return this;
        }

        /**
         * Moves at most {@code perSecond} dead letters a second.
         *
         * @param perSecond more than 0, at most 1,000,000
         * @return this builder
         * @throws IllegalArgumentException when {@code perSecond} is out of range
         */
        public Builder ratePerSecond(double perSecond) {
            if (!(perSecond > 0 && perSecond <= 1_000_000)) {
                throw new IllegalArgumentException(
                        "ratePerSecond must be more than 0 and at most 1000000, was " + perSecond);
            }
            this.ratePerSecond = perSecond;
            return this;
        }

        /**
         * Moves as fast as the broker takes them (the default).
         *
         * @return this builder
         */
        public Builder noRateLimit() {
            this.ratePerSecond = 0;
            return this;
        }

        /**
         * Reports what would move, and moves nothing.
         *
         * @return this builder
         */
        public Builder dryRun() {
            this.dryRun = true;
            return this;
        }

        /**
         * Refuses to replay a dead letter replayed {@code max} times already; it stays in the dead-letter queue.
         *
         * @param max 0 to 1,000,000; default {@value #DEFAULT_MAX_REPLAYS}
         * @return this builder
         * @throws IllegalArgumentException when {@code max} is out of range
         */
        public Builder maxReplays(int max) {
            if (max < 0 || max > 1_000_000) {
                throw new IllegalArgumentException("maxReplays must be between 0 and 1000000, was " + max);
            }
            this.maxReplays = max;
            return this;
        }

        /**
         * Reads {@code size} dead letters from the broker at a time.
         *
         * @param size 1 to {@value #MAX_PAGE_SIZE}; default {@value #DEFAULT_PAGE_SIZE}
         * @return this builder
         * @throws IllegalArgumentException when {@code size} is out of range
         */
        public Builder pageSize(int size) {
            if (size < 1 || size > MAX_PAGE_SIZE) {
                throw new IllegalArgumentException("pageSize must be between 1 and " + MAX_PAGE_SIZE + ", was " + size);
            }
            this.pageSize = size;
            return this;
        }

        /**
         * Called with the report so far after each page, e.g. to print progress.
         *
         * @param listener runs on the thread that moves the dead letters
         * @return this builder
         */
        public Builder progress(Consumer<DeadLetterReport> listener) {
            this.progress = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** {@return the options as set} */
        public DeadLetterOptions build() {
            return new DeadLetterOptions(this);
        }
    }
}
