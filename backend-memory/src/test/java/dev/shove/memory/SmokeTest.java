package dev.shove.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SmokeTest {
    record Msg(int n, String key) {}

    @Test
    void retriesThenDeadLetters() {
        Topic<Msg> topic = Topic.builder("smoke", Msg.class)
                .holdQueue(Duration.ofMillis(100))
                .dlq()
                .build();
        List<String> seen = new CopyOnWriteArrayList<>();
        List<String> dead = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.of(InMemoryConsumerGroupConfig.of(1, 1).withMaxRetries(2)),
                    () -> new MessageHandler<Msg, NoContext>() {
                        @Override
                        public Outcome handle(Msg m, MessageMetadata meta, NoContext c) {
                            seen.add(m.n() + "@" + meta.retryCount());
                            return m.n() == 0 ? Outcome.ack() : Outcome.retry();
                        }

                        @Override
                        public void handleDead(Msg m, DeadMessageMetadata meta, NoContext c) {
                            dead.add(m.n() + ":" + meta.reason() + ":"
                                    + meta.message().retryCount());
                        }
                    });
            group.start();
            broker.publisher().publish(topic, new Msg(0, "a"));
            broker.publisher().publish(topic, new Msg(1, "a"));
            await().atMost(Duration.ofSeconds(5)).until(() -> dead.size() == 1);
            SupervisorOutcome outcome = group.stop(Duration.ofSeconds(5));
            assertThat(outcome.exitCode()).isZero();
        }
        assertThat(seen).containsExactlyInAnyOrder("0@0", "1@0", "1@1", "1@2");
        assertThat(dead).containsExactly("1:max-retries-exceeded:2");
    }

    @Test
    void sequencedKeepsOrderAcrossRetries() {
        Topic<Msg> topic = Topic.builder("smoke-seq", Msg.class)
                .holdQueue(Duration.ofMillis(50))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.of(InMemoryConsumerGroupConfig.of(1, 1)), () -> (m, meta, c) -> {
                if (m.n() == 3 && meta.retryCount() == 0) {
                    return Outcome.retry();
                }
                seen.add(m.key() + m.n());
                return Outcome.ack();
            });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, 10)
                                    .mapToObj(i -> new Msg(i, i % 2 == 0 ? "a" : "b"))
                                    .toList());
            await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 10);
            assertThat(group.stop(Duration.ofSeconds(5)).isClean()).isTrue();
        }
        assertThat(seen.stream().filter(s -> s.startsWith("b")).toList()).containsExactly("b1", "b3", "b5", "b7", "b9");
        assertThat(seen.stream().filter(s -> s.startsWith("a")).toList()).containsExactly("a0", "a2", "a4", "a6", "a8");
    }
}
