package dev.shove;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link BatchMessageHandler} decided: one {@link Outcome} for every message of the batch ({@link #all}), or
 * one per message, in batch order ({@link #each}). Immutable.
 *
 * <p>A list of the wrong length is a bug in the handler: messages without an outcome are retried (an extra delivery
 * beats a lost message) and an ERROR is logged; surplus outcomes are ignored.
 *
 * @since 0.1.0
 */
public final class BatchOutcome {
    private final @Nullable Outcome all;
    private final List<Outcome> each;

    private BatchOutcome(@Nullable Outcome all, List<Outcome> each) {
        this.all = all;
        this.each = each;
    }

    /**
     * The same outcome for every message of the batch. Its continuation runs once, after the last one settled.
     *
     * @param outcome the outcome of every message
     * @return the batch outcome
     */
    public static BatchOutcome all(Outcome outcome) {
        return new BatchOutcome(Objects.requireNonNull(outcome, "outcome"), List.of());
    }

    /** {@return a batch outcome that acknowledges every message of the batch} */
    public static BatchOutcome ackAll() {
        return all(Outcome.ack());
    }

    /**
     * Outcome {@code i} settles message {@code i}; each outcome's continuation runs after its message settled.
     *
     * @param outcomes one per message, in batch order; as many as the batch has messages
     * @return the batch outcome
     */
    public static BatchOutcome each(List<Outcome> outcomes) {
        return new BatchOutcome(null, List.copyOf(outcomes));
    }

    /** {@return the uniform outcome, when the batch was settled with {@link #all}} */
    public Optional<Outcome> uniform() {
        return Optional.ofNullable(all);
    }

    /** {@return the per-message outcomes, when the batch was settled with {@link #each}; empty otherwise} */
    public List<Outcome> perMessage() {
        return each;
    }

    @Override
    public String toString() {
        return all != null ? "BatchOutcome.all(" + all + ")" : "BatchOutcome.each(" + each + ")";
    }
}
