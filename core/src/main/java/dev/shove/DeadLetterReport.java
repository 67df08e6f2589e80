package dev.shove;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link DeadLetterQueue#replay replay} or {@link DeadLetterQueue#purge purge} did, or in a dry run would do.
 *
 * @param queue the dead-letter queue
 * @param dryRun whether this was a dry run (nothing moved)
 * @param scanned dead letters read
 * @param matched dead letters the filter chose
 * @param moved dead letters replayed (or purged); in a dry run, those that would be
 * @param refused chosen dead letters a replay refused, because they were replayed {@link
 *     DeadLetterOptions#maxReplays()} times already (or, on a sequenced topic, have no ordering key); they stay in the
 *     queue, and the log says why
 * @param movedIds the ids of the moved dead letters, the first {@link #MAX_IDS}
 * @param refusedIds the ids of the refused ones, the first {@link #MAX_IDS}
 * @since 0.1.0
 */
public record DeadLetterReport(
        String queue,
        boolean dryRun,
        long scanned,
        long matched,
        long moved,
        long refused,
        List<String> movedIds,
        List<String> refusedIds) {

    /** The most ids a report lists of each kind. */
    public static final int MAX_IDS = 1_000;

    /**
     * Checks the components; see the class description.
     *
     * @param queue the dead-letter queue
     * @param dryRun whether this was a dry run (nothing moved)
     * @param scanned dead letters read
     * @param matched dead letters the filter chose
     * @param moved dead letters replayed (or purged); in a dry run, those that would be
     * @param refused chosen dead letters a replay refused, because they were replayed {@link
     *     DeadLetterOptions#maxReplays()} times already (or, on a sequenced topic, have no ordering key); they stay in
     *     the queue, and the log says why
     * @param movedIds the ids of the moved dead letters, the first {@link #MAX_IDS}
     * @param refusedIds the ids of the refused ones, the first {@link #MAX_IDS}
     */
    public DeadLetterReport {
        Objects.requireNonNull(queue, "queue");
        movedIds = List.copyOf(movedIds);
        refusedIds = List.copyOf(refusedIds);
    }

    @Override
    public String toString() {
        return "%s%s: %d scanned, %d matched, %d %s, %d refused"
                .formatted(
                        queue,
                        dryRun ? " (dry run)" : "",
                        scanned,
                        matched,
                        moved,
                        dryRun ? "would move" : "moved",
                        refused);
    }
}
