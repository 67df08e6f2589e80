package dev.shove.benchmarks;

import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;

/**
 * {@link LatencyBenchmark} in memory. The raw mode is a hand-off between two threads: the publisher encodes each
 * message to JSON and puts the bytes into an {@link ArrayBlockingQueue} of the in-memory broker's capacity; one
 * platform thread takes them and decodes each. shove's mode is the in-memory broker.
 */
final class MemoryLatency implements LatencyBenchmark.Backend {
    private final Broker<InMemory> broker =
            Broker.connect(InMemoryConfig.builder().build());

    @Override
    public Broker<?> broker() {
        return broker;
    }

    @Override
    public String rawLabel() {
        return "raw ArrayBlockingQueue hand-off of the JSON bytes to a platform thread";
    }

    @Override
    public LatencyBenchmark.Lane raw(Topic<LatencyBenchmark.Msg> topic, int prefetch, LatencyBenchmark.Sink sink) {
        ArrayBlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(InMemoryConfig.DEFAULT_CAPACITY);
        Thread consumer = Thread.ofPlatform()
                .name("latency-raw-" + topic.name())
                .daemon()
                .start(() -> {
                    try {
                        while (true) {
                            sink.handle(queue.take());
                        }
                    } catch (InterruptedException e) {
                        // stopped
                    }
                });
        return new LatencyBenchmark.Lane() {
            @Override
            public CompletableFuture<?> send(LatencyBenchmark.Msg message) throws Exception {
                queue.put(LatencyBenchmark.JSON.writeValueAsBytes(message));
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public void close() {
                consumer.interrupt();
                try {
                    if (!consumer.join(Duration.ofSeconds(10))) {
                        throw new IllegalStateException(
                                "the raw consumer of " + topic.name() + " did not stop in 10 s");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while stopping the raw consumer", e);
                }
            }
        };
    }

    @Override
    public void delete(Topic<LatencyBenchmark.Msg> topic) {
        // the broker goes with the process
    }

    @Override
    public void close() {
        broker.close();
    }
}
