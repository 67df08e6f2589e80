package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConnectionHealth;
import dev.shove.Outcome;
import dev.shove.ShoveException;
import dev.shove.Topic;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The emulator restarted under a running broker (an emulator of this test's own, on port 54566): publishes fail while
 * it is away, and once it is back (and the topic declared again: the emulator keeps nothing across a restart)
 * publishing and the running consumer carry on with the same broker, and every message the emulator took is handled.
 * Meanwhile the connection's health says it is lost, and up again once the emulator answers.
 */
class SqsEmulatorRestartIT {
    private static final int PORT = 54566;
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs(); // the shared one proves the installation is there
    }

    @Test
    @DisplayName("after the emulator restarts, the same broker publishes again and its running consumer receives what"
            + " the emulator took")
    void recoversAfterRestart() throws Exception {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("restart"), String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        try (SqsTestSupport.OwnEmulator emulator = new SqsTestSupport.OwnEmulator(PORT);
                Broker<Sqs> broker = Broker.connect(SqsTestSupport.config(emulator.endpoint()))) {
            Set<String> handled = ConcurrentHashMap.newKeySet();
            var group = broker.consumerGroup();
            group.register(topic, () -> (m, meta, c) -> {
                handled.add(m);
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, "before");
            await().atMost(PATIENCE).until(() -> handled.contains("before"));

            emulator.kill();
            List<String> failed = new CopyOnWriteArrayList<>();
            try {
                broker.publisher().publish(topic, "while-away");
            } catch (ShoveException e) {
                failed.add(e.getClass().getSimpleName() + (e.isRetriable() ? " (retriable)" : ""));
            }
            assertThat(failed).containsExactly("PublishException (retriable)");

            emulator.start();
            broker.topology().declare(topic); // the emulator lost it
            for (int i = 0; i < 20; i++) {
                broker.publisher().publish(topic, "after-" + i);
            }

            await().atMost(PATIENCE).until(() -> handled.size() == 21);
            assertThat(handled).doesNotContain("while-away");
            assertThat(group.stop(Duration.ofSeconds(5)).exitCode()).isZero();
        }
    }

    @Test
    @DisplayName("while the emulator is away the group's health reports the connection lost and not ready; once it"
            + " answers again, up and ready")
    void healthFollowsTheEmulator() throws Exception {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("health"), String.class)
                .dlq()
                .build();
        try (SqsTestSupport.OwnEmulator emulator = new SqsTestSupport.OwnEmulator(PORT);
                Broker<Sqs> broker = Broker.connect(SqsTestSupport.config(emulator.endpoint()))) {
            var group = broker.consumerGroup();
            group.register(topic, () -> (m, meta, c) -> Outcome.ack());
            group.start();
            await().atMost(PATIENCE).until(() -> group.health().isReady());
            Instant beforeKill = Instant.now();

            emulator.kill();

            await().atMost(PATIENCE).until(() -> !group.health().connection().connected());
            ConnectionHealth lost = broker.connection();
            assertThat(lost.connected()).isFalse();
            assertThat(lost.since()).isAfterOrEqualTo(beforeKill);
            assertThat(lost.detail()).contains("SQS at " + emulator.endpoint() + " cannot be reached");
            assertThat(group.health().isReady()).isFalse();

            emulator.start();

            // the running consumer's next receive gets an answer (the queue is gone with the emulator's state)
            await().atMost(PATIENCE).until(() -> group.health().connection().connected());
            assertThat(broker.connection().since()).isAfter(lost.since());
            broker.topology().declare(topic);
            await().atMost(PATIENCE).until(() -> group.health().isReady());
            group.stop(Duration.ofSeconds(5));
        }
    }
}
