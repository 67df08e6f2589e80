package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.PublishException;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.TopologyException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The objects {@code declare} creates on a real broker, read back through the management API, and its refusals. */
class RabbitMqTopologyIT {
    record Msg(String key) {}

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    private static Broker<RabbitMq> broker;

    @BeforeAll
    static void connect() {
        broker = admin.connect(admin.config("shove-it-topology"));
    }

    private static void assertQueue(String name, Map<String, Object> arguments) throws Exception {
        JsonNode info = admin.queueInfo(name);
        assertThat(info.path("durable").asBoolean()).as("%s is durable", name).isTrue();
        assertThat(info.path("auto_delete").asBoolean())
                .as("%s is not auto-delete", name)
                .isFalse();
        assertThat(info.path("exclusive").asBoolean())
                .as("%s is not exclusive", name)
                .isFalse();
        JsonNode args = info.path("arguments");
        assertThat(args.size()).as("arguments of %s: %s", name, args).isEqualTo(arguments.size());
        for (Map.Entry<String, Object> a : arguments.entrySet()) {
            assertThat(args.path(a.getKey()).asText())
                    .as("%s of %s", a.getKey(), name)
                    .isEqualTo(String.valueOf(a.getValue()));
        }
    }

    @Test
    @DisplayName("a plain topic declares its durable main queue, one TTL hold queue per tier back to main, and the DLQ")
    void plainTopic() throws Exception {
        String name = admin.unique("plain");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(500))
                .holdQueue(Duration.ofSeconds(30))
                .dlq()
                .build();
        broker.topology().declare(topic);
        broker.topology().declare(topic); // idempotent
        assertThat(admin.queuesStartingWith(name))
                .containsExactlyInAnyOrder(name, name + "-hold-500ms", name + "-hold-30s", name + "-dlq");
        assertQueue(name, Map.of());
        assertQueue(name + "-dlq", Map.of());
        assertQueue(
                name + "-hold-500ms",
                Map.of("x-message-ttl", 500, "x-dead-letter-exchange", "", "x-dead-letter-routing-key", name));
        assertQueue(
                name + "-hold-30s",
                Map.of("x-message-ttl", 30000, "x-dead-letter-exchange", "", "x-dead-letter-routing-key", name));
    }

    @Test
    @DisplayName("a sequenced topic declares single-active-consumer shards, each with its own tiers, and the DLQ")
    void sequencedTopic() throws Exception {
        String name = admin.unique("seq");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(2))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(3)
                .build();
        broker.topology().declare(topic);
        assertThat(admin.queuesStartingWith(name))
                .containsExactlyInAnyOrder(
                        name + "-seq-0",
                        name + "-seq-1",
                        name + "-seq-2",
                        name + "-seq-0-hold-2s",
                        name + "-seq-1-hold-2s",
                        name + "-seq-2-hold-2s",
                        name + "-dlq");
        for (int i = 0; i < 3; i++) {
            assertQueue(name + "-seq-" + i, Map.of("x-single-active-consumer", true));
            assertQueue(
                    name + "-seq-" + i + "-hold-2s",
                    Map.of(
                            "x-message-ttl",
                            2000,
                            "x-dead-letter-exchange",
                            "",
                            "x-dead-letter-routing-key",
                            name + "-seq-" + i));
        }
    }

    @Test
    @DisplayName(
            "with quorumQueues() every queue of a topic is a quorum queue, and hold tiers dead-letter at-least-once")
    void quorumTopic() throws Exception {
        Broker<RabbitMq> quorum = admin.connect(admin.config(admin.unique("shove-it-quorum")).toBuilder()
                .quorumQueues()
                .build());
        String name = admin.unique("quorum");
        Topic<Msg> plain = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        quorum.topology().declare(plain);
        quorum.topology().declare(plain); // idempotent
        String seqName = admin.unique("quorum-seq");
        Topic<Msg> sequenced = Topic.builder(seqName, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(2)
                .build();
        quorum.topology().declare(sequenced);

        assertQueue(name, Map.of("x-queue-type", "quorum"));
        assertQueue(name + "-dlq", Map.of("x-queue-type", "quorum"));
        Map<String, Object> hold = Map.of(
                "x-queue-type", "quorum",
                "x-message-ttl", 1000,
                "x-dead-letter-exchange", "",
                "x-dead-letter-routing-key", name,
                "x-dead-letter-strategy", "at-least-once",
                "x-overflow", "reject-publish");
        assertQueue(name + "-hold-1s", hold);
        assertQueue(seqName + "-seq-1", Map.of("x-queue-type", "quorum", "x-single-active-consumer", true));
        assertQueue(seqName + "-dlq", Map.of("x-queue-type", "quorum"));
        for (String queue : admin.queuesStartingWith(name)) {
            assertThat(admin.queueInfo(queue).path("type").asText())
                    .as("type of %s", queue)
                    .isEqualTo("quorum");
        }
        assertThat(admin.queuesStartingWith(seqName)).hasSize(5);
        for (String queue : admin.queuesStartingWith(seqName)) {
            assertThat(admin.queueInfo(queue).path("type").asText())
                    .as("type of %s", queue)
                    .isEqualTo("quorum");
        }
    }

    @Test
    @DisplayName(
            "a classic queue declared again as a quorum queue, or the reverse, is refused, naming the queue and the"
                    + " fix")
    void queueTypeChange() throws Exception {
        Broker<RabbitMq> quorum = admin.connect(admin.config(admin.unique("shove-it-quorum")).toBuilder()
                .quorumQueues()
                .build());
        String classicName = admin.unique("was-classic");
        Topic<Msg> wasClassic = Topic.builder(classicName, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        broker.topology().declare(wasClassic);
        assertThatThrownBy(() -> quorum.topology().declare(wasClassic))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("queue '" + classicName + "-dlq'")
                .hasMessageContaining("as a classic queue, but this broker config declares quorum queues")
                .hasMessageContaining("delete the queue")
                .hasMessageContaining("remove quorumQueues()");
        assertThat(admin.queueInfo(classicName + "-dlq").path("type").asText())
                .as("the existing queue is left as it is")
                .isEqualTo("classic");

        String quorumName = admin.unique("was-quorum");
        Topic<Msg> wasQuorum = Topic.builder(quorumName, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        quorum.topology().declare(wasQuorum);
        assertThatThrownBy(() -> broker.topology().declare(wasQuorum))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("queue '" + quorumName + "-dlq'")
                .hasMessageContaining("as a quorum queue, but this broker config declares classic queues")
                .hasMessageContaining("add quorumQueues()");
    }

    @Test
    @DisplayName("on quorum queues a sequenced consumer whose window is smaller than its shards is refused, naming the"
            + " topic and the fix")
    void quorumWindowBelowShards() {
        Broker<RabbitMq> quorum = admin.connect(admin.config(admin.unique("shove-it-quorum")).toBuilder()
                .quorumQueues()
                .build());
        String name = admin.unique("quorum-window");
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(4)
                .build();
        quorum.topology().declare(topic);
        var group = quorum.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .prefetch(1)
                        .laneBuffer(2)
                        .noDeadLetterConsumer()
                        .build(),
                () -> (m, meta, c) -> Outcome.ack());
        assertThatThrownBy(group::start)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sequenced topic '" + name + "'")
                .hasMessageContaining("window of 3")
                .hasMessageContaining("4 shards")
                .hasMessageContaining("Raise laneBuffer or prefetch");
        group.close();
    }

    @Test
    @DisplayName("a hold queue that exists with another delay is refused, naming the queue and what differs")
    void conflictingTier() throws Exception {
        String name = admin.unique("conflict");
        admin.declareQueue(
                name + "-hold-5s",
                Map.of("x-message-ttl", 6000L, "x-dead-letter-exchange", "", "x-dead-letter-routing-key", name));
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(5))
                .dlq()
                .build();
        assertThatThrownBy(() -> broker.topology().declare(topic))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("queue '" + name + "-hold-5s'")
                .hasMessageContaining("x-message-ttl")
                .hasMessageContaining("6000")
                .hasMessageContaining("5000");
        assertThat(admin.queueInfo(name + "-hold-5s")
                        .path("arguments")
                        .path("x-message-ttl")
                        .asLong())
                .as("the existing queue is left as it is")
                .isEqualTo(6000);
    }

    @Test
    @DisplayName("a sequenced topic declared with fewer shards than exist is refused: their messages would be stranded")
    void shrinkingShards() {
        String name = admin.unique("shrink");
        Topic<Msg> four = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(4)
                .build();
        Topic<Msg> two = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(2)
                .build();
        broker.topology().declare(four);
        assertThatThrownBy(() -> broker.topology().declare(two))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("'" + name + "-seq-2'")
                .hasMessageContaining("routingShards");
    }

    @Test
    @DisplayName("publishing to a topic that was never declared fails with a topology error, never silently")
    void publishUndeclared() {
        Topic<Msg> topic = Topic.builder(admin.unique("nowhere"), Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        assertThatThrownBy(() -> broker.publisher().publish(topic, new Msg("k")))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("queue '" + topic.name() + "'")
                .hasMessageContaining("declare");
    }

    @Test
    @DisplayName("registering a consumer on a topic whose queues are gone fails with a topology error")
    void subscribeUndeclared() throws Exception {
        Topic<Msg> topic = Topic.builder(admin.unique("gone"), Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder().noDeadLetterConsumer().build(),
                () -> (m, meta, c) -> Outcome.ack());
        // register declares the topic again, so delete after registering and before starting
        admin.deleteQueue(topic.name());
        assertThatThrownBy(group::start)
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("queue '" + topic.name() + "'")
                .hasMessageContaining("does not exist");
        group.close();
    }

    @Test
    @DisplayName("a queue that refuses publishes when full makes the broker nack, reported as a refused publish")
    void brokerNack() throws Exception {
        String name = admin.unique("nack");
        admin.declareQueue(name, Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .allowMessageLoss()
                .build();
        broker.publisher().publish(topic, new Msg("first"));
        assertThatThrownBy(() -> broker.publisher().publish(topic, new Msg("second")))
                .isInstanceOf(PublishException.class)
                .hasMessageContaining("basic.nack")
                .hasMessageContaining("queue '" + name + "'");
        assertThat(admin.depth(name)).isEqualTo(1);
    }

    @Test
    @DisplayName("a broadcast topic declares a durable fanout exchange '{name}-broadcast' and no queue")
    void broadcastTopic() throws Exception {
        String name = admin.unique("fanout");
        Topic<Msg> topic = Topic.builder(name, Msg.class).broadcast().build();
        broker.topology().declare(topic);
        broker.topology().declare(topic); // idempotent

        JsonNode exchange = admin.exchangeInfo(name + "-broadcast");
        assertThat(exchange.path("type").asText()).isEqualTo("fanout");
        assertThat(exchange.path("durable").asBoolean()).isTrue();
        assertThat(exchange.path("auto_delete").asBoolean()).isFalse();
        assertThat(exchange.path("internal").asBoolean()).isFalse();
        assertThat(exchange.path("arguments").size()).isZero();
        assertThat(admin.queuesStartingWith(name)).isEmpty();
        assertThat(admin.queuesBoundTo(name + "-broadcast")).isEmpty();
    }

    @Test
    @DisplayName("a plain topic declared again as broadcast is refused, naming its queue; and the reverse, naming the"
            + " exchange")
    void plainAndBroadcastDoNotSwap() throws Exception {
        String plainFirst = admin.unique("was-plain");
        broker.topology().declare(Topic.builder(plainFirst, Msg.class).dlq().build());
        assertThatThrownBy(() -> broker.topology()
                        .declare(
                                Topic.builder(plainFirst, Msg.class).broadcast().build()))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("topic '" + plainFirst + "' is declared broadcast")
                .hasMessageContaining("queue '" + plainFirst + "' exists")
                .hasMessageContaining("declared plain (not sequenced) before");
        assertThat(admin.exchangeExists(plainFirst + "-broadcast")).isFalse();

        String broadcastFirst = admin.unique("was-broadcast");
        broker.topology()
                .declare(Topic.builder(broadcastFirst, Msg.class).broadcast().build());
        assertThatThrownBy(() -> broker.topology()
                        .declare(Topic.builder(broadcastFirst, Msg.class).dlq().build()))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("topic '" + broadcastFirst + "' is declared plain (not sequenced)")
                .hasMessageContaining("exchange '" + broadcastFirst + "-broadcast' exists")
                .hasMessageContaining("delete the old exchange");
        assertThat(admin.queuesStartingWith(broadcastFirst)).isEmpty();
    }

    @Test
    @DisplayName("a sequenced topic and a broadcast topic of one name are refused either way")
    void sequencedAndBroadcastDoNotSwap() {
        String sequencedFirst = admin.unique("was-seq");
        broker.topology()
                .declare(Topic.builder(sequencedFirst, Msg.class)
                        .holdQueue(Duration.ofSeconds(1))
                        .dlq()
                        .sequenced(SequenceFailure.SKIP, Msg::key)
                        .routingShards(1)
                        .build());
        assertThatThrownBy(() -> broker.topology()
                        .declare(Topic.builder(sequencedFirst, Msg.class)
                                .broadcast()
                                .build()))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("queue '" + sequencedFirst + "-seq-0' exists")
                .hasMessageContaining("declared sequenced before");

        String broadcastFirst = admin.unique("was-fanout");
        broker.topology()
                .declare(Topic.builder(broadcastFirst, Msg.class).broadcast().build());
        assertThatThrownBy(() -> broker.topology()
                        .declare(Topic.builder(broadcastFirst, Msg.class)
                                .holdQueue(Duration.ofSeconds(1))
                                .dlq()
                                .sequenced(SequenceFailure.SKIP, Msg::key)
                                .build()))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("exchange '" + broadcastFirst + "-broadcast' exists")
                .hasMessageContaining("declared broadcast before");
    }

    @Test
    @DisplayName("an exchange of another type under the broadcast exchange's name is refused, naming it and the"
            + " broker's reason")
    void conflictingExchange() throws Exception {
        String name = admin.unique("direct");
        admin.declareExchange(name + "-broadcast", "direct");
        Topic<Msg> topic = Topic.builder(name, Msg.class).broadcast().build();
        assertThatThrownBy(() -> broker.topology().declare(topic))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("exchange '" + name + "-broadcast'")
                .hasMessageContaining("broadcast topic '" + name + "'")
                .hasMessageContaining("fanout")
                .hasMessageContaining("inequivalent arg 'type'");
        assertThat(admin.exchangeInfo(name + "-broadcast").path("type").asText())
                .as("the existing exchange is left as it is")
                .isEqualTo("direct");
    }

    @Test
    @DisplayName("publishing to a broadcast topic that was never declared fails with a topology error naming its"
            + " exchange")
    void publishBroadcastUndeclared() {
        Topic<Msg> nowhere = Topic.builder(admin.unique("nowhere-fanout"), Msg.class)
                .broadcast()
                .build();
        assertThatThrownBy(() -> broker.publisher().publish(nowhere, new Msg("k")))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("broadcast topic '" + nowhere.name() + "'")
                .hasMessageContaining("exchange '" + nowhere.name() + "-broadcast'")
                .hasMessageContaining("declare");
    }

    @Test
    @DisplayName("a broadcast nobody subscribes to is published without error: no subscriber is not an unroutable"
            + " message")
    void broadcastWithoutSubscribers() {
        Topic<Msg> topic =
                Topic.builder(admin.unique("lonely"), Msg.class).broadcast().build();
        broker.topology().declare(topic);
        broker.publisher().publish(topic, new Msg("k"));
        broker.publisher().publishBatch(topic, List.of(new Msg("a"), new Msg("b")));
    }
}
