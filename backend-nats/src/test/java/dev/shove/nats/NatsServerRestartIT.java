package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveException;
import dev.shove.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kills the NATS server with SIGKILL in the middle of a stream and starts it again on the same store: a server of this
 * test's own ({@link NatsTestSupport.OwnServer}, on a port of its choosing), never the shared one. The application does
 * nothing: its connection reconnects, its consumers pull again, and every message published (and acknowledged by the
 * server) is handled.
 */
class NatsServerRestartIT {
    record Msg(String key, int n) {}

    private static final int MESSAGES = 200;

    private NatsTestSupport.OwnServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new NatsTestSupport.OwnServer().start();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    @Test
    @DisplayName("a server killed -9 and started again mid-stream loses nothing, and consumers of a plain and a"
            + " sequenced topic resume by themselves, the sequenced one in key order")
    void restartLosesNothing() throws Exception {
        Topic<Msg> plain = Topic.builder("restart-plain", Msg.class)
                .holdQueue(Duration.ofMillis(500))
                .dlq()
                .build();
        Topic<Msg> sequenced = Topic.builder("restart-seq", Msg.class)
                .holdQueue(Duration.ofMillis(500))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        NatsConfig config = NatsConfig.builder(server.url())
                .ackWait(Duration.ofSeconds(2))
                .shardLease(Duration.ofSeconds(2))
                .reconnectWait(Duration.ofMillis(250))
                .apiTimeout(Duration.ofSeconds(2))
                .build();
        Set<Integer> plainSeen = ConcurrentHashMap.newKeySet();
        Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
        try (Broker<Nats> broker = Broker.connect(config)) {
            broker.topology().declareAll(plain, sequenced);
            var group = broker.consumerGroup();
            group.register(plain, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                Thread.sleep(2);
                plainSeen.add(m.n());
                return Outcome.ack();
            });
            group.register(sequenced, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                Thread.sleep(2);
                byKey.computeIfAbsent(m.key(), k -> new CopyOnWriteArrayList<>())
                        .add(m.n());
                return Outcome.ack();
            });
            group.start();

            publish(broker, plain, sequenced, 0, MESSAGES / 2);
            await().atMost(Duration.ofSeconds(30)).until(() -> plainSeen.size() >= MESSAGES / 4);

            server.kill();
            server.start();

            publish(broker, plain, sequenced, MESSAGES / 2, MESSAGES);
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> plainSeen.size() == MESSAGES
                            && byKey.values().stream()
                                            .mapToLong(
                                                    l -> l.stream().distinct().count())
                                            .sum()
                                    == MESSAGES);
            group.stop(Duration.ofSeconds(10));
        }
        for (Map.Entry<String, List<Integer>> e : byKey.entrySet()) {
            List<Integer> firsts =
                    new ArrayList<>(e.getValue().stream().distinct().toList());
            assertThat(firsts).as("key %s in publish order", e.getKey()).isSorted();
        }
    }

    /** Publishes messages {@code from..to-1} to both topics, each until the server took it (it may be down). */
    private static void publish(Broker<Nats> broker, Topic<Msg> plain, Topic<Msg> sequenced, int from, int to)
            throws InterruptedException {
        for (int n = from; n < to; n++) {
            Msg m = new Msg("k" + n % 7, n);
            for (Topic<Msg> topic : List.of(plain, sequenced)) {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (true) {
                    try {
                        broker.publisher().publish(topic, m);
                        break;
                    } catch (ShoveException e) {
                        if (System.nanoTime() > deadline) {
                            throw e;
                        }
                        Thread.sleep(100);
                    }
                }
            }
        }
    }
}
