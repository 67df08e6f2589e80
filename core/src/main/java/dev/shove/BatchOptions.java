package dev.shove;

import dev.shove.spi.Bounds;
import java.time.Duration;

/**
 * How a batch registration forms batches: at most {@code maxBatchSize} messages, and a batch closes {@code maxWait}
 * after its first message arrived even if it is not full. Backends that receive in batches (a Kafka poll, the
 * in-memory broker) hand over what they received without waiting; for the others shove gathers single deliveries.
 * A batch is never larger than asked; it may be smaller.
 *
 * @param maxBatchSize the most messages in one batch (at least 1)
 * @param maxWait how long the first message of a batch waits for more (zero: never wait)
 * @since 0.1.0
 */
public record BatchOptions(int maxBatchSize, Duration maxWait) {
    /** How long a batch waits for more messages unless told otherwise. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofMillis(50);

    /** The largest {@code maxBatchSize}. */
    public static final int MAX_BATCH_SIZE = 10_000;

    /**
     * Checks the components; see the class description.
     *
     * @param maxBatchSize the most messages in one batch (at least 1)
     * @param maxWait how long the first message of a batch waits for more (zero: never wait)
     */
    public BatchOptions {
        if (maxBatchSize < 1 || maxBatchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException(
                    "maxBatchSize must be between 1 and %d, was %d".formatted(MAX_BATCH_SIZE, maxBatchSize));
        }
        Bounds.nonNegative("batch maxWait", maxWait);
    }

    /**
     * Batches of up to {@code maxBatchSize}, waiting up to {@code maxWait} for the batch to fill.
     *
     * @param maxBatchSize 1 to {@value #MAX_BATCH_SIZE}
     * @param maxWait zero or more; zero hands over what has arrived
     * @return the options
     * @throws IllegalArgumentException when a value is out of range
     */
    public static BatchOptions of(int maxBatchSize, Duration maxWait) {
        return new BatchOptions(maxBatchSize, maxWait);
    }

    /**
     * Batches of up to {@code maxBatchSize}, waiting up to {@link #DEFAULT_MAX_WAIT}.
     *
     * @param maxBatchSize 1 to {@value #MAX_BATCH_SIZE}
     * @return the options
     * @throws IllegalArgumentException when {@code maxBatchSize} is out of range
     */
    public static BatchOptions of(int maxBatchSize) {
        return new BatchOptions(maxBatchSize, DEFAULT_MAX_WAIT);
    }
}
