package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What each shove concept becomes in the document: channels, operations, extensions and broker bindings. */
class ChannelsTest {

    private static AsyncApi.Builder doc() {
        return AsyncApi.builder().title("shop").version("1.0.0");
    }

    private static List<String> keys(JsonNode node) {
        return node.propertyStream().map(Map.Entry::getKey).toList();
    }

    @Nested
    @DisplayName("without servers")
    class Logical {
        @Test
        @DisplayName("a topic has its main channel, a channel per hold tier and its dead-letter channel")
        void plainTopic() {
            JsonNode d = Documents.valid(doc().topics(Fixtures.ORDERS));
            assertThat(keys(d.path("channels")))
                    .containsExactly("orders", "orders-hold-500ms", "orders-hold-30s", "orders-dlq");
            assertThat(d.at("/channels/orders/address").asText()).isEqualTo("orders");
            assertThat(d.at("/channels/orders-hold-30s/address").asText()).isEqualTo("orders-hold-30s");
            assertThat(d.at("/channels/orders-dlq/address").asText()).isEqualTo("orders-dlq");
            assertThat(d.path("servers").isMissingNode()).isTrue();
        }

        @Test
        @DisplayName("a hold channel says its delay and where its messages return; the topic lists its tiers")
        void holdTierExtension() {
            JsonNode d = Documents.valid(doc().topics(Fixtures.ORDERS));
            JsonNode hold = d.at("/channels/orders-hold-500ms/x-shove-hold-tier");
            assertThat(hold.path("topic").asText()).isEqualTo("orders");
            assertThat(hold.path("delay").asText()).isEqualTo("500ms");
            assertThat(hold.path("delayMs").asLong()).isEqualTo(500);
            assertThat(hold.path("returnsTo").asText()).isEqualTo("orders");
            JsonNode topic = d.at("/channels/orders/x-shove-topic");
            assertThat(topic.path("holdTiers").findValuesAsText("delay")).containsExactly("500ms", "30s");
            assertThat(topic.path("holdTiers").findValuesAsText("channel"))
                    .containsExactly("orders-hold-500ms", "orders-hold-30s");
            assertThat(topic.path("deadLetterQueue").asText()).isEqualTo("orders-dlq");
        }

        @Test
        @DisplayName("the dead-letter channel carries the topic's dead letters, with the dead-letter headers")
        void deadLetterChannel() {
            JsonNode d = Documents.valid(doc().topics(Fixtures.ORDERS));
            assertThat(keys(d.at("/channels/orders-dlq/messages"))).containsExactly("orders.dead-letter");
            assertThat(d.at("/channels/orders-dlq/x-shove-dead-letter-queue/topics/0")
                            .asText())
                    .isEqualTo("orders");
            JsonNode deadLetter = d.at("/components/messages/orders.dead-letter");
            assertThat(deadLetter.at("/headers/$ref").asText())
                    .isEqualTo("#/components/schemas/" + HeaderSchemas.DEAD_LETTER_HEADERS);
            assertThat(deadLetter.at("/payload/$ref").asText()).isEqualTo("#/components/schemas/Order");
        }

        @Test
        @DisplayName(
                "a topic both sent and received: publish, handle, retry copies into each tier, dead letters out and in")
        void operationsOfATopic() {
            JsonNode d = Documents.valid(doc().topics(Fixtures.ORDERS));
            assertThat(keys(d.path("operations")))
                    .containsExactly(
                            "orders.send",
                            "orders.receive",
                            "orders-hold-500ms.send",
                            "orders-hold-30s.send",
                            "orders-dlq.send",
                            "orders-dlq.receive");
            assertThat(d.at("/operations/orders.send/action").asText()).isEqualTo("send");
            assertThat(d.at("/operations/orders.receive/action").asText()).isEqualTo("receive");
            assertThat(d.at("/operations/orders-dlq.receive/messages/0/$ref").asText())
                    .isEqualTo("#/channels/orders-dlq/messages/orders.dead-letter");
        }

