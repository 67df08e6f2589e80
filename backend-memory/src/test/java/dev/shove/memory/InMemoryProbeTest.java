package dev.shove.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class InMemoryProbeTest {
    record Order(String id) {}

    private static final Topic<Order> ORDERS = Topic.builder("orders", Order.class)
            .holdQueue(Duration.ofMillis(100))
            .dlq()
            .build();

    @Test
    @DisplayName("inject puts raw bytes with shove- headers on a queue: the handler sees the injected retry count")
    void injectWithShoveHeaders() {
        List<Integer> retryCounts = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup();
            group.register(ORDERS, () -> (order, meta, ctx) -> {
                retryCounts.add(meta.retryCount());
                return Outcome.ack();
            });
            group.start();
            InMemoryProbe.of(broker)
                    .inject(
                            ORDERS,
                            "{\"id\":\"o-1\"}".getBytes(StandardCharsets.UTF_8),
                            Map.of(ShoveHeaders.RETRY_COUNT, "2"));
            InMemoryProbe.of(broker).awaitIdle(Duration.ofSeconds(5));
        }
        assertThat(retryCounts).containsExactly(2);
    }

    @Test
    @DisplayName("rawDeadLetters pairs each dead letter's bytes with its headers, even when they do not decode")
    void rawDeadLetters() {
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup();
            group.register(
                    ORDERS,
                    ConsumerGroupConfig.builder().noDeadLetterConsumer().build(),
                    () -> (order, meta, ctx) -> Outcome.ack());
            group.start();
            InMemoryProbe probe = InMemoryProbe.of(broker);
            probe.inject(ORDERS, "not json".getBytes(StandardCharsets.UTF_8), Map.of("tenant", "acme"));
            probe.awaitIdle(Duration.ofSeconds(5));

            List<InMemoryProbe.RawMessage> dead = probe.rawDeadLetters(ORDERS);
            assertThat(dead).hasSize(1);
            assertThat(new String(dead.getFirst().payload(), StandardCharsets.UTF_8))
                    .isEqualTo("not json");
            assertThat(dead.getFirst().headers())
                    .containsEntry("tenant", "acme")
                    .hasEntrySatisfying(
                            ShoveHeaders.DEATH_REASON, r -> assertThat(r).startsWith("decode-failed"));
        }
    }
}
