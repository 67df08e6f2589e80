package dev.shove.kafka;

import dev.shove.kafka.PartitionSeeker.SeekRequest;
import dev.shove.spi.SettleCallback;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jspecify.annotations.Nullable;

/**
 * What other threads hand to one consumer's poll thread, and how the poll thread applies it: settlements (a record
 * done, or returned to be read again), the waits of sequenced retries, the engine's moves, and its pause. The other
 * threads only queue a note and wake the poll thread if it sleeps here or in a long poll ({@link PollWaker}); the
 * notes are applied on the poll thread, in {@link #apply}, because the partition states and the {@code KafkaConsumer} belong to it.
 *
 * <p>The adding methods, {@link #pause} and {@link #paused} are for any thread, and so is {@link #applyLateNotes} once
 * the poll thread has made its last commit; the rest is poll thread only.
 */
final class PollInbox {
    /**
     * A note from a settling thread to the poll thread; {@code copies} are the settlement's copies still to produce
     * (transactional mode: they go with the transaction that commits the record's offset), else empty. A link of the
     * inbox's stack of notes ({@link #add}) as well, so queueing one allocates nothing more.
     */
    static final class Note {
        private final KafkaDelivery delivery;
        private final SettleCallback callback;
        private final boolean done;
        private final @Nullable Throwable failure;
        private final List<ProducerRecord<byte[], byte[]>> copies;
        /** The note queued before this one (written before the compare-and-set that publishes it). */
        private @Nullable Note next;

        Note(
                KafkaDelivery delivery,
                SettleCallback callback,
                boolean done,
                @Nullable Throwable failure,
                List<ProducerRecord<byte[], byte[]>> copies) {
            this.delivery = delivery;
            this.callback = callback;
            this.done = done;
            this.failure = failure;
            this.copies = copies;
        }

        Note(KafkaDelivery delivery, SettleCallback callback, boolean done, @Nullable Throwable failure) {
            this(delivery, callback, done, failure, List.of());
        }

        KafkaDelivery delivery() {
            return delivery;
        }

        SettleCallback callback() {
            return callback;
        }

        boolean done() {
            return done;
        }

        @Nullable
        Throwable failure() {
            return failure;
        }

        List<ProducerRecord<byte[], byte[]>> copies() {
            return copies;
        }
    }

    /** A note from the engine: a record waits in place for a sequenced retry. */
    private record WaitNote(KafkaDelivery delivery, WaitingOffsets.Wait retry) {}

    private final Thread pollThread;
    private final PollWaker waker;
    private final OwnedPartitions owned;
    private final OffsetCommitter committer;
    private final PartitionSeeker seeker;
    private final SettleCallbacks callbacks;
    private final boolean broadcast;

    /**
     * The notes queued since the poll thread last took them, the latest first: settling threads push with a
     * compare-and-set, the poll thread takes them all with one swap ({@link #takeNotes}). One atomic operation per note
     * and one per batch, where a {@code ConcurrentLinkedQueue} costs a node and two per note.
     */
    private final AtomicReference<@Nullable Note> notes = new AtomicReference<>();

    private final ConcurrentLinkedQueue<WaitNote> waitNotes = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<SeekRequest> seekRequests = new ConcurrentLinkedQueue<>();
    private volatile boolean paused;
    private volatile boolean sleeping;

    // Poll thread only.
    private final List<SettleCallback> ready = new ArrayList<>();
    private final List<SettleCallback> returnedCallbacks = new ArrayList<>();

    PollInbox(
            Thread pollThread,
            PollWaker waker,
            OwnedPartitions owned,
            OffsetCommitter committer,
            PartitionSeeker seeker,
            SettleCallbacks callbacks,
            boolean broadcast) {
        this.pollThread = pollThread;
        this.waker = waker;
        this.owned = owned;
        this.committer = committer;
        this.seeker = seeker;
        this.callbacks = callbacks;
        this.broadcast = broadcast;
    }

    // ---------------------------------------------------------------- any thread

    void add(Note note) {
        Note top;
        do {
            top = notes.get();
            note.next = top;
        } while (!notes.compareAndSet(top, note));
        wake();
    }

    void waiting(KafkaDelivery delivery, WaitingOffsets.Wait retry) {
        waitNotes.add(new WaitNote(delivery, retry));
        wake();
    }

    void seek(SeekRequest seek) {
        seekRequests.add(seek);
        wake();
    }

    /** From now on nothing is handed out, returned records are not read again, and nothing is committed past them. */
    void pause() {
        paused = true;
        wake();
    }

    boolean paused() {
        return paused;
    }

    /** Wakes the poll thread if it sleeps here, or blocks in a long poll ({@link PollWaker}); after the note is queued. */
    private void wake() {
        if (sleeping) {
            sleeping = false;
            LockSupport.unpark(pollThread);
        }
        waker.wake();
    }

    // ---------------------------------------------------------------- poll thread

    boolean hasSeekRequests() {
        return !seekRequests.isEmpty();
    }

