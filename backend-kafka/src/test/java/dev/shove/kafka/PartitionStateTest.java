package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.spi.SettleCallback;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PartitionStateTest {
    private final PartitionState state = new PartitionState(new TopicPartition("t", 0));

    /** A callback that records what it was told. */
    private static final class Told implements SettleCallback {
        boolean called;

        @Nullable
        Throwable failure;

        @Override
        public void settled(@Nullable Throwable failure) {
            this.called = true;
            this.failure = failure;
        }
    }

    @Test
    @DisplayName("the commit point stays at the first record not done while later ones complete")
    void commitsOnlyTheContiguousPrefix() {
        for (long o = 10; o < 15; o++) {
            assertThat(state.admit(o)).isTrue();
        }
        state.complete(11, null);
        state.complete(12, null);
        assertThat(state.commitPoint()).isEqualTo(10);
        state.complete(10, null);
        assertThat(state.commitPoint()).isEqualTo(13);
        state.complete(14, null);
        state.complete(13, null);
        assertThat(state.commitPoint()).isEqualTo(15);
    }

    @Test
    @DisplayName("records after a gap in the offsets (a transaction marker) are found and completed; the gap is not")
    void findsRecordsAcrossGaps() {
        for (long o : new long[] {10, 11, 13, 14, 20}) {
            assertThat(state.admit(o)).isTrue();
        }
        assertThat(state.complete(12, null)).as("never read").isFalse();
        assertThat(state.complete(13, null)).isTrue();
        assertThat(state.complete(20, null)).isTrue();
        assertThat(state.complete(14, null)).isTrue();
        assertThat(state.complete(13, null)).as("done already").isFalse();
        state.complete(10, null);
        state.complete(11, null);
        assertThat(state.commitPoint()).isEqualTo(21);
    }

    @Test
    @DisplayName("callbacks are released only by a commit that covers their offset")
    void callbacksWaitForTheCommit() {
        Told first = new Told();
        Told second = new Told();
        state.admit(0);
        state.admit(1);
        state.complete(1, second);
        state.complete(0, first);
        List<SettleCallback> out = new ArrayList<>();
        state.committed(1, out);
        assertThat(out).containsExactly(first);
        state.committed(2, out);
        assertThat(out).containsExactly(first, second);
    }

    @Test
    @DisplayName("after a seek back, only returned records are handed out again")
    void reReadHandsOutOnlyReturnedRecords() {
        state.admit(0);
        state.admit(1);
        state.admit(2);
        state.complete(1, null);
        assertThat(state.markReturned(0)).isTrue();
        assertThat(state.admit(0)).as("returned: read again").isTrue();
        assertThat(state.admit(1)).as("done: not again").isFalse();
        assertThat(state.admit(2)).as("in flight: not again").isFalse();
        assertThat(state.admit(3)).as("new").isTrue();
        assertThat(state.inFlight()).isEqualTo(3);
    }

    @Test
    @DisplayName("done records behind a returned one are released as failures when the consumer stops")
    void blockedCallbacksAreTakenAsFailures() {
        Told behind = new Told();
        state.admit(0);
        state.admit(1);
        state.complete(1, behind);
        state.markReturned(0);
        List<SettleCallback> out = new ArrayList<>();
        state.takeBlocked(out);
        assertThat(out).containsExactly(behind);
        assertThat(state.commitPoint()).isZero();
    }

    @Test
    @DisplayName("skipped records count as done and the ring grows past its first capacity")
    void skipsAndGrows() {
        for (long o = 0; o < 100; o++) {
            if (o % 3 == 0) {
                state.skip(o);
            } else {
                state.admit(o);
            }
        }
        for (long o = 99; o >= 0; o--) {
            if (o % 3 != 0) {
                assertThat(state.complete(o, null)).isTrue();
            }
        }
        assertThat(state.commitPoint()).isEqualTo(100);
        assertThat(state.pending()).isZero();
        assertThat(state.takeCommit()).isEqualTo(100);
        assertThat(state.takeCommit()).isEqualTo(-1);
    }

    @Test
    @DisplayName("a new wait is committed even though the commit point did not move, and travels in the metadata")
    void aWaitIsCommittedWithoutMoving() {
        state.admit(10);
        state.admit(11);
        assertThat(state.takeCommit()).isEqualTo(10);
        assertThat(state.takeCommit()).isEqualTo(-1);

        state.waiting(10, 2, 5_000);
        assertThat(state.takeCommit()).isEqualTo(10);
        assertThat(WaitingOffsets.decode(state.commitMetadata(10)))
                .containsExactly(java.util.Map.entry(10L, new WaitingOffsets.Wait(2, 5_000)));
        assertThat(state.takeCommit()).isEqualTo(-1);
    }

    @Test
    @DisplayName("a wait ends with its record: completing it drops it from the metadata")
    void aCompletedRecordNoLongerWaits() {
        state.admit(10);
        state.waiting(10, 1, 5_000);
        state.takeCommit();
        state.complete(10, null);

        assertThat(state.takeCommit()).isEqualTo(11);
        assertThat(state.commitMetadata(11)).isEmpty();
        assertThat(state.waitAt(10)).isNull();
    }

    @Test
    @DisplayName("a restored wait is handed to the record read again at its offset, and kept in later commits")
    void restoredWaitsApplyToTheirRecords() {
        java.util.NavigableMap<Long, WaitingOffsets.Wait> restored = new java.util.TreeMap<>();
        restored.put(20L, new WaitingOffsets.Wait(4, 9_000));
        state.restore(restored);

        assertThat(state.waitAt(20)).isEqualTo(new WaitingOffsets.Wait(4, 9_000));
        assertThat(state.waitAt(21)).isNull();
        state.admit(20);
        assertThat(WaitingOffsets.decode(state.commitMetadata(20))).containsOnlyKeys(20L);
    }

    @Test
    @DisplayName("a wait reported after its record was returned is still kept: the next reader resumes it")
    void aWaitAfterTheReturnIsKept() {
        state.admit(10);
        state.markReturned(10);
        state.waiting(10, 1, 5_000);

        assertThat(state.waitAt(10)).isEqualTo(new WaitingOffsets.Wait(1, 5_000));
    }
}
