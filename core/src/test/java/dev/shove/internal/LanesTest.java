package dev.shove.internal;

import static dev.shove.internal.TestDelivery.job;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("Lanes")
class LanesTest {
    private final Lanes lanes = new Lanes();

    @Nested
    @DisplayName("admit and release")
    class AdmitRelease {
        @Test
        @DisplayName("the first job of a key is admitted to run; later ones of that key queue")
        void firstRunsLaterQueue() {
            assertThat(lanes.admit(job("1", "A"))).isTrue();
            assertThat(lanes.admit(job("2", "A"))).isFalse();
            assertThat(lanes.admit(job("3", "A"))).isFalse();

            assertThat(lanes.queued()).isEqualTo(2);
            assertThat(lanes.isEmpty()).isFalse();
        }

        @Test
        @DisplayName("other keys flow while a key is busy")
        void otherKeysFlow() {
            lanes.admit(job("1", "A"));
            lanes.admit(job("2", "A"));

            assertThat(lanes.admit(job("3", "B"))).isTrue();
            assertThat(lanes.admit(job("4", "C"))).isTrue();
            assertThat(lanes.queued()).isEqualTo(1);
        }

        @Test
        @DisplayName("releasing the active job hands over the key's next job, in arrival order")
        void releaseInOrder() {
            Job a1 = job("1", "A");
            Job a2 = job("2", "A");
            Job a3 = job("3", "A");
            lanes.admit(a1);
            lanes.admit(a2);
            lanes.admit(a3);

            assertThat(lanes.release(a1)).isSameAs(a2);
            assertThat(lanes.queued()).isEqualTo(1);
            assertThat(lanes.release(a2)).isSameAs(a3);
            assertThat(lanes.release(a3)).isNull();
            assertThat(lanes.queued()).isZero();
            assertThat(lanes.isEmpty()).isTrue();
        }

        @Test
        @DisplayName("once a key's last job is released the key is free again")
        void keyFreedAfterLastRelease() {
            Job a1 = job("1", "A");
            lanes.admit(a1);
            lanes.release(a1);

            assertThat(lanes.admit(job("2", "A"))).isTrue();
        }

        @Test
        @DisplayName("releasing a job that is not the key's active job changes nothing")
        void releaseNonActive() {
            Job a1 = job("1", "A");
            Job a2 = job("2", "A");
            lanes.admit(a1);
            lanes.admit(a2);

            assertThat(lanes.release(a2)).isNull();
            assertThat(lanes.release(job("9", "Z"))).isNull();

            assertThat(lanes.queued()).isEqualTo(1);
            assertThat(lanes.release(a1)).isSameAs(a2);
        }

        @Test
        @DisplayName("releasing the same active job twice hands over its successor only once")
        void doubleRelease() {
            Job a1 = job("1", "A");
            Job a2 = job("2", "A");
            Job a3 = job("3", "A");
            lanes.admit(a1);
            lanes.admit(a2);
            lanes.admit(a3);

            assertThat(lanes.release(a1)).isSameAs(a2);
            assertThat(lanes.release(a1)).isNull();
            assertThat(lanes.queued()).isEqualTo(1);
        }

        @Test
        @DisplayName("jobs without a key share one lane")
        void keylessShareALane() {
            Job n1 = job("1", null);
            Job n2 = job("2", null);

            assertThat(lanes.admit(n1)).isTrue();
            assertThat(lanes.admit(n2)).isFalse();
            assertThat(lanes.release(n1)).isSameAs(n2);
        }

        @Test
        @DisplayName("the empty key and no key are the same lane")
        void emptyKeyIsNoKey() {
            lanes.admit(job("1", null));

            assertThat(lanes.admit(job("2", ""))).isFalse();
        }
    }

    @Nested
    @DisplayName("takeQueued")
    class TakeQueued {
        @Test
        @DisplayName("removes every queued job, in arrival order per key, and keeps the active ones")
        void takesQueued() {
            Job a1 = job("a1", "A");
            Job a2 = job("a2", "A");
            Job a3 = job("a3", "A");
            Job b1 = job("b1", "B");
            Job b2 = job("b2", "B");
            for (Job j : List.of(a1, a2, b1, a3, b2)) {
                lanes.admit(j);
            }

            List<Job> taken = lanes.takeQueued();

            assertThat(taken).containsExactlyInAnyOrder(a2, a3, b2);
            assertThat(taken.indexOf(a2)).isLessThan(taken.indexOf(a3));
            assertThat(lanes.queued()).isZero();
            assertThat(lanes.isEmpty())
                    .as("the active jobs still hold their lanes")
                    .isFalse();
        }

