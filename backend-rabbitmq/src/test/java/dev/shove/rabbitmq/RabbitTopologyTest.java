package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RabbitTopologyTest {
    record Msg(String key) {}

    private static Map<String, Map<String, Object>> queues(Topic<?> topic) {
        return RabbitTopology.queues(topic).stream()
                .collect(Collectors.toMap(
                        RabbitTopology.QueueSpec::name,
                        RabbitTopology.QueueSpec::arguments,
                        (a, b) -> a,
                        java.util.LinkedHashMap::new));
    }

    @Test
    @DisplayName("a plain topic: main queue and DLQ without arguments, one TTL queue per tier returning to main")
    void plainTopic() {
        Topic<Msg> topic = Topic.builder("orders", Msg.class)
                .holdQueue(Duration.ofMillis(500))
                .holdQueue(Duration.ofSeconds(30))
                .dlq()
                .build();
        assertThat(queues(topic))
                .containsExactly(
                        Map.entry("orders-dlq", Map.of()),
                        Map.entry("orders", Map.of()),
                        Map.entry(
                                "orders-hold-500ms",
                                Map.of(
                                        "x-message-ttl", 500L,
                                        "x-dead-letter-exchange", "",
                                        "x-dead-letter-routing-key", "orders")),
                        Map.entry(
                                "orders-hold-30s",
                                Map.of(
                                        "x-message-ttl", 30_000L,
                                        "x-dead-letter-exchange", "",
                                        "x-dead-letter-routing-key", "orders")));
    }

    @Test
    @DisplayName("a sequenced topic: single-active-consumer shards, each with its own tiers returning to it")
    void sequencedTopic() {
        Topic<Msg> topic = Topic.builder("ledger", Msg.class)
                .holdQueue(Duration.ofSeconds(5))
                .dlq()
                .sequenced(SequenceFailure.FAIL_ALL, Msg::key)
                .routingShards(2)
                .build();
        assertThat(queues(topic))
                .containsExactly(
                        Map.entry("ledger-dlq", Map.of()),
                        Map.entry("ledger-seq-0", Map.of("x-single-active-consumer", true)),
                        Map.entry("ledger-seq-1", Map.of("x-single-active-consumer", true)),
                        Map.entry(
                                "ledger-seq-0-hold-5s",
                                Map.of(
                                        "x-message-ttl", 5_000L,
                                        "x-dead-letter-exchange", "",
                                        "x-dead-letter-routing-key", "ledger-seq-0")),
                        Map.entry(
                                "ledger-seq-1-hold-5s",
                                Map.of(
                                        "x-message-ttl", 5_000L,
                                        "x-dead-letter-exchange", "",
                                        "x-dead-letter-routing-key", "ledger-seq-1")));
    }

    @Test
    @DisplayName("a topic without tiers gets its implicit 1 s tier declared like any other")
    void implicitTier() {
        Topic<Msg> topic = Topic.builder("bare", Msg.class).allowMessageLoss().build();
        assertThat(queues(topic)).containsOnlyKeys("bare", "bare-hold-1s");
    }
}
