package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.spi.OutboundMessage;
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
    @DisplayName("a broadcast topic declares no durable queue; its fanout exchange is '{name}-broadcast'")
    void broadcastTopic() {
        Topic<Msg> topic = Topic.builder("prices", Msg.class).broadcast().build();
        assertThat(queues(topic)).isEmpty();
        assertThat(RabbitTopology.broadcastExchange(topic)).isEqualTo("prices-broadcast");
    }

    @Test
    @DisplayName("a broadcast goes to its topic's fanout exchange without mandatory; other messages to their queue,"
            + " mandatory")
    void routes() {
        OutboundMessage message = new OutboundMessage(new byte[0], Map.of(), null, -1, "application/json");
        Topic<Msg> broadcast = Topic.builder("prices", Msg.class).broadcast().build();
        Topic<Msg> plain = Topic.builder("orders", Msg.class).dlq().build();

        assertThat(RabbitMqTransport.routeOf(broadcast, message)).isEqualTo(new Route("prices-broadcast", "", false));
        assertThat(RabbitMqTransport.routeOf(plain, message)).isEqualTo(new Route("", "orders", true));
        assertThat(Route.fanout("prices-broadcast")).hasToString("exchange 'prices-broadcast'");
        assertThat(Route.queue("orders")).hasToString("queue 'orders'");
    }

    @Test
    @DisplayName("a topic without tiers gets its implicit 1 s tier declared like any other")
    void implicitTier() {
        Topic<Msg> topic = Topic.builder("bare", Msg.class).allowMessageLoss().build();
        assertThat(queues(topic)).containsOnlyKeys("bare", "bare-hold-1s");
    }

    @Test
    @DisplayName("quorum queues: every queue typed quorum, hold tiers dead-letter at-least-once with reject-publish")
    void quorumTopic() {
        Topic<Msg> topic = Topic.builder("orders", Msg.class)
                .holdQueue(Duration.ofSeconds(5))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(1)
                .build();
        Map<String, Map<String, Object>> quorum = RabbitTopology.queues(topic, true).stream()
                .collect(Collectors.toMap(
                        RabbitTopology.QueueSpec::name,
                        RabbitTopology.QueueSpec::arguments,
                        (a, b) -> a,
                        java.util.LinkedHashMap::new));
        assertThat(quorum)
                .containsExactly(
                        Map.entry("orders-dlq", Map.of("x-queue-type", "quorum")),
                        Map.entry("orders-seq-0", Map.of("x-queue-type", "quorum", "x-single-active-consumer", true)),
                        Map.entry(
                                "orders-seq-0-hold-5s",
                                Map.of(
                                        "x-queue-type", "quorum",
                                        "x-message-ttl", 5000L,
                                        "x-dead-letter-exchange", "",
                                        "x-dead-letter-routing-key", "orders-seq-0",
                                        "x-dead-letter-strategy", "at-least-once",
                                        "x-overflow", "reject-publish")));
        assertThat(RabbitTopology.queues(topic, false).getFirst().arguments()).isEmpty();
    }
}
