package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Failures short of a broker restart: a consumer killed mid-handler, broker-side channel errors, a vanished DLQ. */
class RabbitMqResilienceIT {
    record Task(String id) {}

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    private static Topic<Task> topic(String prefix) {
        return Topic.builder(admin.unique(prefix), Task.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
    }

    @Test
    @DisplayName("a consumer killed mid-handler: its message is redelivered (flagged) to another consumer and acked")
    void consumerKilledMidHandler() throws Exception {
        Topic<Task> topic = topic("killed");
        String victimName = admin.unique("victim");
        CountDownLatch victimStarted = new CountDownLatch(1);
        CountDownLatch victimRelease = new CountDownLatch(1);
        List<MessageMetadata> survivorSaw = new CopyOnWriteArrayList<>();
        // The victim reconnects only after a minute: to the broker it is a dead process.
        try (Broker<RabbitMq> victim = admin.connect(admin.config(victimName).toBuilder()
                        .recoveryInterval(Duration.ofMinutes(1))
                        .build());
                Broker<RabbitMq> survivor = admin.connect("survivor")) {
            victim.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> victimGroup = victim.consumerGroup();
            victimGroup.register(
                    topic, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                        victimStarted.countDown();
                        victimRelease.await();
                        return Outcome.ack();
                    });
            victimGroup.start();
            victim.publisher().publish(topic, new Task("t-1"));
            victimStarted.await();

            ConsumerGroup<RabbitMq, NoContext> survivorGroup = survivor.consumerGroup();
            survivorGroup.register(
                    topic, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                        survivorSaw.add(meta);
                        return Outcome.ack();
                    });
            survivorGroup.start();
            assertThat(survivorSaw)
                    .as("the message is the victim's while it lives")
                    .isEmpty();

            await().atMost(Duration.ofSeconds(20)).until(() -> admin.killConnection(victimName) == 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> survivorSaw.size() == 1);
            assertThat(survivorSaw.getFirst().redelivered()).isTrue();

            victimRelease.countDown(); // the victim's handler finishes late; its ack must not count
            victimGroup.stop(Duration.ofSeconds(5));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> survivor.unwrap(RabbitMqTransport.class)
                            .orElseThrow()
                            .stats(topic)
                            .equals(new dev.shove.spi.QueueStats(0, 0, 0)));
            assertThat(survivorGroup.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(survivorSaw).hasSize(1);
        assertThat(admin.depth(topic.name())).isZero();
    }

    @Test
    @DisplayName("transactional: a channel the broker closes (its DLQ deleted) is reported with the reason and queue")
    void channelClosedByBrokerIsReported() throws Exception {
        Topic<Task> topic = topic("chanerr");
        AtomicInteger handled = new AtomicInteger();
        SupervisorOutcome outcome;
        try (Broker<RabbitMq> broker = admin.connect(admin.config(admin.unique("chanerr")).toBuilder()
                .transactionalSettlement()
                .build())) {
            broker.topology().declare(topic);
            admin.deleteQueue(topic.dlq().orElseThrow());
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                        handled.incrementAndGet();
                        return Outcome.reject("no");
                    });
            // register declared the topic again: take the DLQ away once more before any message is handled
            admin.deleteQueue(topic.dlq().orElseThrow());
            group.start();
            broker.publisher().publish(topic, new Task("t-2"));
            await().atMost(Duration.ofSeconds(20)).until(() -> group.activeConsumers(topic) == 0);
            outcome = group.stop(Duration.ofSeconds(5));
        }
        assertThat(handled).hasValue(1);
        assertThat(outcome.errors()).isEqualTo(1);
        assertThat(outcome.exitCode()).isEqualTo(1);
        assertThat(admin.depth(topic.name())).as("the message was not lost").isEqualTo(1);
    }

    @Test
    @DisplayName(
            "with confirms: a dead letter whose DLQ was deleted is not lost; it stays queued until the DLQ is back")
    void deadLetterWithoutDlqIsKept() throws Exception {
        Topic<Task> topic = topic("nodlq");
        AtomicInteger handled = new AtomicInteger();
        try (Broker<RabbitMq> broker = admin.connect("nodlq")) {
            broker.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                        handled.incrementAndGet();
                        return Outcome.reject("no");
                    });
            admin.deleteQueue(topic.dlq().orElseThrow());
            group.start();
            broker.publisher().publish(topic, new Task("t-3"));
            await().atMost(Duration.ofSeconds(20)).until(() -> handled.get() >= 2);
            assertThat(admin.exists(topic.dlq().orElseThrow())).isFalse();
            broker.topology().declare(topic); // the operator restores the DLQ
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> admin.depth(topic.dlq().orElseThrow()) == 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> admin.depth(topic.name()) == 0);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(admin.depth(topic.dlq().orElseThrow())).isEqualTo(1);
    }

    @Test
    @DisplayName("a publish made while the connection is down is retried with backoff and succeeds once it recovers")
    void publishRetriesAcrossConnectionLoss() throws Exception {
        Topic<Task> topic = topic("pubretry");
        String name = admin.unique("pubretry");
        try (Broker<RabbitMq> broker = admin.connect(admin.config(name).toBuilder()
                .publishAttempts(30)
                .recoveryInterval(Duration.ofSeconds(2))
                .build())) {
            broker.topology().declare(topic);
            broker.publisher().publish(topic, new Task("before"));
            RabbitMqTransport transport = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            await().atMost(Duration.ofSeconds(20)).until(() -> admin.killConnection(name) == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> !transport.isConnected());

            broker.publisher().publish(topic, new Task("during")); // blocks through the outage, then succeeds

            assertThat(transport.isConnected()).isTrue();
        }
        assertThat(admin.drain(topic.name()))
                .extracting(r -> new String(r.getBody(), java.nio.charset.StandardCharsets.UTF_8))
                .contains("{\"id\":\"before\"}", "{\"id\":\"during\"}");
    }
}