        @Test
        @DisplayName("a topic only sent has one operation; one only received has no send to its main channel")
        void directions() {
            JsonNode sent = Documents.valid(doc().sends(Fixtures.ORDERS));
            assertThat(keys(sent.path("operations"))).containsExactly("orders.send");
            JsonNode received = Documents.valid(doc().receives(Fixtures.ORDERS));
            assertThat(keys(received.path("operations")))
                    .doesNotContain("orders.send")
                    .contains("orders.receive");
            JsonNode both = Documents.valid(doc().sends(Fixtures.ORDERS).receives(Fixtures.ORDERS));
            assertThat(keys(both.path("operations"))).contains("orders.send", "orders.receive");
        }

        @Test
        @DisplayName("a sequenced topic is one channel per shard through a shard parameter, without hold channels")
        void sequencedTopic() {
            JsonNode d = Documents.valid(doc().topics(Fixtures.ORDER_EVENTS));
            assertThat(keys(d.path("channels"))).containsExactly("order-events", "order-events-dlq");
            JsonNode main = d.at("/channels/order-events");
            assertThat(main.path("address").asText()).isEqualTo("order-events-seq-{shard}");
            assertThat(main.at("/parameters/shard/enum").toString()).isEqualTo("[\"0\",\"1\",\"2\",\"3\"]");
            assertThat(main.at("/parameters/shard/description").asText())
                    .contains("FNV-1a-64")
                    .contains("modulo 4");
            JsonNode sequencing = main.at("/x-shove-topic/sequencing");
            assertThat(sequencing.path("onFailure").asText()).isEqualTo("SKIP");
            assertThat(sequencing.path("routingShards").asInt()).isEqualTo(4);
            assertThat(sequencing.path("keyHeader").asText()).isEqualTo("shove-sequence-key");
            assertThat(main.at("/x-shove-topic/holdTiers/0/delay").asText())
                    .as("the tier's delay is still listed")
                    .isEqualTo("5s");
        }

        @Test
        @DisplayName("a broadcast topic is one channel, and its consumers receive while subscribed")
        void broadcastTopic() {
            JsonNode d = Documents.valid(doc().topics(Fixtures.CUSTOMERS));
            assertThat(keys(d.path("channels"))).containsExactly("customers");
            assertThat(d.at("/channels/customers/x-shove-topic/broadcast").asBoolean())
                    .isTrue();
            assertThat(d.at("/channels/customers/description").asText()).contains("every running subscriber");
            assertThat(keys(d.path("operations"))).containsExactly("customers.send", "customers.receive");
            assertThat(d.path("components").path("schemas").has(HeaderSchemas.DEAD_LETTER_HEADERS))
                    .isFalse();
        }

        @Test
        @DisplayName("topics sharing a dead-letter queue share its channel, which carries each one's dead letters")
        void sharedDeadLetterQueue() {
            Topic<Fixtures.Order> a =
                    Topic.builder("a", Fixtures.Order.class).dlq("errors").build();
            Topic<Fixtures.Customer> b =
                    Topic.builder("b", Fixtures.Customer.class).dlq("errors").build();
            JsonNode d = Documents.valid(doc().topics(a, b));
            assertThat(keys(d.at("/channels/errors/messages"))).containsExactly("a.dead-letter", "b.dead-letter");
            assertThat(d.at("/channels/errors/x-shove-dead-letter-queue/topics").toString())
                    .isEqualTo("[\"a\",\"b\"]");
            assertThat(d.at("/operations/errors.receive/messages").findValuesAsText("$ref"))
                    .containsExactly(
                            "#/channels/errors/messages/a.dead-letter", "#/channels/errors/messages/b.dead-letter");
        }

        @Test
        @DisplayName("a topic named like another topic's dead-letter queue is refused, naming both")
        void nameClash() {
            Topic<Fixtures.Order> clash =
                    Topic.builder("orders-dlq", Fixtures.Order.class).dlq().build();
            assertThatThrownBy(() -> doc().topics(Fixtures.ORDERS, clash).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'orders-dlq'")
                    .hasMessageContaining("the dead-letter queue of topic 'orders'")
                    .hasMessageContaining("the main queue of topic 'orders-dlq'");
        }

        @Test
        @DisplayName("a topic without hold queues shows its implicit 1 s tier as such")
        void implicitTier() {
            Topic<Fixtures.Order> implicit = Topic.builder("quick", Fixtures.Order.class)
                    .allowMessageLoss()
                    .build();
            JsonNode d = Documents.valid(doc().topics(implicit));
            assertThat(d.at("/channels/quick-hold-1s/x-shove-hold-tier/implicit")
                            .asBoolean())
                    .isTrue();
            assertThat(d.at("/channels/quick/x-shove-topic/implicitHoldTier").asBoolean())
                    .isTrue();
            assertThat(d.at("/channels/quick/x-shove-topic/deadLetterQueue").isMissingNode())
                    .isTrue();
        }
    }

