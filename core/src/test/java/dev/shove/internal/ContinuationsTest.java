package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.CapturedLog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Continuations")
class ContinuationsTest {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final Continuations continuations = new Continuations();

    private static long deadlineIn(Duration d) {
        return System.nanoTime() + d.toNanos();
    }

    @Test
    @DisplayName("runs a continuation on a virtual thread named after the topic")
    void runsOnNamedVirtualThread() throws Exception {
        List<String> names = new CopyOnWriteArrayList<>();
        List<Boolean> virtual = new CopyOnWriteArrayList<>();

        continuations.submit(
                () -> {
                    names.add(Thread.currentThread().getName());
                    virtual.add(Thread.currentThread().isVirtual());
                },
                "orders",
                "m-1");

        assertThat(continuations.awaitIdle(deadlineIn(PATIENCE))).isTrue();
        assertThat(names).containsExactly("shove-continuation-orders");
        assertThat(virtual).containsExactly(true);
    }

    @Test
    @DisplayName("counts continuations still running and waits for them")
    void awaitsRunning() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        continuations.submit(
                () -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "orders",
                "m-1");
        assertThat(started.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        assertThat(continuations.pending()).isEqualTo(1);
        assertThat(continuations.awaitIdle(deadlineIn(Duration.ofMillis(20))))
                .as("the deadline passes while it runs")
                .isFalse();

        release.countDown();
        assertThat(continuations.awaitIdle(deadlineIn(PATIENCE))).isTrue();
        assertThat(continuations.pending()).isZero();
    }

    @Test
    @DisplayName("counts a continuation as pending from the moment it is submitted")
    void pendingFromSubmit() {
        CountDownLatch release = new CountDownLatch(1);

        continuations.submit(
                () -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "orders",
                "m-1");

        assertThat(continuations.pending()).isEqualTo(1);
        release.countDown();
        await().atMost(PATIENCE).until(() -> continuations.pending() == 0);
    }

    @Test
    @DisplayName("a continuation that throws (even an Error) is logged with topic and message id, and contained")
    void throwingContained() throws Exception {
        AtomicInteger ran = new AtomicInteger();

        String log = CapturedLog.during(() -> {
            continuations.submit(
                    () -> {
                        throw new IllegalStateException("continuation bug");
                    },
                    "cont-orders",
                    "m-1");
            continuations.submit(
                    () -> {
                        throw new StackOverflowError("deep");
                    },
                    "cont-orders",
                    "m-2");
            continuations.submit(ran::incrementAndGet, "cont-orders", "m-3");
            assertThat(continuations.awaitIdle(deadlineIn(PATIENCE))).isTrue();
        });

        assertThat(continuations.pending()).isZero();
        assertThat(ran.get()).isEqualTo(1);
        assertThat(log)
                .contains("continuation of message m-1 on topic 'cont-orders' failed")
                .contains("continuation of message m-2 on topic 'cont-orders' failed");
    }

    @Test
    @DisplayName("awaitIdle wakes up as soon as the last continuation ends, long before its deadline")
    void wakesUpWhenIdle() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        continuations.submit(
                () -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "orders",
                "m-1");
        AtomicBoolean drained = new AtomicBoolean();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                drained.set(continuations.awaitIdle(deadlineIn(Duration.ofHours(1))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        release.countDown();

        await().atMost(PATIENCE).until(() -> !waiter.isAlive());
        assertThat(drained).isTrue();
    }

    @Test
    @DisplayName("with nothing pending, awaitIdle returns true at once, even past its deadline")
    void idleAtOnce() throws Exception {
        assertThat(continuations.awaitIdle(System.nanoTime() - 1)).isTrue();
    }

    @Test
    @DisplayName("runs each of many concurrent continuations exactly once")
    void many() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 500; i++) {
            continuations.submit(ran::incrementAndGet, "orders", "m-" + i);
        }

        assertThat(continuations.awaitIdle(deadlineIn(PATIENCE))).isTrue();
        assertThat(ran.get()).isEqualTo(500);
    }
}
