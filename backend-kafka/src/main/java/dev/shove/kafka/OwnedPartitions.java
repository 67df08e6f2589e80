package dev.shove.kafka;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The state of each partition one consumer owns, by partition number. Changed by the poll thread only, read by
 * settling threads too. Every state knows whether it is still the one here ({@link PartitionState#isOwned()}): a
 * settlement checks its record's state with one volatile read instead of a lookup, on the settling thread and again
 * on the poll thread, for every record.
 */
final class OwnedPartitions {
    private final ConcurrentHashMap<Integer, PartitionState> states = new ConcurrentHashMap<>();

    @Nullable
    PartitionState get(int partition) {
        return states.get(partition);
    }

    /** Makes {@code state} the partition's; the state it replaces, if any, is no longer owned. Poll thread. */
    void put(int partition, PartitionState state) {
        state.owned(true);
        PartitionState old = states.put(partition, state);
        if (old != null && old != state) {
            old.owned(false);
        }
    }

    /** Lets the partition go; its state is no longer owned. Poll thread. */
    void remove(int partition) {
        PartitionState old = states.remove(partition);
        if (old != null) {
            old.owned(false);
        }
    }

    /** Lets the partition go if {@code state} is still its state. Poll thread. */
    void remove(int partition, PartitionState state) {
        if (states.remove(partition, state)) {
            state.owned(false);
        }
    }

    /** Lets every partition go. Poll thread. */
    void clear() {
        for (PartitionState state : states.values()) {
            state.owned(false);
        }
        states.clear();
    }

    /** A live view of the states. */
    Collection<PartitionState> values() {
        return states.values();
    }
}