    @Nested
    @DisplayName("on Kafka")
    class OnKafka {
        private final JsonNode d = Documents.valid(doc().server(
                        "kafka", "kafka://k1:9092,k2:9092?partitions=12&replicationFactor=3&messageKeyHeader=tenant")
                .topics(Fixtures.ORDERS, Fixtures.ORDER_EVENTS));

        @Test
        @DisplayName("each topic is a Kafka topic of the URI's partitions and replication factor")
        void topics() {
            assertThat(d.at("/servers/kafka/host").asText()).isEqualTo("k1:9092,k2:9092");
            assertThat(d.at("/servers/kafka/protocol").asText()).isEqualTo("kafka");
            for (String channel : List.of("orders", "orders-hold-500ms", "orders-dlq", "order-events-dlq")) {
                assertThat(d.at("/channels/" + channel + "/bindings/kafka/partitions")
                                .asInt())
                        .as(channel)
                        .isEqualTo(12);
                assertThat(d.at("/channels/" + channel + "/bindings/kafka/replicas")
                                .asInt())
                        .as(channel)
                        .isEqualTo(3);
            }
        }

        @Test
        @DisplayName("a sequenced topic is one Kafka topic of a partition per shard, keyed by the sequence key")
        void sequenced() {
            JsonNode kafka = d.at("/channels/order-events/bindings/kafka");
            assertThat(kafka.path("topic").asText()).isEqualTo("order-events");
            assertThat(kafka.path("partitions").asInt()).isEqualTo(4);
            assertThat(kafka.path("x-shove-shard-is-partition").asBoolean()).isTrue();
            assertThat(d.at("/components/messages/order-events/bindings/kafka/key/description")
                            .asText())
                    .contains("sequence key");
            assertThat(keys(d.path("channels"))).noneMatch(c -> c.startsWith("order-events-seq"));
        }

        @Test
        @DisplayName("an unsequenced message's key is the header the URI's messageKeyHeader names")
        void messageKeyHeader() {
            assertThat(d.at("/components/messages/orders/bindings/kafka/key/description")
                            .asText())
                    .contains("'tenant'");
        }

        @Test
        @DisplayName("TLS in the URI makes the protocol kafka-secure")
        void secure() {
            JsonNode secure = Documents.valid(
                    doc().server("kafka", "kafka://k1:9093?ssl=true").topics(Fixtures.ORDERS));
            assertThat(secure.at("/servers/kafka/protocol").asText()).isEqualTo("kafka-secure");
            assertThat(secure.at("/channels/orders/bindings/kafka/partitions").asInt())
                    .as("the backend's default")
                    .isEqualTo(8);
        }
    }

    @Nested
    @DisplayName("on RabbitMQ")
    class OnRabbitMq {
        private final JsonNode d = Documents.valid(doc().server("rabbit", "amqp://rabbit:5672/shop")
                .topics(Fixtures.ORDERS, Fixtures.ORDER_EVENTS, Fixtures.CUSTOMERS));

        @Test
        @DisplayName("each queue is a durable queue of the URI's virtual host")
        void queues() {
            JsonNode amqp = d.at("/channels/orders/bindings/amqp");
            assertThat(amqp.path("is").asText()).isEqualTo("queue");
            assertThat(amqp.at("/queue/name").asText()).isEqualTo("orders");
            assertThat(amqp.at("/queue/durable").asBoolean()).isTrue();
            assertThat(amqp.at("/queue/vhost").asText()).isEqualTo("shop");
            assertThat(d.at("/servers/rabbit/protocolVersion").asText()).isEqualTo("0.9.1");
        }

