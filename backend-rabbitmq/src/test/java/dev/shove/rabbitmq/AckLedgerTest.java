package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AckLedgerTest {

    private static AckLedger delivered(long... tags) {
        AckLedger ledger = new AckLedger();
        for (long t : tags) {
            ledger.delivered(t);
        }
        return ledger;
    }

    @Test
    @DisplayName("a contiguous run from the lowest outstanding tag becomes one multiple-ack")
    void contiguousRun() {
        AckLedger ledger = delivered(1, 2, 3, 4, 5);
        AckLedger.Plan plan = ledger.plan(List.of(3L, 1L, 2L), List.of());
        assertThat(plan.multipleUpTo()).isEqualTo(3);
        assertThat(plan.multipleCount()).isEqualTo(3);
        assertThat(plan.singles()).isEmpty();
        assertThat(ledger.outstanding()).isEqualTo(2);
    }

    @Test
    @DisplayName("a tag still in flight below the acked ones is never covered: the others are acked singly")
    void gapBlocksMultiple() {
        AckLedger ledger = delivered(1, 2, 3, 4);
        AckLedger.Plan plan = ledger.plan(List.of(2L, 4L, 3L), List.of());
        assertThat(plan.multipleUpTo()).isZero();
        assertThat(plan.singles()).containsExactly(2L, 3L, 4L);
        assertThat(ledger.isOutstanding(1)).isTrue();
        assertThat(ledger.outstanding()).isEqualTo(1);
    }

    @Test
    @DisplayName("a run that stops at a gap is a multiple-ack; what follows the gap is acked singly")
    void runThenGap() {
        AckLedger ledger = delivered(1, 2, 3, 4, 5);
        AckLedger.Plan plan = ledger.plan(List.of(1L, 2L, 5L), List.of());
        assertThat(plan.multipleUpTo()).isEqualTo(2);
        assertThat(plan.singles()).containsExactly(5L);
        assertThat(ledger.outstanding()).isEqualTo(2);
    }

    @Test
    @DisplayName("returned tags are nacked first and never covered by the multiple-ack written after them")
    void nacksBeforeAcks() {
        AckLedger ledger = delivered(1, 2, 3);
        AckLedger.Plan plan = ledger.plan(List.of(1L, 3L), List.of(2L));
        assertThat(plan.nacks()).containsExactly(2L);
        assertThat(plan.multipleUpTo()).isEqualTo(3);
        assertThat(ledger.outstanding()).isZero();
    }

    @Test
    @DisplayName("a single settled tag is a single ack, not a multiple-ack")
    void singleTag() {
        AckLedger ledger = delivered(7, 8);
        AckLedger.Plan plan = ledger.plan(List.of(7L), List.of());
        assertThat(plan.multipleUpTo()).isZero();
        assertThat(plan.singles()).containsExactly(7L);
    }

    @Test
    @DisplayName(
            "tags that are not outstanding (already settled, or cleared by a lost channel) are reported, not written")
    void unknownTags() {
        AckLedger ledger = delivered(1, 2);
        ledger.plan(List.of(1L), List.of());
        AckLedger.Plan plan = ledger.plan(List.of(1L, 9L), List.of(8L));
        assertThat(plan.unknown()).containsExactlyInAnyOrder(1L, 9L, 8L);
        assertThat(plan.isEmpty()).isTrue();
        ledger.clear();
        assertThat(ledger.plan(List.of(2L), List.of()).unknown()).containsExactly(2L);
    }
}
