package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
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

    @Test
    @DisplayName("plans exactly what the straightforward sorted-set ledger plans, over random settlement orders")
    void matchesSortedSetModel() {
        Random random = new Random(13);
        AckLedger ledger = new AckLedger();
        SortedSetLedger model = new SortedSetLedger();
        long next = 1;
        for (int step = 0; step < 20_000; step++) {
            int delivered = random.nextInt(8);
            for (int i = 0; i < delivered; i++) {
                next += random.nextInt(10) == 0 ? 2 : 1; // now and then a tag that never comes
                ledger.delivered(next);
                model.outstanding.add(next);
            }
            List<Long> acks = new ArrayList<>();
            List<Long> nacks = new ArrayList<>();
            for (Long tag : model.outstanding) {
                int roll = random.nextInt(100);
                if (roll < 40) {
                    acks.add(tag);
                } else if (roll < 43) {
                    nacks.add(tag);
                }
            }
            if (random.nextInt(20) == 0) {
                acks.add(next + 1 + random.nextInt(5)); // unknown
            }
            Collections.shuffle(acks, random);
            AckLedger.Plan plan = ledger.plan(acks, nacks);
            AckLedger.Plan expected = model.plan(acks, nacks);
            assertThat(plan).as("step %d", step).isEqualTo(expected);
            assertThat(ledger.outstanding()).isEqualTo(model.outstanding.size());
            if (random.nextInt(500) == 0) {
                ledger.clear();
                model.outstanding.clear();
            }
        }
    }

    /** The ledger as it was (a TreeSet walk), kept as the reference for its planning. */
    private static final class SortedSetLedger {
        final TreeSet<Long> outstanding = new TreeSet<>();

        AckLedger.Plan plan(List<Long> acks, List<Long> nacks) {
            List<Long> unknown = new ArrayList<>();
            List<Long> nackList = new ArrayList<>();
            for (Long tag : nacks) {
                if (outstanding.remove(tag)) {
                    nackList.add(tag);
                } else {
                    unknown.add(tag);
                }
            }
            Set<Long> toAck = new HashSet<>();
            for (Long tag : acks) {
                if (!(outstanding.contains(tag) && toAck.add(tag))) {
                    unknown.add(tag);
                }
            }
            long upTo = 0;
            int count = 0;
            Iterator<Long> it = outstanding.iterator();
            while (it.hasNext()) {
                long tag = it.next();
                if (!toAck.remove(tag)) {
                    break;
                }
                it.remove();
                upTo = tag;
                count++;
            }
            List<Long> singles = new ArrayList<>(toAck);
            singles.sort(null);
            if (count == 1) {
                singles.addFirst(upTo);
                upTo = 0;
                count = 0;
            }
            outstanding.removeAll(singles);
            return new AckLedger.Plan(nackList, upTo, count, singles, unknown);
        }
    }

    @Test
    @DisplayName("settled tags out of order still make one multiple-ack once the run from the front is complete")
    void outOfOrderWithinRun() {
        AckLedger ledger = delivered(1, 2, 3, 4, 5, 6);
        AckLedger.Plan plan = ledger.plan(List.of(4L, 2L, 6L, 1L, 3L), List.of());
        assertThat(plan.multipleUpTo()).isEqualTo(4);
        assertThat(plan.multipleCount()).isEqualTo(4);
        assertThat(plan.singles()).containsExactly(6L);
        assertThat(ledger.outstanding()).isEqualTo(1);
        assertThat(ledger.isOutstanding(5)).isTrue();
    }

    @Test
    @DisplayName("a tag acked singly earlier is no gap: a later run from the front goes past it")
    void earlierSingleIsNoGap() {
        AckLedger ledger = delivered(1, 2, 3, 4);
        assertThat(ledger.plan(List.of(2L), List.of()).singles()).containsExactly(2L);
        AckLedger.Plan plan = ledger.plan(List.of(1L, 3L), List.of());
        assertThat(plan.multipleUpTo()).isEqualTo(3);
        assertThat(plan.multipleCount()).isEqualTo(2);
        assertThat(plan.singles()).isEmpty();
        assertThat(ledger.outstanding()).isEqualTo(1);
    }

    @Test
    @DisplayName("a nack inside a contiguous run is written first and the multiple-ack spans it")
    void nackInsideRun() {
        AckLedger ledger = delivered(1, 2, 3, 4, 5);
        AckLedger.Plan plan = ledger.plan(List.of(1L, 2L, 4L, 5L), List.of(3L));
        assertThat(plan.nacks()).containsExactly(3L);
        assertThat(plan.multipleUpTo()).isEqualTo(5);
        assertThat(plan.multipleCount()).isEqualTo(4);
        assertThat(plan.singles()).isEmpty();
        assertThat(ledger.outstanding()).isZero();
    }

    @Test
    @DisplayName("tags that were never delivered (numeric gaps, e.g. across recovery) do not break a run")
    void numericGapsAreNotOutstanding() {
        AckLedger ledger = delivered(10, 11, 20, 21, 40);
        AckLedger.Plan plan = ledger.plan(List.of(21L, 10L, 11L, 20L), List.of());
        assertThat(plan.multipleUpTo()).isEqualTo(21);
        assertThat(plan.multipleCount()).isEqualTo(4);
        assertThat(ledger.isOutstanding(15)).isFalse();
        assertThat(ledger.isOutstanding(40)).isTrue();
        assertThat(ledger.plan(List.of(15L), List.of()).unknown()).containsExactly(15L);
    }

    @Test
    @DisplayName("a tag twice in one batch is acked once and its second settlement reported unknown")
    void duplicateInBatch() {
        AckLedger ledger = delivered(1, 2);
        AckLedger.Plan plan = ledger.plan(List.of(1L, 1L, 2L), List.of());
        assertThat(plan.multipleUpTo()).isEqualTo(2);
        assertThat(plan.multipleCount()).isEqualTo(2);
        assertThat(plan.unknown()).containsExactly(1L);
    }

    @Test
    @DisplayName("one tag that stays unsettled while many others come and go keeps the ledger exact")
    void longStragglerCompacts() {
        AckLedger ledger = delivered(1);
        long next = 2;
        for (int round = 0; round < 200; round++) {
            long first = next;
            for (int i = 0; i < 50; i++) {
                ledger.delivered(next++);
            }
            List<Long> acks = new ArrayList<>();
            for (long t = first; t < next; t++) {
                acks.add(t);
            }
            AckLedger.Plan plan = ledger.plan(acks, List.of());
            assertThat(plan.multipleUpTo()).isZero();
            assertThat(plan.singles()).hasSize(50).first().isEqualTo(first);
            assertThat(ledger.outstanding()).isEqualTo(1);
        }
        AckLedger.Plan last = ledger.plan(List.of(1L), List.of());
        assertThat(last.singles()).containsExactly(1L);
        assertThat(ledger.outstanding()).isZero();
    }

    @Test
    @DisplayName("more tags outstanding than the initial capacity are all kept, in order")
    void grows() {
        AckLedger ledger = new AckLedger();
        List<Long> acks = new ArrayList<>();
        for (long t = 1; t <= 1000; t++) {
            ledger.delivered(t);
            acks.add(1001 - t);
        }
        assertThat(ledger.outstanding()).isEqualTo(1000);
        AckLedger.Plan plan = ledger.plan(acks.subList(0, 999), List.of());
        assertThat(plan.multipleUpTo()).isZero();
        assertThat(plan.singles()).hasSize(999).first().isEqualTo(2L);
        assertThat(ledger.plan(List.of(1L), List.of()).singles()).containsExactly(1L);
        assertThat(ledger.outstanding()).isZero();
    }

    @Test
    @DisplayName("after clear() the old tags are unknown and tags that grow on from there are tracked as new")
    void clearThenGrowing() {
        AckLedger ledger = delivered(1, 2, 3);
        ledger.clear();
        assertThat(ledger.outstanding()).isZero();
        ledger.delivered(4);
        ledger.delivered(5);
        AckLedger.Plan plan = ledger.plan(List.of(3L, 4L, 5L), List.of());
        assertThat(plan.unknown()).containsExactly(3L);
        assertThat(plan.multipleUpTo()).isEqualTo(5);
        assertThat(plan.multipleCount()).isEqualTo(2);
    }

    @Test
    @DisplayName("a tag delivered below the highest one (not expected) is still tracked as a set")
    void outOfOrderDelivery() {
        AckLedger ledger = delivered(1, 5, 3, 5);
        assertThat(ledger.outstanding()).isEqualTo(3);
        AckLedger.Plan plan = ledger.plan(List.of(1L, 3L), List.of());
        assertThat(plan.multipleUpTo()).isEqualTo(3);
        assertThat(ledger.isOutstanding(5)).isTrue();
    }
}
