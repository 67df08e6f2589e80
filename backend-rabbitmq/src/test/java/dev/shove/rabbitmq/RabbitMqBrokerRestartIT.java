package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restarts a broker mid-stream ({@code rabbitmqctl stop_app} then {@code start_app}: the node and its durable queues
 * stay, every connection is closed). The broker is a {@link RabbitNode} of this class's own, never the shared one that
 * other suites use. About 20 s on a quiet machine (the node boots in 5-7 s, the test takes 12-15 s), up to 55 s on a
 * busy one (boot 25 s).
 */
class RabbitMqBrokerRestartIT {
    record Payment(int n) {}

    @RegisterExtension
    @Order(1)
    static final RabbitNode node = RabbitNode.plain();

    @RegisterExtension
    @Order(2)
    static final RabbitAdmin admin = new RabbitAdmin(node::config);

    @Test
    @DisplayName("after a broker restart mid-stream the consumers resume by themselves: published = acked + dead")
    void restartMidStream() throws Exception {
        Topic<Payment> topic = Topic.builder(admin.unique("restart"), Payment.class)
                .holdQueue(Duration.ofMillis(500))
                .dlq()
                .build();
        int before = 400;
        int after = 50;
        Set<Integer> acked = ConcurrentHashMap.newKeySet();
        Set<Integer> dead = ConcurrentHashMap.newKeySet();
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger runsAfterRestart = new AtomicInteger();
        CountDownLatch gateReached = new CountDownLatch(1);
        CountDownLatch restarted = new CountDownLatch(1);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        String connectionName = admin.unique("restart-conn");
        try (Broker<RabbitMq> broker = Broker.builder(admin.config(connectionName))
                .meterRegistry(meters)
                .connect()) {
            broker.topology().declare(topic);
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, before).mapToObj(Payment::new).toList());
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder().consumers(2, 2).prefetch(5).build(),
                    () -> new MessageHandler<Payment, NoContext>() {
                        @Override
                        public Outcome handle(Payment p, MessageMetadata meta, NoContext c) throws Exception {
                            runs.incrementAndGet();
                            if (restarted.getCount() == 0) {
                                runsAfterRestart.incrementAndGet();
                            }
                            if (p.n() >= 100 && p.n() < before) {
                                // Hold handlers (and their unacknowledged messages) across the restart.
                                gateReached.countDown();
                                restarted.await(120, TimeUnit.SECONDS);
                            }
                            if (p.n() % 10 == 7) {
                                return Outcome.reject("declined");
                            }
                            if (p.n() % 10 == 3 && meta.retryCount() == 0) {
                                return Outcome.retry();
                            }
                            acked.add(p.n());
                            return Outcome.ack();
                        }

                        @Override
                        public void handleDead(Payment p, DeadMessageMetadata meta, NoContext c) {
                            dead.add(p.n());
                        }
                    });
            group.start();
            assertThat(gateReached.await(60, TimeUnit.SECONDS)).isTrue();

            node.stopApp();
            try {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> !broker.unwrap(RabbitMqTransport.class)
                                .orElseThrow()
                                .isConnected());
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> !broker.connection().connected());
                assertThat(group.health().isReady())
                        .as("not ready while the connection is down")
                        .isFalse();
                assertThat(group.health().isLive())
                        .as("alive while it reconnects")
                        .isTrue();
            } finally {
                node.startApp();
            }
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            broker.unwrap(RabbitMqTransport.class).orElseThrow().isConnected());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> broker.connection().connected());
            assertThat(group.health().isReady())
                    .as("ready again once the connection is back")
                    .isTrue();
            restarted.countDown();

            // Publishing works again too.
            await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .untilAsserted(() -> broker.publisher()
                            .publishBatch(
                                    topic,
                                    IntStream.range(before, before + after)
                                            .mapToObj(Payment::new)
                                            .toList()));

            Set<Integer> published = new HashSet<>();
            IntStream.range(0, before + after).forEach(published::add);
            await().atMost(Duration.ofSeconds(120)).until(() -> acked.size() + dead.size() == published.size());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> admin.depth(topic.name()) == 0
                            && admin.depth(topic.holdTiers().getFirst().queue()) == 0);
            group.stop(Duration.ofSeconds(10));

            Set<Integer> accounted = new HashSet<>(acked);
            accounted.addAll(dead);
            assertThat(accounted).as("nothing lost").isEqualTo(published);
            assertThat(acked).as("nothing both acked and dead").doesNotContainAnyElementsOf(dead);
            assertThat(dead).hasSize(published.size() / 10);
            // kept after handleDead; a message redelivered by the restart before it was settled may die twice
            assertThat(admin.depth(topic.dlq().orElseThrow())).isGreaterThanOrEqualTo(dead.size());
            assertThat(runsAfterRestart.get())
                    .as("the consumers resumed by themselves")
                    .isPositive();
            assertThat(meters.get("shove.backend.errors")
                            .tags("backend", "rabbitmq", "kind", "connection")
                            .counter()
                            .count())
                    .isGreaterThanOrEqualTo(1);
        }
    }
}
