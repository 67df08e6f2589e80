package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kills and restarts a Redis of the test's own (port {@value #PORT} or one of the next four, AOF with {@code appendfsync always}) while
 * messages are being published, retried and consumed: every message whose publish Redis confirmed is handled, and the
 * consumers resume on their own once Redis is back.
 */
class RedisRestartIT {
    private static final int PORT = 56390;

    record Msg(int n) {}

    @Test
    @DisplayName("a redis-server killed and restarted mid-stream (AOF, appendfsync always) loses no confirmed message,"
            + " and the consumers resume on their own")
    void restartMidStreamLosesNothing() throws Exception {
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort(
                PORT, 5, false, port -> new String[] {"--appendonly", "yes", "--appendfsync", "always"})) {
            Topic<Msg> topic = Topic.builder(RedisTestSupport.unique("restart"), Msg.class)
                    .holdQueue(Duration.ofMillis(500))
                    .dlq()
                    .build();
            RedisConfig config = RedisConfig.builder("redis://127.0.0.1:" + server.port())
                    .responseTimeout(Duration.ofSeconds(3))
                    .blockTimeout(Duration.ofMillis(500))
                    .leaseRenewal(Duration.ofMillis(500))
                    .claimIdle(Duration.ofSeconds(2))
                    .build();
            Set<Integer> confirmed = ConcurrentHashMap.newKeySet();
            Set<Integer> handled = ConcurrentHashMap.newKeySet();
            AtomicInteger retried = new AtomicInteger();
            try (Broker<Redis> broker = Broker.connect(config)) {
                broker.topology().declare(topic);
                var group = broker.consumerGroup();
                group.register(topic, ConsumerGroupConfig.of(2, 2), () -> (m, meta, c) -> {
                    if (m.n() % 10 == 0 && meta.retryCount() == 0) {
                        retried.incrementAndGet();
                        return Outcome.retry(); // some messages go through the hold tier across the restart
                    }
                    handled.add(m.n());
                    return Outcome.ack();
                });
                group.start();
                AtomicBoolean publishing = new AtomicBoolean(true);
                Thread publisher = Thread.ofVirtual().start(() -> {
                    for (int n = 0; publishing.get(); n++) {
                        try {
                            broker.publisher().publish(topic, new Msg(n));
                            confirmed.add(n);
                        } catch (RuntimeException e) {
                            // Redis is down: this one was not confirmed
                        }
                        try {
                            Thread.sleep(2);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });
                await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() >= 200);
                server.kill();
                server.restart();
                int atRestart = confirmed.size();
                await().atMost(Duration.ofSeconds(60)).until(() -> confirmed.size() >= atRestart + 200);
                publishing.set(false);
                publisher.join();
                await().atMost(Duration.ofSeconds(90)).until(() -> handled.containsAll(confirmed));
                assertThat(retried.get()).isPositive();
                assertThat(group.stop(Duration.ofSeconds(10)).exitCode()).isZero();
            }
        }
    }
}
