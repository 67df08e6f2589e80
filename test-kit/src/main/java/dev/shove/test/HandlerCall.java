package dev.shove.test;

import dev.shove.Outcome;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One call of a handler on one message, as the kit recorded it around the handler of a group made through {@link
 * ShoveKit#consumerGroup()}: the retry count the message carried, and what the call returned or threw. For a batch
 * handler, each message of the batch has a call of its own with the batch's outcome for it. Immutable once the call
 * has finished; thread-safe.
 *
 * @since 0.1.0
 */
public final class HandlerCall {
    private final int retryCount;
    private final String deliveryId;
    private final boolean batch;
    private volatile @Nullable Outcome outcome;
    private volatile @Nullable Throwable exception;
    private volatile boolean finished;

    HandlerCall(int retryCount, String deliveryId, boolean batch) {
        this.retryCount = retryCount;
        this.deliveryId = Objects.requireNonNull(deliveryId, "deliveryId");
        this.batch = batch;
    }

    /** {@return the message's retry count during this call (0 on its first delivery)} */
    public int retryCount() {
        return retryCount;
    }

    /** {@return the broker's identifier of the delivery the call handled} */
    public String deliveryId() {
        return deliveryId;
    }

    /** {@return whether a batch handler made this call (its outcome is the batch's outcome for this message)} */
    public boolean batch() {
        return batch;
    }

    /** {@return whether the call has returned or thrown} */
    public boolean finished() {
        return finished;
    }

    /**
     * {@return what the call returned (after every interceptor of the group); empty while it runs, and when it threw}
     * The engine turns it into a settlement: see the journey's steps for what happened next.
     */
    public Optional<Outcome> outcome() {
        return Optional.ofNullable(outcome);
    }

    /** {@return what the call threw (the engine then retries, or applies the registration's outcome for it)} */
    public Optional<Throwable> exception() {
        return Optional.ofNullable(exception);
    }

    void returned(Outcome result) {
        this.outcome = result;
        this.finished = true;
    }

    void threw(Throwable error) {
        this.exception = error;
        this.finished = true;
    }

    /** What the call did, in a few words: {@code returned retry}, {@code threw java.io.IOException: down}. */
    String result() {
        Outcome o = outcome;
        Throwable e = exception;
        if (o != null) {
            return "returned " + o;
        }
        if (e != null) {
            return "threw " + e;
        }
        return "still running";
    }

    @Override
    public String toString() {
        return (batch ? "batch handler" : "handler") + " (retryCount " + retryCount + ", delivery " + deliveryId + ") "
                + result();
    }
}
