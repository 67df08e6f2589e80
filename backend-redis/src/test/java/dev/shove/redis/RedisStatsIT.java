package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Transport;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A topic's backlog as one consumer group sees it on Redis: its lag, its pending entries and the held retries. */
class RedisStatsIT {
    record Msg(int n) {}

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

    @Test
    @DisplayName("retries waiting in a hold tier show as held (ZCARD of the tier), not as ready or in flight")
    void heldRetries() {
        String name = RedisTestSupport.unique("stats-held");
        redis.forget(name);
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMinutes(5))
                .dlq()
                .build();
        try (Broker<Redis> broker = Broker.connect(redis.recording(RedisConfig.of(RedisTestSupport.uri())))) {
            broker.topology().declare(topic);
            Transport transport = broker.unwrap(Transport.class).orElseThrow();
            for (int i = 0; i < 3; i++) {
                broker.publisher().publish(topic, new Msg(i));
            }
            assertThat(transport.stats(topic, "billing")).isEqualTo(new QueueStats(0, 0, 0)); // no such group yet

            ConsumerGroup<Redis, NoContext> group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder().groupName("billing").build(),
                    () -> (msg, meta, ctx) -> Outcome.retry());
            group.start();
            try {
                await().atMost(Duration.ofSeconds(15))
                        .until(() -> transport.stats(topic, "billing").equals(new QueueStats(0, 0, 3)));
                assertThat(redis.redis()
                                .zcard("shove:{" + name + "}:"
                                        + topic.holdTiers().getFirst().queue()))
                        .isEqualTo(3);
            } finally {
                group.close();
            }
        }
    }
}
