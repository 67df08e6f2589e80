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
}
