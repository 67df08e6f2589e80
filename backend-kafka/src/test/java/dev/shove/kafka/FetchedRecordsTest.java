package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FetchedRecordsTest {
    private static ConsumerRecord<byte[], byte[]> record(int partition, long offset) {
        return new ConsumerRecord<>("t", partition, offset, new byte[0], new byte[0]);
    }

    private static List<String> drain(FetchedRecords records) {
        List<String> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r = records.poll(); r != null; r = records.poll()) {
            out.add(r.partition() + "@" + r.offset());
        }
        return out;
    }

    @Test
    @DisplayName("partitions take turns, one record each, and each partition's records keep their offset order")
    void partitionsTakeTurns() {
        FetchedRecords records = new FetchedRecords();
        for (long offset = 0; offset < 3; offset++) {
            records.add(record(0, offset));
        }
        records.add(record(1, 10));
        records.add(record(1, 11));
        records.add(record(2, 20));

        assertThat(records.size()).isEqualTo(6);
        assertThat(drain(records)).containsExactly("0@0", "1@10", "2@20", "0@1", "1@11", "0@2");
        assertThat(records.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("removing records keeps the count, the turns and the partitions held right")
    void removeIfDropsRecordsAndEmptyPartitions() {
        FetchedRecords records = new FetchedRecords();
        records.add(record(0, 0));
        records.add(record(0, 1));
        records.add(record(1, 5));
        records.add(record(2, 7));

        records.removeIf(r -> r.partition() == 1 || (r.partition() == 0 && r.offset() >= 1));

        assertThat(records.size()).isEqualTo(2);
        assertThat(records.holds(1)).isFalse();
        assertThat(records.holds(0)).isTrue();
        assertThat(drain(records)).containsExactly("0@0", "2@7");
    }

    @Test
    @DisplayName("the poll loop hears when a partition gains its first record or loses its last, and only then")
    void turnsChangedOnlyWhenAPartitionComesOrGoes() {
        FetchedRecords records = new FetchedRecords();
        assertThat(records.takeTurnsChanged()).isFalse();

        records.add(record(0, 0));
        assertThat(records.takeTurnsChanged()).isTrue();
        records.add(record(0, 1));
        assertThat(records.takeTurnsChanged()).isFalse();

        records.poll();
        assertThat(records.takeTurnsChanged()).isFalse();
        records.poll();
        assertThat(records.takeTurnsChanged()).isTrue();
        assertThat(records.holds(0)).isFalse();

        records.add(record(3, 0));
        records.takeTurnsChanged();
        records.removeIf(r -> r.partition() == 3);
        assertThat(records.takeTurnsChanged()).isTrue();
    }

    @Test
    @DisplayName("records added with their partitions interleaved, or after their partition emptied, keep every turn")
    void interleavedAndRefilledPartitionsKeepTheirTurns() {
        FetchedRecords records = new FetchedRecords();
        records.add(record(0, 0));
        records.add(record(1, 10));
        records.add(record(0, 1));
        records.add(record(1, 11));
        assertThat(drain(records)).containsExactly("0@0", "1@10", "0@1", "1@11");

        records.add(record(1, 12)); // a partition emptied meanwhile takes turns again
        records.add(record(1, 13));
        assertThat(records.holds(1)).isTrue();
        assertThat(records.size()).isEqualTo(2);
        assertThat(drain(records)).containsExactly("1@12", "1@13");
    }
}
