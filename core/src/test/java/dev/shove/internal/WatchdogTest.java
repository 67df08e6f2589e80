package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("Watchdog")
class WatchdogTest {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    /** Records the slots the watchdog timed out, and on which thread. */
    static final class RecordingOwner implements Watchdog.Owner {
        final List<Watchdog.Slot> timedOut = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        @Override
        public void timedOut(Watchdog.Slot slot) {
            threads.add(Thread.currentThread().getName());
            timedOut.add(slot);
        }
    }

    private final RecordingOwner owner = new RecordingOwner();

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Nested
    @DisplayName("a slot")
    class SlotStates {
        @Test
        @DisplayName("is idle until armed, running once armed, idle again once disarmed")
        void lifecycle() {
            Watchdog.Slot slot = new Watchdog.Slot(owner);
            assertThat(slot.isRunning()).isFalse();

            slot.arm("job-1", 0);
            assertThat(slot.isRunning()).isTrue();
            assertThat(slot.job()).isEqualTo("job-1");

            assertThat(slot.disarm()).isTrue();
            assertThat(slot.isRunning()).isFalse();
            assertThat(slot.disarm()).as("disarming an idle slot").isFalse();
        }

        @Test
        @DisplayName("cannot be taken over while idle")
        void idleNotTaken() {
            Watchdog.Slot slot = new Watchdog.Slot(owner);

            assertThat(slot.takeOver()).isFalse();
            slot.arm("job-1", 0);
            slot.disarm();
            assertThat(slot.takeOver()).isFalse();
            assertThat(Thread.interrupted()).isFalse();
        }

        @Test
        @DisplayName("is taken over once: the handler thread is interrupted and the worker's disarm then fails")
        void takenOverOnce() {
            Watchdog.Slot slot = new Watchdog.Slot(owner);
            slot.arm("job-1", 0);

            assertThat(slot.takeOver()).isTrue();
            assertThat(Thread.interrupted())
                    .as("the arming thread was interrupted")
                    .isTrue();
            assertThat(slot.takeOver()).isFalse();
            assertThat(Thread.interrupted()).as("no second interrupt").isFalse();
            assertThat(slot.disarm()).isFalse();
            assertThat(slot.job()).as("the job taken over").isEqualTo("job-1");
        }

        @Test
        @DisplayName("can be armed again after a takeover")
        void rearm() {
            Watchdog.Slot slot = new Watchdog.Slot(owner);
            slot.arm("job-1", 0);
            slot.takeOver();
            Thread.interrupted();

            slot.arm("job-2", 0);

            assertThat(slot.isRunning()).isTrue();
            assertThat(slot.job()).isEqualTo("job-2");
            assertThat(slot.disarm()).isTrue();
        }

        @Test
        @DisplayName("is overdue only once running past its deadline")
        void overdue() {
            Watchdog.Slot slot = new Watchdog.Slot(owner);
            long before = System.nanoTime();
            slot.arm("job-1", TimeUnit.SECONDS.toNanos(1));
            long after = System.nanoTime();

            assertThat(slot.isOverdue(after)).isFalse();
            assertThat(slot.isOverdue(before + TimeUnit.MILLISECONDS.toNanos(999)))
                    .isFalse();
            assertThat(slot.isOverdue(after + TimeUnit.SECONDS.toNanos(1) + 1)).isTrue();
            slot.disarm();
            assertThat(slot.isOverdue(after + TimeUnit.SECONDS.toNanos(2)))
                    .as("idle")
                    .isFalse();
        }

        @ParameterizedTest(name = "at clock value {0}")
        @ValueSource(
                longs = {
                    0L,
                    -1L,
                    -5_000_000_000_000L,
                    Long.MIN_VALUE,
                    Long.MIN_VALUE + 1,
                    Long.MAX_VALUE,
                    Long.MAX_VALUE - 1
                })
        @DisplayName("armed without a deadline is never overdue, whatever the clock reads (nanoTime may be negative)")
        void noDeadlineNeverOverdue(long now) {
            Watchdog.Slot slot = new Watchdog.Slot(owner);
            slot.arm("job-1", 0);

            assertThat(slot.isOverdue(now)).isFalse();
        }