        @Test
        @DisplayName("a hold queue expires its messages after the delay, back to the queue they came from")
        void holdQueue() {
            JsonNode arguments = d.at("/channels/orders-hold-30s/bindings/amqp/x-shove-queue-arguments");
            assertThat(arguments.path("x-message-ttl").asLong()).isEqualTo(30_000);
            assertThat(arguments.path("x-dead-letter-exchange").asText()).isEmpty();
            assertThat(arguments.path("x-dead-letter-routing-key").asText()).isEqualTo("orders");
        }

        @Test
        @DisplayName("a sequenced topic has a single-active-consumer queue and a hold queue per shard")
        void sequenced() {
            assertThat(d.at("/channels/order-events/bindings/amqp/queue/name").asText())
                    .isEqualTo("order-events-seq-{shard}");
            assertThat(d.at("/channels/order-events/bindings/amqp/x-shove-queue-arguments/x-single-active-consumer")
                            .asBoolean())
                    .isTrue();
            JsonNode hold = d.at("/channels/order-events-seq-shard-hold-5s");
            assertThat(hold.path("address").asText()).isEqualTo("order-events-seq-{shard}-hold-5s");
            assertThat(hold.at("/parameters/shard/enum").size()).isEqualTo(4);
            assertThat(hold.at("/bindings/amqp/x-shove-queue-arguments/x-dead-letter-routing-key")
                            .asText())
                    .isEqualTo("order-events-seq-{shard}");
            assertThat(d.at("/operations/order-events-seq-shard-hold-5s.send/action")
                            .asText())
                    .isEqualTo("send");
        }

        @Test
        @DisplayName("a broadcast topic is a durable fanout exchange")
        void broadcast() {
            JsonNode amqp = d.at("/channels/customers/bindings/amqp");
            assertThat(amqp.path("is").asText()).isEqualTo("routingKey");
            assertThat(amqp.at("/exchange/name").asText()).isEqualTo("customers-broadcast");
            assertThat(amqp.at("/exchange/type").asText()).isEqualTo("fanout");
            assertThat(amqp.at("/exchange/durable").asBoolean()).isTrue();
        }

        @Test
        @DisplayName("messages are published persistent and consumed with acknowledgements")
        void operations() {
            assertThat(d.at("/operations/orders.send/bindings/amqp/deliveryMode")
                            .asInt())
                    .isEqualTo(2);
            assertThat(d.at("/operations/orders.receive/bindings/amqp/ack").asBoolean())
                    .isTrue();
        }
    }

    @Nested
    @DisplayName("on SQS")
    class OnSqs {
        private final JsonNode d = Documents.valid(doc().server("aws", "sqs://eu-west-1?namePrefix=prod-")
                .topics(Fixtures.ORDERS, Fixtures.ORDER_EVENTS, Fixtures.CUSTOMERS));

        @Test
        @DisplayName(
                "a topic is a queue subscribed to an SNS topic, redriving to its dead-letter queue; no hold queues")
        void queues() {
            assertThat(d.at("/servers/aws/host").asText()).isEqualTo("sqs.eu-west-1.amazonaws.com");
            assertThat(keys(d.path("channels"))).noneMatch(c -> c.contains("-hold-"));
            JsonNode sqs = d.at("/channels/orders/bindings/sqs/queue");
            assertThat(sqs.path("name").asText()).isEqualTo("prod-orders");
            assertThat(sqs.path("fifoQueue").asBoolean()).isFalse();
            assertThat(sqs.at("/redrivePolicy/deadLetterQueue/name").asText()).isEqualTo("prod-orders-dlq");
            assertThat(sqs.at("/redrivePolicy/maxReceiveCount").asInt()).isEqualTo(20);
            assertThat(d.at("/channels/orders/bindings/sns/name").asText()).isEqualTo("prod-orders");
            assertThat(d.at("/channels/orders-dlq/bindings/sqs/queue/messageRetentionPeriod")
                            .asInt())
                    .isEqualTo(1_209_600);
            assertThat(d.at("/channels/orders/x-shove-topic/holdTiers/0/channel")
                            .isMissingNode())
                    .as("no hold channel to point at")
                    .isTrue();
        }

