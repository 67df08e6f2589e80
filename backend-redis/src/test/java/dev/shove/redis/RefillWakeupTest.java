package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RefillWakeupTest {
    private static final long READER_PARK_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** Settles from another thread, so the wake-up comes while the reader (this thread) is not parked. */
    private static void settleElsewhere(RefillWakeup wakeup, int... outstandingAfterEach) throws InterruptedException {
        Thread settler = Thread.ofPlatform().start(() -> {
            for (int outstanding : outstandingAfterEach) {
                wakeup.freed(outstanding);
            }
        });
        settler.join();
    }

    @Test
    @DisplayName("a reader that parks just after half its window freed returns at once: the wake-up is not lost")
    void wakeUpBeforeTheParkIsKept() throws InterruptedException {
        RefillWakeup wakeup = new RefillWakeup(Thread.currentThread(), 10, 5);
        Thread.interrupted(); // no stray interrupt to end the park instead
        LockSupport.parkNanos(1); // nor a stray permit: takes one if this thread has it

        // The reader saw 8 outstanding (less than half free) and is about to park; meanwhile 3 settle: 7, 6, 5.
        settleElsewhere(wakeup, 7, 6, 5);
        long start = System.nanoTime();
        LockSupport.parkNanos(READER_PARK_NANOS);

        assertThat(System.nanoTime() - start)
                .as("the reader's park, woken before it began")
                .isLessThan(READER_PARK_NANOS / 2);
    }
}