        @Test
        @DisplayName("disarm and takeOver race: exactly one wins, and only a takeover interrupts the handler")
        void disarmTakeOverRace() {
            Watchdog.Slot slot = new Watchdog.Slot(owner);
            int rounds = 2_000;
            boolean[] disarmWon = new boolean[rounds];
            boolean[] takeOverWon = new boolean[rounds];
            boolean[] interrupted = new boolean[rounds];
            // Phaser waits are not interruptible, so the takeover's interrupt cannot break the handshake.
            Phaser phaser = new Phaser(2);
            Thread worker = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < rounds; i++) {
                    slot.arm("job-" + i, 0);
                    phaser.arriveAndAwaitAdvance();
                    disarmWon[i] = slot.disarm();
                    phaser.arriveAndAwaitAdvance();
                    interrupted[i] = Thread.interrupted();
                    phaser.arriveAndAwaitAdvance();
                }
            });
            Thread watchdog = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < rounds; i++) {
                    phaser.arriveAndAwaitAdvance();
                    takeOverWon[i] = slot.takeOver();
                    phaser.arriveAndAwaitAdvance();
                    phaser.arriveAndAwaitAdvance();
                }
            });

            await().atMost(PATIENCE).until(() -> !worker.isAlive() && !watchdog.isAlive());

            for (int i = 0; i < rounds; i++) {
                assertThat(disarmWon[i] ^ takeOverWon[i])
                        .as("round %d: exactly one winner", i)
                        .isTrue();
                assertThat(interrupted[i])
                        .as("round %d: interrupted iff taken over", i)
                        .isEqualTo(takeOverWon[i]);
            }
        }

        @Test
        @DisplayName("many racing takeovers (deadline and drain): exactly one wins")
        void takeOverRace() throws Exception {
            for (int round = 0; round < 200; round++) {
                Watchdog.Slot slot = new Watchdog.Slot(owner);
                // armed by a thread of its own, so the winner's interrupt does not hit the test thread
                Thread arming = Thread.ofPlatform().start(() -> slot.arm("job", 0));
                arming.join();
                AtomicInteger wins = new AtomicInteger();
                CountDownLatch go = new CountDownLatch(1);
                Thread[] racers = new Thread[4];
                for (int t = 0; t < racers.length; t++) {
                    racers[t] = Thread.ofPlatform().start(() -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        if (slot.takeOver()) {
                            wins.incrementAndGet();
                        }
                    });
                }
                go.countDown();
                for (Thread racer : racers) {
                    racer.join();
                }
                assertThat(wins.get()).as("round %d", round).isEqualTo(1);
            }
        }
    }

    @Nested
    @DisplayName("the watchdog thread")
    class Scanning {
        @Test
        @DisplayName(
                "takes over a handler past its deadline: interrupts it and tells the owner, once, on its own thread")
        void deadlineFires() {
            AtomicBoolean interrupted = new AtomicBoolean();
            CountDownLatch armed = new CountDownLatch(1);
            try (Watchdog watchdog = new Watchdog("shove-watchdog-test-fires")) {
                Watchdog.Slot slot = new Watchdog.Slot(owner);
                watchdog.register(slot);
                Thread handler = Thread.ofVirtual().start(() -> {
                    slot.arm("job-1", TimeUnit.MILLISECONDS.toNanos(50));
                    armed.countDown();
                    try {
                        Thread.sleep(PATIENCE.multipliedBy(3));
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                    }
                });

                await().atMost(PATIENCE).until(() -> !owner.timedOut.isEmpty());
                await().atMost(PATIENCE).untilTrue(interrupted);
                await().atMost(PATIENCE).until(() -> !handler.isAlive());

                assertThat(owner.timedOut).containsExactly(slot);
                assertThat(owner.threads).containsExactly("shove-watchdog-test-fires");
                assertThat(slot.disarm()).as("the worker lost the slot").isFalse();
                assertThat(armed.getCount()).isZero();
            }
        }

        @Test
        @DisplayName("leaves a handler alone once it disarmed in time")
        void disarmedInTime() {
            try (Watchdog watchdog = new Watchdog("shove-watchdog-test-disarmed")) {
                RecordingOwner early = new RecordingOwner();
                Watchdog.Slot disarmed = new Watchdog.Slot(early);
                watchdog.register(disarmed);
                disarmed.arm("early", TimeUnit.MILLISECONDS.toNanos(20));
                assertThat(disarmed.disarm()).isTrue();

                Watchdog.Slot later = new Watchdog.Slot(owner);
                watchdog.register(later);
                Thread.ofVirtual().start(() -> later.arm("later", TimeUnit.MILLISECONDS.toNanos(40)));

                // the later slot's deadline is after the disarmed one's: once it fires, a scan has seen both
                await().atMost(PATIENCE).until(() -> !owner.timedOut.isEmpty());
                assertThat(early.timedOut).isEmpty();
            }
        }

        @Test
        @DisplayName(
                "scans a consumer's group only while its count of running handlers is above 0, and not once removed")
        void groupsSkippedWhileIdle() {
            try (Watchdog watchdog = new Watchdog("shove-watchdog-test-groups")) {
                AtomicInteger running = new AtomicInteger();
                Watchdog.Group group = Watchdog.group(running);
                watchdog.watch(group);
                RecordingOwner idleOwner = new RecordingOwner();
                Watchdog.Slot slot = new Watchdog.Slot(idleOwner);
                group.add(slot);
                // armed while the count says nothing runs: a state a worker never shows, so the scan may skip it
                slot.arm("job-1", 1);
                Watchdog.Slot marker = new Watchdog.Slot(owner);
                watchdog.register(marker);
                marker.arm("marker", TimeUnit.MILLISECONDS.toNanos(20));
                await().atMost(PATIENCE).until(() -> !owner.timedOut.isEmpty()); // scans ran after both deadlines
                assertThat(idleOwner.timedOut).as("skipped while running is 0").isEmpty();

                running.incrementAndGet();
                await().atMost(PATIENCE).until(() -> !idleOwner.timedOut.isEmpty());
                assertThat(idleOwner.timedOut).containsExactly(slot);

                Watchdog.Slot afterRemoval = new Watchdog.Slot(idleOwner);
                group.add(afterRemoval);
                watchdog.remove(group);
                afterRemoval.arm("job-2", 1);
                Watchdog.Slot marker2 = new Watchdog.Slot(owner);
                watchdog.register(marker2);
                marker2.arm("marker-2", TimeUnit.MILLISECONDS.toNanos(20));
                await().atMost(PATIENCE).until(() -> owner.timedOut.size() == 2);
                assertThat(idleOwner.timedOut)
                        .as("a removed group is not scanned")
                        .containsExactly(slot);
            }
        }

        @Test
        @DisplayName("parks without a timer while no consumer has a handler in progress, and a handler that starts"
                + " wakes it: that handler's deadline is still enforced")
        void parksWhileIdle() {
            String name = "shove-watchdog-test-parks";
            try (Watchdog watchdog = new Watchdog(name)) {
                AtomicInteger running = new AtomicInteger();
                Watchdog.Group group = Watchdog.group(running);
                watchdog.watch(group);
                Watchdog.Slot slot = new Watchdog.Slot(owner);
                group.add(slot);

                // WAITING, not TIMED_WAITING: parked until woken, not ticking every few milliseconds
                await().atMost(PATIENCE).until(() -> watchdog.isIdle() && stateOf(name) == Thread.State.WAITING);

                Thread.ofVirtual().start(() -> {
                    group.started();
                    slot.arm("job-1", TimeUnit.MILLISECONDS.toNanos(20));
                });
                await().atMost(PATIENCE).until(() -> owner.timedOut.contains(slot));
                group.ended();
                await().atMost(PATIENCE)
                        .alias("parks again once nothing runs")
                        .until(() -> watchdog.isIdle() && stateOf(name) == Thread.State.WAITING);
            }
        }

        @Test
        @DisplayName("handlers that start while it is idle unpark it once, not once each")
        void oneWakeUpPerIdlePark() {
            String name = "shove-watchdog-test-one-wake";
            try (Watchdog watchdog = new Watchdog(name)) {
                AtomicInteger running = new AtomicInteger();
                Watchdog.Group group = Watchdog.group(running);
                watchdog.watch(group);
                await().atMost(PATIENCE).until(() -> watchdog.isIdle() && stateOf(name) == Thread.State.WAITING);
                long before = watchdog.wakeups();

                for (int i = 0; i < 50; i++) {
                    group.started(); // none ends: the watchdog cannot go idle again meanwhile
                }

                assertThat(watchdog.wakeups() - before).isOne();
                await().atMost(PATIENCE)
                        .alias("it runs: ticking, not parked for want of work")
                        .until(() -> !watchdog.isIdle() && stateOf(name) == Thread.State.TIMED_WAITING);
            }
        }

        @Test
        @DisplayName("ignores unregistered slots")
        void unregistered() {
            try (Watchdog watchdog = new Watchdog("shove-watchdog-test-unregistered")) {
                RecordingOwner gone = new RecordingOwner();
                Watchdog.Slot removed = new Watchdog.Slot(gone);
                watchdog.register(removed);
                watchdog.unregister(removed);
                Thread.ofVirtual().start(() -> removed.arm("removed", TimeUnit.MILLISECONDS.toNanos(1)));

                Watchdog.Slot later = new Watchdog.Slot(owner);
                watchdog.register(later);
                Thread.ofVirtual().start(() -> later.arm("later", TimeUnit.MILLISECONDS.toNanos(40)));

                await().atMost(PATIENCE).until(() -> !owner.timedOut.isEmpty());
                assertThat(gone.timedOut).isEmpty();
                assertThat(removed.isRunning()).isTrue();
            }
        }

        @Test
        @DisplayName("keeps running when an owner throws")
        void survivesThrowingOwner() {
            try (Watchdog watchdog = new Watchdog("shove-watchdog-test-throwing")) {
                AtomicInteger calls = new AtomicInteger();
                Watchdog.Slot throwing = new Watchdog.Slot(slot -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("owner bug");
                });
                watchdog.register(throwing);
                Thread.ofVirtual().start(() -> throwing.arm("bad", TimeUnit.MILLISECONDS.toNanos(1)));
                await().atMost(PATIENCE).until(() -> calls.get() == 1);

                Watchdog.Slot next = new Watchdog.Slot(owner);
                watchdog.register(next);
                Thread.ofVirtual().start(() -> next.arm("next", TimeUnit.MILLISECONDS.toNanos(1)));

                await().atMost(PATIENCE).until(() -> owner.timedOut.contains(next));
                assertThat(calls.get()).isEqualTo(1);
            }
        }

        @Test
        @DisplayName("stops its thread on close; close is idempotent")
        void close() {
            String name = "shove-watchdog-test-close";
            Watchdog watchdog = new Watchdog(name);
            assertThat(threadsNamed(name)).isOne();

            watchdog.close();
            watchdog.close();

            await().atMost(PATIENCE).until(() -> threadsNamed(name) == 0);
        }

        private static Thread.State stateOf(String name) {
            return Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals(name))
                    .findFirst()
                    .map(Thread::getState)
                    .orElse(Thread.State.TERMINATED);
        }

        private static long threadsNamed(String name) {
            return Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals(name) && t.isAlive())
                    .count();
        }
    }
}
