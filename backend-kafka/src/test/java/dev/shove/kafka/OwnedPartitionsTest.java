package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A partition state is owned exactly while it is its partition's state in the map. */
class OwnedPartitionsTest {
    private final OwnedPartitions owned = new OwnedPartitions();

    private static PartitionState state(int partition) {
        return new PartitionState(new TopicPartition("orders", partition));
    }

    @Test
    void aStateIsOwnedOncePutAndNotBefore() {
        PartitionState s = state(0);
        assertThat(s.isOwned()).isFalse();
        owned.put(0, s);
        assertThat(s.isOwned()).isTrue();
        assertThat(owned.get(0)).isSameAs(s);
    }

    @Test
    void aStateReplacedByASeekIsNoLongerOwned() {
        PartitionState before = state(0);
        PartitionState after = state(0);
        owned.put(0, before);
        owned.put(0, after);
        assertThat(before.isOwned()).isFalse();
        assertThat(after.isOwned()).isTrue();
    }

    @Test
    void removingOnlyTheCurrentStateLetsItGo() {
        PartitionState old = state(0);
        PartitionState current = state(0);
        owned.put(0, old);
        owned.put(0, current);
        owned.remove(0, old);
        assertThat(current.isOwned()).isTrue();
        assertThat(owned.get(0)).isSameAs(current);
        owned.remove(0, current);
        assertThat(current.isOwned()).isFalse();
        assertThat(owned.get(0)).isNull();
    }

    @Test
    void removeAndClearLetEveryStateGo() {
        PartitionState a = state(0);
        PartitionState b = state(1);
        PartitionState c = state(2);
        owned.put(0, a);
        owned.put(1, b);
        owned.put(2, c);
        owned.remove(0);
        assertThat(a.isOwned()).isFalse();
        owned.clear();
        assertThat(b.isOwned()).isFalse();
        assertThat(c.isOwned()).isFalse();
        assertThat(owned.values()).isEmpty();
    }
}