        @Test
        @DisplayName("after it, releasing the active jobs frees their keys")
        void releaseAfterTake() {
            Job a1 = job("a1", "A");
            lanes.admit(a1);
            lanes.admit(job("a2", "A"));
            lanes.takeQueued();

            assertThat(lanes.release(a1)).isNull();
            assertThat(lanes.isEmpty()).isTrue();
        }

        @Test
        @DisplayName("with nothing queued returns nothing")
        void nothingQueued() {
            lanes.admit(job("a1", "A"));

            assertThat(lanes.takeQueued()).isEmpty();
        }
    }

    @Nested
    @DisplayName("withdraw")
    class Withdraw {
        @Test
        @DisplayName("withdraws the queued jobs that match and leaves the rest in order")
        void matchingQueued() {
            Job a1 = job("a1", "A");
            Job a2 = job("a2", "A");
            Job a3 = job("a3", "A");
            Job a4 = job("a4", "A");
            for (Job j : List.of(a1, a2, a3, a4)) {
                lanes.admit(j);
            }
            List<Job> promoted = new ArrayList<>();

            List<Job> withdrawn = lanes.withdraw(j -> j == a2 || j == a3, promoted);

            assertThat(withdrawn).containsExactly(a2, a3);
            assertThat(a2.isWithdrawn()).isTrue();
            assertThat(a3.isWithdrawn()).isTrue();
            assertThat(promoted).isEmpty();
            assertThat(lanes.queued()).isEqualTo(1);
            assertThat(lanes.release(a1)).isSameAs(a4);
        }

        @Test
        @DisplayName("a matching active job is not withdrawn by the lanes (the engine owns it)")
        void activeNotWithdrawnHere() {
            Job a1 = job("a1", "A");
            lanes.admit(a1);
            a1.start();

            List<Job> withdrawn = lanes.withdraw(j -> true, new ArrayList<>());

            assertThat(withdrawn).isEmpty();
            assertThat(a1.isWithdrawn()).isFalse();
            assertThat(lanes.isEmpty()).isFalse();
        }

        @Test
        @DisplayName("when the engine withdrew a lane's active job, the next remaining job is promoted")
        void promotesAfterActiveWithdrawn() {
            Job a1 = job("a1", "A");
            Job a2 = job("a2", "A");
            Job a3 = job("a3", "A");
            lanes.admit(a1);
            lanes.admit(a2);
            lanes.admit(a3);
            assertThat(a1.withdraw()).isTrue(); // the engine took it from its ready queue
            List<Job> promoted = new ArrayList<>();

            List<Job> withdrawn = lanes.withdraw(j -> j == a1 || j == a2, promoted);

            assertThat(withdrawn).containsExactly(a2);
            assertThat(promoted).containsExactly(a3);
            assertThat(lanes.queued()).isZero();
            assertThat(lanes.release(a3)).as("a3 is now the lane's active job").isNull();
            assertThat(lanes.isEmpty()).isTrue();
        }

        @Test
        @DisplayName("a lane whose active and queued jobs are all withdrawn disappears")
        void laneRemoved() {
            Job a1 = job("a1", "A");
            Job a2 = job("a2", "A");
            lanes.admit(a1);
            lanes.admit(a2);
            a1.withdraw();

            List<Job> withdrawn = lanes.withdraw(j -> true, new ArrayList<>());

            assertThat(withdrawn).containsExactly(a2);
            assertThat(lanes.isEmpty()).isTrue();
            assertThat(lanes.admit(job("a3", "A"))).isTrue();
        }

        @Test
        @DisplayName("other keys are untouched")
        void otherKeysUntouched() {
            Job a1 = job("a1", "A");
            Job b1 = job("b1", "B");
            Job b2 = job("b2", "B");
            lanes.admit(a1);
            lanes.admit(b1);
            lanes.admit(b2);

            lanes.withdraw(j -> j.key != null && j.key.equals("A"), new ArrayList<>());

            assertThat(lanes.release(b1)).isSameAs(b2);
            assertThat(b2.isWithdrawn()).isFalse();
        }
    }
}
