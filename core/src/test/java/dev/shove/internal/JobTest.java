package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ShoveHeaders;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Job")
class JobTest {

    @Test
    @DisplayName("starts once; a started job cannot be withdrawn")
    void startOnce() {
        Job job = new Job(null, TestDelivery.of("d"), null, 0);

        assertThat(job.start()).isTrue();
        assertThat(job.start()).isFalse();
        assertThat(job.withdraw()).isFalse();
        assertThat(job.isWithdrawn()).isFalse();
    }

    @Test
    @DisplayName("a withdrawn job cannot start or be settled")
    void withdrawn() {
        Job job = new Job(null, TestDelivery.of("d"), null, 0);

        assertThat(job.withdraw()).isTrue();
        assertThat(job.isWithdrawn()).isTrue();
        assertThat(job.start()).isFalse();
        assertThat(job.claimSettlement()).isFalse();
    }

    @Test
    @DisplayName("the right to settle is claimed exactly once, from pending or started")
    void claimOnce() {
        Job pending = new Job(null, TestDelivery.of("p"), null, 0);
        Job started = new Job(null, TestDelivery.of("s"), null, 0);
        started.start();

        assertThat(pending.claimSettlement()).isTrue();
        assertThat(pending.claimSettlement()).isFalse();
        assertThat(started.claimSettlement()).isTrue();
        assertThat(started.claimSettlement()).isFalse();
        assertThat(started.withdraw()).isFalse();
    }

    @Test
    @DisplayName("a job returned to the broker stays settled: not withdrawn, not settled again")
    void returned() {
        Job job = new Job(null, TestDelivery.of("d"), null, 0);
        job.start();
        job.claimSettlement();

        assertThat(job.returned()).isFalse();
        job.markReturned();

        assertThat(job.returned()).isTrue();
        assertThat(job.claimSettlement()).isFalse();
        assertThat(job.isWithdrawn()).isFalse();
        assertThat(job.withdraw()).isFalse();
    }

    @Test
    @DisplayName("a job waiting in place goes back to pending and can start again")
    void requeue() {
        Job job = new Job(null, TestDelivery.of("d"), null, 0);
        job.start();

        job.requeue();

        assertThat(job.start()).isTrue();
    }

    @Test
    @DisplayName("the right to settle goes to exactly one of many racing threads")
    void claimRace() throws Exception {
        for (int round = 0; round < 200; round++) {
            Job job = new Job(null, TestDelivery.of("d"), null, 0);
            job.start();
            List<Thread> threads = new ArrayList<>();
            int[] wins = new int[1];
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    if (job.claimSettlement()) {
                        synchronized (wins) {
                            wins[0]++;
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(wins[0]).as("round %d", round).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("the message id is the shove-message-id header, else the delivery id")
    void messageId() {
        assertThat(new Job(null, TestDelivery.withHeader("tag-1", ShoveHeaders.MESSAGE_ID, "m-1"), null, 0).messageId())
                .isEqualTo("m-1");
        assertThat(new Job(null, TestDelivery.of("tag-2"), null, 0).messageId()).isEqualTo("tag-2");
    }

    @Test
    @DisplayName("continuations added over several runs run in order")
    void continuationsChain() {
        List<String> ran = new ArrayList<>();
        Job job = new Job(null, TestDelivery.of("d"), null, 0);

        job.addContinuation(null);
        job.addContinuation(() -> ran.add("first"));
        job.addContinuation(() -> ran.add("second"));
        job.continuation.run();

        assertThat(ran).containsExactly("first", "second");
    }
}
