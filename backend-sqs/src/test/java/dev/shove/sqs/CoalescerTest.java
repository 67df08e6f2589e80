package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CoalescerTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<List<Integer>> batches = new CopyOnWriteArrayList<>();
    private final Map<Integer, Throwable> results = new ConcurrentHashMap<>();
    private final List<Integer> succeeded = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private Coalescer<Integer> coalescer(Duration linger, Map<Integer, Throwable> failures) {
        return new Coalescer<>(
                batch -> {
                    batches.add(List.copyOf(batch));
                    return CompletableFuture.completedFuture(failures);
                },
                linger.toNanos(),
                timer);
    }

    private void add(Coalescer<Integer> c, int item) {
        c.add(item, failure -> {
            if (failure == null) {
                succeeded.add(item);
            } else {
                results.put(item, failure);
            }
        });
    }

    @Test
    @DisplayName("25 entries within the linger go out as batches of 10, 10 and 5")
    void batchesOfTen() {
        Coalescer<Integer> c = coalescer(Duration.ofMillis(50), Map.of());
        for (int i = 0; i < 25; i++) {
            add(c, i);
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> succeeded.size() == 25);
        assertThat(batches).extracting(List::size).containsExactly(10, 10, 5);
    }

    @Test
    @DisplayName("a lone entry goes out after the linger, without waiting for nine others")
    void lingerFlushes() {
        Coalescer<Integer> c = coalescer(Duration.ofMillis(20), Map.of());
        add(c, 1);

        await().atMost(Duration.ofSeconds(5)).until(() -> succeeded.size() == 1);
        assertThat(batches).containsExactly(List.of(1));
    }

    @Test
    @DisplayName("each entry learns its own result: a failed entry of a batch fails alone")
    void perEntryResults() {
        Coalescer<Integer> c = coalescer(Duration.ofSeconds(10), Map.of(3, new IllegalStateException("refused")));
        for (int i = 0; i < 10; i++) {
            add(c, i);
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> succeeded.size() + results.size() == 10);
        assertThat(results).containsOnlyKeys(3);
        assertThat(succeeded).hasSize(9).doesNotContain(3);
    }

    @Test
    @DisplayName("a failed batch call fails every entry of the batch")
    void failedCall() {
        Coalescer<Integer> c =
                new Coalescer<>(batch -> CompletableFuture.failedFuture(new IllegalStateException("down")), 0, timer);
        add(c, 1);
        add(c, 2);

        assertThat(results).containsOnlyKeys(1, 2);
    }
}
