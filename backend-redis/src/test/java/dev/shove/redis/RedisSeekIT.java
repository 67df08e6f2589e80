package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Moving a consumer group on a stream: by a captured entry id, on plain and sequenced topics. */
class RedisSeekIT {
    record Num(String key, int n) {}

    private static RedisTestSupport redis;

    @BeforeAll
    static void redis() {
        redis = RedisTestSupport.connect();
    }

    @AfterAll
    static void cleanUp() {
        if (redis != null) {
            redis.close();
        }
    }

    private static ConsumerGroupConfig seeking() {
        return ConsumerGroupConfig.builder()
                .consumers(1, 1)
                .prefetch(1)
                .seeking()
                .build();
    }

    @Test
    @DisplayName("andSeek(a captured entry id) makes the group read that entry again, then the rest in order")
    void seekToCapturedEntry() {
        Topic<Num> topic = Topic.builder(RedisTestSupport.unique("seek-id"), Num.class)
                .holdQueue(Duration.ofMillis(250))
                .dlq()
                .build();
        List<Integer> seen = new CopyOnWriteArrayList<>();
        AtomicReference<Position> second = new AtomicReference<>();
        AtomicBoolean sought = new AtomicBoolean();
        try (Broker<Redis> broker = Broker.connect(redis.recording(RedisConfig.builder(RedisTestSupport.uri())
                .trim(RedisTrim.maxLen(500))
                .build()))) {
            broker.topology().declare(topic);
            broker.publisher()
                    .publishBatch(
                            topic,
                            List.of(
                                    new Num("a", 0),
                                    new Num("a", 1),
                                    new Num("a", 2),
                                    new Num("a", 3),
                                    new Num("a", 4)));
            var group = broker.consumerGroup();
            group.register(topic, seeking(), () -> (m, meta, ctx) -> {
                seen.add(m.n());
                if (m.n() == 1) {
                    second.compareAndSet(null, meta.position().orElseThrow());
                }
                if (m.n() == 3 && sought.compareAndSet(false, true)) {
                    return Outcome.ack().andSeek(second.get());
                }
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(15)).until(() -> seen.size() >= 8);
            assertThat(seen).containsExactly(0, 1, 2, 3, 1, 2, 3, 4);
            group.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    @DisplayName("on a sequenced topic, andSeek replays the key from the captured entry, in order")
    void sequencedSeek() {
        Topic<Num> topic = Topic.builder(RedisTestSupport.unique("seek-seq"), Num.class)
                .holdQueue(Duration.ofMillis(250))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Num::key)
                .routingShards(1)
                .build();
        List<Integer> seen = new CopyOnWriteArrayList<>();
        AtomicReference<Position> first = new AtomicReference<>();
        AtomicBoolean sought = new AtomicBoolean();
        try (Broker<Redis> broker = Broker.connect(redis.recording(RedisConfig.builder(RedisTestSupport.uri())
                .trim(RedisTrim.maxLen(500))
                .build()))) {
            broker.topology().declare(topic);
            for (int i = 0; i < 4; i++) {
                broker.publisher().publish(topic, new Num("a", i));
            }
            var group = broker.consumerGroup();
            group.register(topic, seeking(), () -> (m, meta, ctx) -> {
                seen.add(m.n());
                if (m.n() == 0) {
                    first.compareAndSet(null, meta.position().orElseThrow());
                }
                if (m.n() == 2 && sought.compareAndSet(false, true)) {
                    return Outcome.ack().andSeek(first.get());
                }
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(15)).until(() -> seen.size() >= 7);
            assertThat(seen).containsExactly(0, 1, 2, 0, 1, 2, 3);
            group.stop(Duration.ofSeconds(5));
        }
    }
}