        @Test
        @DisplayName("a sequenced topic is a FIFO queue and a FIFO SNS topic, the key being the message group")
        void sequenced() {
            JsonNode sqs = d.at("/channels/order-events/bindings/sqs");
            assertThat(sqs.at("/queue/name").asText()).isEqualTo("prod-order-events.fifo");
            assertThat(sqs.at("/queue/fifoQueue").asBoolean()).isTrue();
            assertThat(sqs.at("/queue/redrivePolicy/deadLetterQueue/name").asText())
                    .isEqualTo("prod-order-events-dlq.fifo");
            assertThat(sqs.path("x-shove-message-group-id").asText()).isEqualTo("shove-sequence-key");
            assertThat(d.at("/channels/order-events/bindings/sns/ordering/type").asText())
                    .isEqualTo("FIFO");
            assertThat(d.at("/channels/order-events-dlq/bindings/sqs/queue/name")
                            .asText())
                    .isEqualTo("prod-order-events-dlq.fifo");
        }

        @Test
        @DisplayName("a broadcast topic is an SNS topic only, and needs SNS")
        void broadcast() {
            assertThat(keys(d.at("/channels/customers/bindings"))).containsExactly("sns");
            assertThatThrownBy(() -> doc().server("aws", "sqs://eu-west-1?sns=false")
                            .topics(Fixtures.CUSTOMERS)
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'customers'")
                    .hasMessageContaining("SNS");
        }
    }

    @Nested
    @DisplayName("on Redis")
    class OnRedis {
        @Test
        @DisplayName("each object is a key with the topic as hash tag: streams, and sorted sets for hold tiers")
        void keys() {
            JsonNode d = Documents.valid(doc().server("redis", "redis://redis:6379?keyPrefix=app:")
                    .topics(Fixtures.ORDERS, Fixtures.ORDER_EVENTS));
            assertThat(d.at("/channels/orders/bindings/redis/x-shove-key").asText())
                    .isEqualTo("app:{orders}");
            assertThat(d.at("/channels/orders-hold-30s/bindings/redis/x-shove-key")
                            .asText())
                    .isEqualTo("app:{orders}:orders-hold-30s");
            assertThat(d.at("/channels/orders-hold-30s/bindings/redis/x-shove-type")
                            .asText())
                    .startsWith("sorted set");
            assertThat(d.at("/channels/order-events/bindings/redis/x-shove-key").asText())
                    .isEqualTo("app:{order-events}:order-events-seq-{shard}");
            assertThat(d.at("/channels/orders-dlq/bindings/redis/x-shove-key").asText())
                    .isEqualTo("app:{orders}:orders-dlq");
        }
    }

    @Test
    @DisplayName("with several brokers, a channel some of them lack names the servers it is on")
    void channelOnSomeServers() {
        JsonNode d = Documents.valid(doc().server("kafka", "kafka://k1:9092")
                .server("rabbit", "amqp://rabbit")
                .server("aws", "sqs://eu-west-1")
                .topics(Fixtures.ORDERS, Fixtures.ORDER_EVENTS));
        assertThat(d.at("/channels/orders/servers").isMissingNode())
                .as("on every server")
                .isTrue();
        assertThat(d.at("/channels/orders-hold-30s/servers").findValuesAsText("$ref"))
                .containsExactly("#/servers/kafka", "#/servers/rabbit");
        assertThat(d.at("/channels/order-events-seq-shard-hold-5s/servers").findValuesAsText("$ref"))
                .containsExactly("#/servers/rabbit");
        assertThat(d.at("/channels/orders-hold-30s/bindings").has("sqs")).isFalse();
    }

    @Test
    @DisplayName("a sub-second tier keeps its compact name in the channel and its exact delay in milliseconds")
    void subSecondTier() {
        Topic<Fixtures.Order> fast = Topic.builder("fast", Fixtures.Order.class)
                .holdQueue(Duration.ofMillis(250))
                .holdQueue(Duration.ofMinutes(90))
                .dlq()
                .build();
        JsonNode d = Documents.valid(doc().topics(fast));
        assertThat(d.at("/channels/fast-hold-250ms/x-shove-hold-tier/delayMs").asLong())
                .isEqualTo(250);
        assertThat(d.at("/channels/fast-hold-90m/x-shove-hold-tier/delay").asText())
                .isEqualTo("90m");
    }
}