    /** Whether nothing waits to be applied: no note, no wait, no move. */
    boolean isEmpty() {
        return notes.get() == null && waitNotes.isEmpty() && seekRequests.isEmpty();
    }

    /** Fails the moves still asked for: the consumer is closing. */
    void refuseSeeks(String why) {
        for (SeekRequest seek = seekRequests.poll(); seek != null; seek = seekRequests.poll()) {
            seek.done().completeExceptionally(new IllegalStateException(why));
        }
    }

    /**
     * Applies what the other threads handed over: the waits, the settlements, the engine's moves, and the seeks back
     * they call for; waits up to {@code waitNanos} for the first settlement when there is nothing to do. Poll thread.
     */
    void apply(long waitNanos) throws InterruptedException {
        applyWaitNotes();
        Note note = takeNotes();
        if (note == null && waitNanos > 0) {
            // Park until a note comes (the settling thread unparks us only while we sleep: one wake-up per wait).
            sleeping = true;
            if (notes.get() == null && seekRequests.isEmpty() && waitNotes.isEmpty()) {
                LockSupport.parkNanos(this, waitNanos);
            }
            sleeping = false;
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            applyWaitNotes(); // before the notes: a stop returns a waiting record right after reporting its wait
            note = takeNotes();
        }
        long now = note != null ? System.nanoTime() : 0; // one clock read for the lot
        while (note != null) {
            Note next = note.next;
            applyNote(note, now);
            note = next;
        }
        if (!seekRequests.isEmpty()) {
            applySeekRequests();
        }
        if (seeker.hasSeeks()) {
            seeker.applySeeks(paused);
        }
        if (paused) {
            for (PartitionState state : owned.values()) {
                state.takeBlocked(returnedCallbacks);
            }
            callbacks.fail(
                    returnedCallbacks,
                    "an earlier record of its partition went back to the broker, so its offset"
                            + " cannot be committed; it will be delivered again");
        }
        if (!ready.isEmpty()) {
            callbacks.succeed(ready);
        }
    }

    /** Takes every note queued so far, oldest first (the stack reversed); null when there is none. */
    private @Nullable Note takeNotes() {
        Note top = notes.getAndSet(null);
        Note oldest = null;
        while (top != null) {
            Note below = top.next;
            top.next = oldest;
            oldest = top;
            top = below;
        }
        return oldest;
    }

    private void applyWaitNotes() {
        for (WaitNote w = waitNotes.poll(); w != null; w = waitNotes.poll()) {
            KafkaDelivery d = w.delivery();
            if (d.state.isOwned()) {
                d.state.waiting(d.offset(), w.retry().retryCount(), w.retry().notBeforeEpochMs());
                committer.countCompletion(); // commit the wait soon
            }
        }
    }

    private void applyNote(Note note, long nowNanos) {
        KafkaDelivery d = note.delivery();
        PartitionState state = d.state;
        if (!state.isOwned() && state.isMoved()) {
            // A seek moved the partition on: the record is settled (its copies were produced), nothing to commit.
            if (note.failure() != null) {
                note.callback().settled(note.failure());
            } else if (!note.copies().isEmpty() && committer.transactions() instanceof SettlementTransactions tx) {
                tx.addUnconditional(note.copies(), note.callback());
                committer.countCompletion();
            } else {
                ready.add(note.callback());
            }
            return;
        }
        if (!state.isOwned()) {
            callbacks.fail(
                    note.callback(),
                    "partition " + d.partition() + " was revoked before record " + d.deliveryId()
                            + " could be committed; it will be delivered again by its new owner");
            return;
        }
        if (note.done()) {
            if (broadcast) {
                // Nothing is committed for a broadcast subscriber: settled is settled.
                state.complete(d.offset(), null, nowNanos);
                ready.add(note.callback());
            } else if (state.complete(d.offset(), note.callback(), nowNanos)) {
                if (!note.copies().isEmpty() && committer.transactions() instanceof SettlementTransactions tx) {
                    tx.add(d.partition(), d.offset(), note.copies());
                }
                committer.countCompletion();
            } else {
                callbacks.fail(note.callback(), "record " + d.deliveryId() + " was not in flight");
            }
            return;
        }
        state.markReturned(d.offset());
        seeker.readAgain(d.partition(), d.offset());
        if (note.failure() != null) {
            note.callback().settled(note.failure());
        } else {
            ready.add(note.callback());
        }
    }

    /** Carries out the engine's moves. */
    private void applySeekRequests() {
        for (SeekRequest seek = seekRequests.poll(); seek != null; seek = seekRequests.poll()) {
            seeker.move(seek, paused, ready);
        }
    }

    /**
     * Answers the notes that arrived after the last commit: they can no longer be committed here. Any thread, once the
     * poll thread has made its last commit.
     */
    void applyLateNotes() {
        for (Note note = takeNotes(); note != null; note = note.next) {
            if (note.failure() != null) {
                note.callback().settled(note.failure());
            } else if (note.done()) {
                callbacks.fail(
                        note.callback(),
                        "the consumer closed before its offset was committed; it will be delivered again");
            } else {
                note.callback().settled(null);
            }
        }
    }
}
