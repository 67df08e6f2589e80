package dev.shove.sqs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Gathers calls on single messages into SQS batch calls of up to {@value #MAX_BATCH} ({@code DeleteMessageBatch}):
 * a batch is sent as soon as it is full, or {@code linger} after its first entry, whichever comes first. Each entry
 * learns its own result. The batch call is made on the thread that filled the batch, or on the timer's; both only
 * start an asynchronous call.
 *
 * <p>Thread-safe.
 */
final class Coalescer<T> {
    /** SQS's most entries per batch call. */
    static final int MAX_BATCH = 10;

    /**
     * Sends one batch; its result maps the index of each entry that failed to why. A failed future fails every entry.
     */
    interface Sender<T> extends Function<List<T>, CompletableFuture<Map<Integer, Throwable>>> {}

    private record Entry<T>(T item, Consumer<@Nullable Throwable> done) {}

    private final Sender<T> sender;
    private final long lingerNanos;
    private final ScheduledExecutorService timer;
    private List<Entry<T>> pending = new ArrayList<>(MAX_BATCH);
    private @Nullable ScheduledFuture<?> flush;

    Coalescer(Sender<T> sender, long lingerNanos, ScheduledExecutorService timer) {
        this.sender = sender;
        this.lingerNanos = lingerNanos;
        this.timer = timer;
    }

    /** Adds one entry; {@code done} is told once, with null when the call succeeded for it. */
    void add(T item, Consumer<@Nullable Throwable> done) {
        List<Entry<T>> full = null;
        synchronized (this) {
            pending.add(new Entry<>(item, done));
            if (pending.size() >= MAX_BATCH || lingerNanos == 0) {
                full = take();
            } else if (flush == null) {
                try {
                    flush = timer.schedule(this::flush, lingerNanos, TimeUnit.NANOSECONDS);
                } catch (RuntimeException e) {
                    full = take(); // the timer is shut down: send at once rather than never
                }
            }
        }
        if (full != null) {
            send(full);
        }
    }

    /** Sends what is pending now. */
    void flush() {
        List<Entry<T>> batch;
        synchronized (this) {
            batch = take();
        }
        if (!batch.isEmpty()) {
            send(batch);
        }
    }

    private List<Entry<T>> take() {
        List<Entry<T>> batch = pending;
        pending = new ArrayList<>(MAX_BATCH);
        if (flush != null) {
            flush.cancel(false);
            flush = null;
        }
        return batch;
    }

    private void send(List<Entry<T>> batch) {
        List<T> items = new ArrayList<>(batch.size());
        for (Entry<T> e : batch) {
            items.add(e.item());
        }
        CompletableFuture<Map<Integer, Throwable>> call;
        try {
            call = sender.apply(items);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((failures, error) -> {
            for (int i = 0; i < batch.size(); i++) {
                Throwable failure = error != null ? error : failures.get(i);
                batch.get(i).done().accept(failure);
            }
        });
    }
}
