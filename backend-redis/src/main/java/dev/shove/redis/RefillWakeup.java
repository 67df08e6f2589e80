package dev.shove.redis;

import java.util.concurrent.locks.LockSupport;

/**
 * Wakes a consumer's reader thread when half its window is free again, so that it refills the window in one read. The
 * reader parks (up to 100 ms) while less than half is free; settling threads report each delivery that left the
 * window, and the one that brings the count of outstanding deliveries down to the mark unparks the reader.
 *
 * <p>Unconditionally: the reader may have looked at the window a moment before the settlement and not be parked yet.
 * {@link LockSupport#unpark} then leaves it a permit, and its park returns at once. Unparking only a reader already
 * parked (as the consumer once did) lost that wake-up, and since later settlements go below the mark rather than
 * onto it, the reader slept out its 100 ms with half its window or more empty.
 */
final class RefillWakeup {
    private final Thread reader;
    private final int mark;

    /**
     * @param reader the thread that refills the window
     * @param window the most deliveries the consumer holds
     * @param refill how much of the window must be free before the reader refills it
     */
    RefillWakeup(Thread reader, int window, int refill) {
        this.reader = reader;
        this.mark = window - refill;
    }

    /** One delivery left the window, leaving {@code outstanding}: wakes the reader if that reached the mark. */
    void freed(int outstanding) {
        if (outstanding == mark) {
            LockSupport.unpark(reader);
        }
    }
}
