package dev.shove.benchmarks;

import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.redis.Redis;
import dev.shove.redis.RedisConfig;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@link LatencyBenchmark} on Redis Streams. The raw consumer is lettuce (the client shove uses) on a connection of
 * its own, on a platform thread: {@code XREADGROUP COUNT prefetch BLOCK 1000} of a consumer group of its own created
 * at the start of the stream, each entry's payload decoded and handled, then one {@code XACK} for the whole read: the
 * best raw mode of the throughput harness.
 */
final class RedisLatency implements LatencyBenchmark.Backend {
    private static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    private final Broker<Redis> broker;
    private final RedisClient client;

    RedisLatency(String uri) {
        this.broker = Broker.connect(RedisConfig.of(uri));
        this.client = RedisClient.create(uri);
    }

    @Override
    public Broker<?> broker() {
        return broker;
    }

    @Override
    public String rawLabel() {
        return "raw lettuce XREADGROUP BLOCK, one XACK per read";
    }

    @Override
    @SuppressWarnings("unchecked") // XREADGROUP's varargs of stream offsets
    public LatencyBenchmark.Lane raw(Topic<LatencyBenchmark.Msg> topic, int prefetch, LatencyBenchmark.Sink sink) {
        String stream = "shove:{" + topic.name() + "}";
        String group = "latency-raw";
        StatefulRedisConnection<String, byte[]> connection = client.connect(CODEC);
        RedisCommands<String, byte[]> redis = connection.sync();
        redis.xgroupCreate(XReadArgs.StreamOffset.from(stream, "0"), group, new XGroupCreateArgs());
        Consumer<String> consumer = Consumer.from(group, "raw-1");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = Thread.ofPlatform()
                .name("latency-raw-xreadgroup-" + topic.name())
                .daemon()
                .start(() -> {
                    try {
                        while (running.get()) {
                            List<StreamMessage<String, byte[]>> read = redis.xreadgroup(
                                    consumer,
                                    XReadArgs.Builder.count(prefetch).block(1000),
                                    XReadArgs.StreamOffset.lastConsumed(stream));
                            if (read.isEmpty()) {
                                continue;
                            }
                            String[] ids = new String[read.size()];
                            for (int i = 0; i < ids.length; i++) {
                                StreamMessage<String, byte[]> m = read.get(i);
                                sink.handle(m.getBody().get("shove-payload"));
                                ids[i] = m.getId();
                            }
                            redis.xack(stream, group, ids);
                        }
                    } catch (RuntimeException e) {
                        failure.set(e);
                    }
                });
        return LatencyBenchmark.published(broker, topic, () -> {
            running.set(false);
            try {
                if (!reader.join(Duration.ofSeconds(10))) {
                    throw new IllegalStateException("the raw consumer of stream '" + stream + "' did not stop in 10 s");
                }
                if (failure.get() != null) {
                    throw new IllegalStateException(
                            "the raw consumer of stream '" + stream + "' failed: " + failure.get(), failure.get());
                }
            } finally {
                connection.close();
            }
        });
    }

    @Override
    public void delete(Topic<LatencyBenchmark.Msg> topic) {
        try (StatefulRedisConnection<String, byte[]> connection = client.connect(CODEC)) {
            RedisCommands<String, byte[]> redis = connection.sync();
            List<String> keys = new ArrayList<>();
            // the topic's keys share its hash tag: the stream, its meta hash, hold tier and dead-letter stream
            ScanIterator.scan(
                            redis,
                            ScanArgs.Builder.matches("shove:{" + topic.name() + "}*")
                                    .limit(1000))
                    .forEachRemaining(keys::add);
            LatencyBenchmark.deleteAll("Redis keys", keys, key -> redis.del(key));
        } catch (RuntimeException e) {
            System.err.println("could not delete the Redis keys of topic '" + topic.name() + "': " + e);
        }
    }

    @Override
    public void close() {
        try {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } finally {
            broker.close();
        }
    }
}
