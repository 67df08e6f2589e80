package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("WorkQueue")
class WorkQueueTest {
    private final WorkQueue<Integer> queue = new WorkQueue<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopTakers() {
        threads.forEach(Thread::interrupt);
    }

    /** Starts {@code n} takers that each take one item into {@code taken}, and waits until all of them are parked. */
    private void parkedTakers(int n, ConcurrentLinkedQueue<Integer> taken) {
        for (int i = 0; i < n; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    taken.add(queue.take());
                } catch (InterruptedException e) {
                    // the test is over
                }
            }));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> queue.waiting() == n);
    }

    @Test
    @DisplayName("items come out in the order they went in")
    void fifo() throws InterruptedException {
        queue.add(1);
        queue.addAll(List.of(2, 3));
        queue.add(4);
        assertThat(List.of(queue.take(), queue.take(), queue.take(), queue.take()))
                .containsExactly(1, 2, 3, 4);
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("looksEmpty follows every change of the queue")
    void looksEmpty() throws InterruptedException {
        assertThat(queue.looksEmpty()).isTrue();
        queue.addQuietly(1);
        assertThat(queue.looksEmpty()).isFalse();
        queue.take();
        assertThat(queue.looksEmpty()).isTrue();
        queue.addAll(List.of(2, 3));
        queue.drainTo(new ArrayList<>(), 1);
        assertThat(queue.looksEmpty()).isFalse();
        queue.removeIf(i -> i == 3);
        assertThat(queue.looksEmpty()).isTrue();
        queue.add(4);
        assertThat(queue.looksEmpty()).isFalse();
        queue.drainTo(new ArrayList<>());
        assertThat(queue.looksEmpty()).isTrue();
    }

    @Test
    @DisplayName("addAndTakeOldest appends and takes the head: the item itself when the queue was empty")
    void addAndTakeOldest() throws InterruptedException {
        assertThat(queue.addAndTakeOldest(1)).isEqualTo(1);
        assertThat(queue.isEmpty()).isTrue();
        queue.addAll(List.of(2, 3));
        assertThat(queue.addAndTakeOldest(4)).isEqualTo(2);
        assertThat(List.of(queue.take(), queue.take())).containsExactly(3, 4);
        assertThat(queue.looksEmpty()).isTrue();
    }

    @Test
    @DisplayName("addAndTakeOldest wakes an idle taker when items remain after it")
    void addAndTakeOldestWakesForWhatRemains() {
        ConcurrentLinkedQueue<Integer> taken = new ConcurrentLinkedQueue<>();
        parkedTakers(1, taken);
        queue.addQuietly(1); // no wake
        assertThat(queue.waiting()).isEqualTo(1);

        assertThat(queue.addAndTakeOldest(2)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> taken.contains(2));
    }

    @Test
    @DisplayName("a take waits for the next item")
    void takeWaits() {
        ConcurrentLinkedQueue<Integer> taken = new ConcurrentLinkedQueue<>();
        parkedTakers(1, taken);
        queue.add(7);
        await().atMost(Duration.ofSeconds(5)).until(() -> taken.contains(7));
        assertThat(queue.waiting()).isZero();
    }

    @Test
    @DisplayName("one item wakes one of the idle takers; the others stay parked")
    void wakeOne() {
        ConcurrentLinkedQueue<Integer> taken = new ConcurrentLinkedQueue<>();
        parkedTakers(5, taken);
        queue.add(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> taken.size() == 1);
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> queue.waiting() == 4);
        assertThat(taken).containsExactly(1);
    }

    @Test
    @DisplayName("a burst wakes takers one after another, as many as there are items (the cascade)")
    void cascade() {
        ConcurrentLinkedQueue<Integer> taken = new ConcurrentLinkedQueue<>();
        parkedTakers(5, taken);
        queue.addAll(List.of(1, 2, 3));
        await().atMost(Duration.ofSeconds(5)).until(() -> taken.size() == 3);
        assertThat(taken).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(queue.isEmpty()).isTrue();
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> queue.waiting() == 2);
    }

    @Test
    @DisplayName("every item reaches a taker when many producers and takers race")
    void noLostWakeups() throws InterruptedException {
        int producers = 4;
        int perProducer = 20_000;
        ConcurrentLinkedQueue<Integer> taken = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        taken.add(queue.take());
                    }
                } catch (InterruptedException e) {
                    // the test is over
                }
            }));
        }
        List<Thread> sending = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            sending.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    if (i % 10 == 0) {
                        queue.addAll(List.of(base + i));
                    } else {
                        queue.add(base + i);
                    }
                }
            }));
        }
        for (Thread t : sending) {
            t.join();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> taken.size() == producers * perProducer);
        assertThat(taken).doesNotHaveDuplicates();
    }

    @Test
    @DisplayName("an interrupted take throws InterruptedException and leaves the queue")
    void interruptedTake() {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread taker = Thread.ofVirtual().start(() -> {
            try {
                queue.take();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queue.waiting() == 1);
        taker.interrupt();
        await().atMost(Duration.ofSeconds(5)).until(() -> thrown.get() != null);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(queue.waiting()).isZero();
    }

    @Test
    @DisplayName("a take by an already interrupted thread throws at once, taking nothing")
    void interruptedBefore() {
        queue.add(1);
        Thread.currentThread().interrupt();
        assertThatThrownBy(queue::take).isInstanceOf(InterruptedException.class);
        assertThat(queue.size()).isEqualTo(1);
    }

    @Test
    @DisplayName("a timed poll returns null when nothing comes, and leaves the queue; an item added later still wakes"
            + " a waiting taker")
    void pollTimesOut() throws InterruptedException {
        assertThat(queue.poll(20, TimeUnit.MILLISECONDS)).isNull();
        assertThat(queue.waiting()).isZero();
        ConcurrentLinkedQueue<Integer> taken = new ConcurrentLinkedQueue<>();
        parkedTakers(1, taken);
        queue.add(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> taken.contains(3));
    }

    @Test
    @DisplayName("drainTo moves at most max of the oldest items and leaves the rest in order")
    void drainToBounds() throws InterruptedException {
        queue.addAll(List.of(1, 2, 3, 4, 5));
        List<Integer> sink = new ArrayList<>();
        assertThat(queue.drainTo(sink, 2)).isEqualTo(2);
        assertThat(sink).containsExactly(1, 2);
        assertThat(queue.drainTo(sink, 0)).isZero();
        assertThat(queue.size()).isEqualTo(3);
        assertThat(queue.take()).isEqualTo(3);
        assertThat(queue.drainTo(sink)).isEqualTo(2);
        assertThat(sink).containsExactly(1, 2, 4, 5);
        assertThat(queue.drainTo(sink, 10)).isZero();
    }

    @Test
    @DisplayName("removeIf removes and returns the accepted items in order, keeping the others")
    void removeIf() throws InterruptedException {
        queue.addAll(List.of(1, 2, 3, 4));
        assertThat(queue.removeIf(i -> i % 2 == 0)).containsExactly(2, 4);
        assertThat(List.of(queue.take(), queue.take())).containsExactly(1, 3);
    }
}
