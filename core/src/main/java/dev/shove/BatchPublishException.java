package dev.shove;

import java.io.Serial;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Some messages of a {@link Publisher#publishBatch batch publish} were not accepted by the broker. Says exactly which:
 * {@link #failures()} maps the index of every failed message (its position in the list passed in) to its cause; every
 * other index was accepted. Republish {@link #failedIndices()} to complete the batch.
 *
 * @since 0.1.0
 */
public final class BatchPublishException extends PublishException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** How many messages the batch had. */
    private final int batchSize;

    private final transient SortedMap<Integer, Throwable> failures;

    /**
     * A batch of which some messages were not accepted.
     *
     * @param topic the topic's name
     * @param batchSize how many messages the batch had
     * @param failures index in the batch to why that message was not accepted; not empty
     */
    public BatchPublishException(String topic, int batchSize, SortedMap<Integer, Throwable> failures) {
        super(
                ("%d of %d messages published to topic '%s' were not accepted (indices %s): %d worth republishing"
                                + " (%s), %d refused for good (%s); the first, index %d: %s")
                        .formatted(
                                failures.size(),
                                batchSize,
                                topic,
                                summarize(failures.keySet()),
                                retriable(failures, true).size(),
                                summarize(retriable(failures, true)),
                                retriable(failures, false).size(),
                                summarize(retriable(failures, false)),
                                failures.isEmpty() ? -1 : failures.firstKey(),
                                failures.isEmpty()
                                        ? ""
                                        : failures.get(failures.firstKey()).getMessage()),
                failures.isEmpty() ? null : failures.get(failures.firstKey()),
                failures.values().stream().allMatch(f -> f instanceof ShoveException s && s.isRetriable()));
        this.batchSize = batchSize;
        this.failures = Collections.unmodifiableSortedMap(new TreeMap<>(failures));
    }

    /** {@return the number of messages in the batch} */
    public int batchSize() {
        return batchSize;
    }

    /** {@return index in the batch to why that message was not accepted, lowest index first} */
    public SortedMap<Integer, Throwable> failures() {
        return failures;
    }

    /** {@return the indices, ascending, of the messages that were not accepted} */
    public List<Integer> failedIndices() {
        return List.copyOf(failures.keySet());
    }

    /**
     * {@return the failed indices worth republishing} The broker was unreachable or busy ({@link
     * ShoveException#isRetriable()} on their cause).
     */
    public List<Integer> retriableIndices() {
        return retriable(failures, true);
    }

    /**
     * {@return the failed indices that will fail again as they are} A message that cannot be encoded, has no ordering
     * key, is too large, or was refused by the broker for good.
     */
    public List<Integer> permanentIndices() {
        return retriable(failures, false);
    }

    private static List<Integer> retriable(SortedMap<Integer, Throwable> failures, boolean retriable) {
        return failures.entrySet().stream()
                .filter(e -> (e.getValue() instanceof ShoveException s && s.isRetriable()) == retriable)
                .map(java.util.Map.Entry::getKey)
                .toList();
    }

    private static String summarize(java.util.Collection<Integer> indices) {
        List<Integer> keys = List.copyOf(indices);
        return keys.size() <= 10 ? keys.toString() : keys.subList(0, 10) + "...";
    }
}
