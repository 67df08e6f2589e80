package dev.shove.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventContext;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Both modes end to end on the in-memory broker, which has no protocol binding: the generic {@code ce-} headers. */
class CloudEventsInMemoryTest {
    record OrderPaid(String orderId, long cents) {}

    /** What a handler saw of one event. */
    record Seen(OrderPaid data, CloudEventContext event, MessageMetadata metadata) {}

    private static final URI SOURCE = URI.create("/orders");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults());
    private final InMemoryProbe probe = InMemoryProbe.of(broker);
    private final CloudEventPublisher events = CloudEventPublisher.of(broker);
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        broker.close();
    }

    private static Topic<OrderPaid> ordersTopic(String name) {
        return Topic.builder(name, OrderPaid.class)
                .holdQueue(Duration.ofMillis(50))
                .dlq()
                .build();
    }

    private static Topic<CloudEventMessage<OrderPaid>> structuredTopic(String name) {
        return Topic.builder(name, CloudEventMessage.structuredCodec(OrderPaid.class))
                .holdQueue(Duration.ofMillis(50))
                .dlq()
                .build();
    }

    private static CloudEventTopic<OrderPaid> binary(Topic<OrderPaid> topic) {
        return CloudEventTopic.binary(topic)
                .type("com.acme.order.paid")
                .source(SOURCE)
                .build();
    }

    /** Consumes the event topic, recording every event and acking it. */
    private void consume(CloudEventTopic<OrderPaid> topic) {
        var group = broker.consumerGroup();
        topic.register(group, () -> (data, event, meta, ctx) -> {
            seen.add(new Seen(data, event, meta));
            return Outcome.ack();
        });
        group.start();
    }

    /** Consumes the shove topic with a plain handler, recording every message's headers. */
    private <M> List<Map<String, String>> headersOf(Topic<M> topic) {
        List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, () -> (message, meta, ctx) -> {
            headers.add(meta.headers());
            return Outcome.ack();
        });
        group.start();
        return headers;
    }

    private Seen awaitOne() {
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 1);
        return seen.getFirst();
    }

    @Nested
    @DisplayName("binary mode")
    class Binary {
        @Test
        @DisplayName("the handler receives the typed data and the attributes; the event id is the shove message id")
        void handlerReceivesDataAndAttributes() {
            CloudEventTopic<OrderPaid> orders = binary(ordersTopic("orders"));
            consume(orders);

            String id = events.publish(orders, new OrderPaid("o-1", 1299));

            Seen one = awaitOne();
            assertThat(one.data()).isEqualTo(new OrderPaid("o-1", 1299));
            assertThat(one.event().getId()).isEqualTo(id);
            assertThat(one.metadata().messageId()).contains(id);
            assertThat(one.event().getType()).isEqualTo("com.acme.order.paid");
            assertThat(one.event().getSource()).isEqualTo(SOURCE);
            assertThat(one.event().getSpecVersion().toString()).isEqualTo("1.0");
            assertThat(one.event().getDataContentType()).isEqualTo("application/json");
            assertThat(one.event().getSubject()).isNull();
            assertThat(one.event().getTime()).isNotNull();
        }

        @Test
        @DisplayName("on a broker without a binding the attributes are ce- headers, with content-type from the codec")
        void genericHeaders() {
            CloudEventTopic<OrderPaid> orders = binary(ordersTopic("orders"));
            List<Map<String, String>> headers = headersOf(orders.topic());

            String id = events.publish(orders, new OrderPaid("o-1", 1299));

            await().atMost(Duration.ofSeconds(10)).until(() -> headers.size() == 1);
            assertThat(headers.getFirst())
                    .containsEntry("ce-specversion", "1.0")
                    .containsEntry("ce-id", id)
                    .containsEntry("ce-type", "com.acme.order.paid")
                    .containsEntry("ce-source", "/orders")
                    .containsEntry("content-type", "application/json")
                    .containsEntry(ShoveHeaders.MESSAGE_ID, id)
                    .containsKey("ce-time")
                    .doesNotContainKey("ce-subject");
        }

        @Test
        @DisplayName("a topic's header convention is used on every broker: ce_ headers on the in-memory one")
        void topicConvention() {
            CloudEventTopic<OrderPaid> orders = CloudEventTopic.binary(ordersTopic("orders"))
                    .type("com.acme.order.paid")
                    .source(SOURCE)
                    .headerConvention(HeaderConvention.KAFKA)
                    .build();
            List<Map<String, String>> headers = headersOf(orders.topic());

            events.publish(orders, new OrderPaid("o-1", 1299));

            await().atMost(Duration.ofSeconds(10)).until(() -> headers.size() == 1);
            assertThat(headers.getFirst())
                    .containsEntry("ce_type", "com.acme.order.paid")
                    .containsEntry("ce_specversion", "1.0")
                    .doesNotContainKey("ce-type");
        }

        @Test
        @DisplayName("type, source, subject, time, id and extensions set per message win over the topic's")
        void perMessageAttributes() {
            CloudEventTopic<OrderPaid> orders = CloudEventTopic.binary(ordersTopic("orders"))
                    .type("com.acme.order.paid")
                    .source(SOURCE)
                    .subject("all-orders")
                    .build();
            consume(orders);
            OffsetDateTime time = OffsetDateTime.of(2026, 12, 7, 10, 30, 0, 0, ZoneOffset.UTC);

            String id = events.publish(
                    orders,
                    new OrderPaid("o-2", 500),
                    CloudEventOptions.builder()
                            .id("evt-2")
                            .type("com.acme.order.refunded")
                            .source(URI.create("urn:acme:refunds"))
                            .subject("o-2")
                            .time(time)
                            .extension("tenant", "acme")
                            .header("x-trace", "t-1")
                            .build());

            Seen one = awaitOne();
            assertThat(id).isEqualTo("evt-2");
            assertThat(one.metadata().messageId()).contains("evt-2");
            assertThat(one.event().getId()).isEqualTo("evt-2");
            assertThat(one.event().getType()).isEqualTo("com.acme.order.refunded");
            assertThat(one.event().getSource()).isEqualTo(URI.create("urn:acme:refunds"));
            assertThat(one.event().getSubject()).isEqualTo("o-2");
            assertThat(one.event().getTime()).isEqualTo(time);
            assertThat(one.event().getExtension("tenant")).isEqualTo("acme");
            assertThat(one.metadata().header("x-trace")).contains("t-1");
        }

        @Test
        @DisplayName("the topic's subject is every event's subject unless it sets its own")
        void topicSubject() {
            CloudEventTopic<OrderPaid> orders = CloudEventTopic.binary(ordersTopic("orders"))
                    .type("com.acme.order.paid")
                    .source(SOURCE)
                    .subject("all-orders")
                    .build();
            consume(orders);

            events.publish(orders, new OrderPaid("o-1", 1299));

            assertThat(awaitOne().event().getSubject()).isEqualTo("all-orders");
        }

        @Test
        @DisplayName("an event another producer wrote in the Kafka convention is read, without a shove message id")
        void foreignEvent() {
            CloudEventTopic<OrderPaid> orders = binary(ordersTopic("orders"));
            consume(orders);

            probe.inject(
                    orders.topic(),
                    "{\"orderId\":\"o-9\",\"cents\":900}".getBytes(StandardCharsets.UTF_8),
                    Map.of(
                            "ce_specversion", "1.0",
                            "ce_id", "foreign-1",
                            "ce_type", "com.other.order",
                            "ce_source", "https://other.example/orders",
                            "ce_time", "2026-12-07T10:00:00Z",
                            "ce_partner", "other",
                            "content-type", "application/json"));

            Seen one = awaitOne();
            assertThat(one.data()).isEqualTo(new OrderPaid("o-9", 900));
            assertThat(one.event().getId()).isEqualTo("foreign-1");
            assertThat(one.event().getType()).isEqualTo("com.other.order");
            assertThat(one.event().getTime()).isEqualTo(OffsetDateTime.of(2026, 12, 7, 10, 0, 0, 0, ZoneOffset.UTC));
            assertThat(one.event().getExtension("partner")).isEqualTo("other");
            assertThat(one.metadata().messageId()).isEmpty();
        }

        @Test
        @DisplayName("a message without CloudEvents headers never reaches the handler: it is dead-lettered, named")
        void notACloudEvent() {
            Topic<OrderPaid> topic = ordersTopic("orders");
            CloudEventTopic<OrderPaid> orders = binary(topic);
            var group = broker.consumerGroup();
            orders.register(
                    group,
                    dev.shove.ConsumerGroupConfig.builder()
                            .noDeadLetterConsumer()
                            .build(),
                    () -> (data, event, meta, ctx) -> {
                        seen.add(new Seen(data, event, meta));
                        return Outcome.ack();
                    });
            group.start();

            broker.publisher().publish(topic, new OrderPaid("o-1", 1));

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> probe.deadLetterHeaders(orders.topic()).size() == 1);
            assertThat(probe.deadLetterHeaders(orders.topic()).getFirst().get(ShoveHeaders.DEATH_REASON))
                    .startsWith("rejected: not a CloudEvent: no CloudEvents 'specversion' header");
            assertThat(seen).isEmpty();
        }

        @Test
        @DisplayName("a dead event reaches handleDead with its data and attributes")
        void deadEvent() {
            CloudEventTopic<OrderPaid> orders = binary(ordersTopic("orders"));
            List<CloudEventContext> dead = new CopyOnWriteArrayList<>();
            var group = broker.consumerGroup();
            orders.register(group, () -> new CloudEventHandler<OrderPaid, NoContext>() {
                @Override
                public Outcome handle(OrderPaid data, CloudEventContext event, MessageMetadata meta, NoContext c) {
                    return Outcome.reject("unpayable");
                }

                @Override
                public void handleDead(OrderPaid data, CloudEventContext event, DeadMessageMetadata meta, NoContext c) {
                    dead.add(event);
                }
            });
            group.start();

            String id = events.publish(orders, new OrderPaid("o-1", 1299));

            await().atMost(Duration.ofSeconds(10)).until(() -> dead.size() == 1);
            assertThat(dead.getFirst().getId()).isEqualTo(id);
            assertThat(dead.getFirst().getType()).isEqualTo("com.acme.order.paid");
        }
    }

    @Nested
    @DisplayName("structured mode")
    class Structured {
        private CloudEventTopic<OrderPaid> structured(Topic<CloudEventMessage<OrderPaid>> topic) {
            return CloudEventTopic.structured(topic)
                    .type("com.acme.order.paid")
                    .source(SOURCE)
                    .build();
        }

        @Test
        @DisplayName("the handler receives the typed data and the attributes; the event id is the shove message id")
        void handlerReceivesDataAndAttributes() {
            CloudEventTopic<OrderPaid> audit = structured(structuredTopic("audit"));
            consume(audit);

            String id = events.publish(
                    audit,
                    new OrderPaid("o-1", 1299),
                    CloudEventOptions.builder().subject("o-1").build());

            Seen one = awaitOne();
            assertThat(one.data()).isEqualTo(new OrderPaid("o-1", 1299));
            assertThat(one.event().getId()).isEqualTo(id);
            assertThat(one.metadata().messageId()).contains(id);
            assertThat(one.event().getType()).isEqualTo("com.acme.order.paid");
            assertThat(one.event().getSubject()).isEqualTo("o-1");
            assertThat(one.event().getDataContentType()).isEqualTo("application/json");
        }

        @Test
        @DisplayName("the payload is the JSON event format with the data embedded as JSON, and no attribute headers")
        void payloadIsTheJsonFormat() throws Exception {
            Topic<CloudEventMessage<OrderPaid>> topic = structuredTopic("audit");
            CloudEventTopic<OrderPaid> audit = structured(topic);
            Topic<byte[]> raw = Topic.builder("audit", byte[].class)
                    .holdQueue(Duration.ofMillis(50))
                    .dlq()
                    .build();
            List<byte[]> bodies = new CopyOnWriteArrayList<>();
            List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
            var group = broker.consumerGroup();
            group.register(raw, () -> (body, meta, ctx) -> {
                bodies.add(body);
                headers.add(meta.headers());
                return Outcome.ack();
            });
            group.start();

            String id = events.publish(audit, new OrderPaid("o-1", 1299));

            await().atMost(Duration.ofSeconds(10)).until(() -> bodies.size() == 1);
            JsonNode json = JSON.readTree(bodies.getFirst());
            assertThat(json.get("specversion").asText()).isEqualTo("1.0");
            assertThat(json.get("id").asText()).isEqualTo(id);
            assertThat(json.get("type").asText()).isEqualTo("com.acme.order.paid");
            assertThat(json.get("source").asText()).isEqualTo("/orders");
            assertThat(json.get("datacontenttype").asText()).isEqualTo("application/json");
            assertThat(json.get("data").get("orderId").asText()).isEqualTo("o-1");
            assertThat(json.get("data").get("cents").asLong()).isEqualTo(1299);
            assertThat(headers.getFirst())
                    .containsEntry(ShoveHeaders.MESSAGE_ID, id)
                    .containsEntry("content-type", "application/cloudevents+json")
                    .doesNotContainKeys("ce-id", "ce-type");
        }

        @Test
        @DisplayName("an event the SDK's JSON format wrote is read by the handler")
        void sdkWrittenEvent() {
            Topic<CloudEventMessage<OrderPaid>> topic = structuredTopic("audit");
            consume(structured(topic));
            CloudEvent event = CloudEventBuilder.v1()
                    .withId("sdk-1")
                    .withType("com.other.order")
                    .withSource(URI.create("urn:other"))
                    .withData("application/json", "{\"orderId\":\"o-7\",\"cents\":7}".getBytes(StandardCharsets.UTF_8))
                    .withExtension("partner", "other")
                    .build();

            probe.inject(topic, new JsonFormat().serialize(event), Map.of());

            Seen one = awaitOne();
            assertThat(one.data()).isEqualTo(new OrderPaid("o-7", 7));
            assertThat(one.event().getId()).isEqualTo("sdk-1");
            assertThat(one.event().getExtension("partner")).isEqualTo("other");
        }

        @Test
        @DisplayName("a payload that is not a CloudEvent is a decode failure: dead-lettered, handler not called")
        void notACloudEvent() {
            Topic<CloudEventMessage<OrderPaid>> topic = structuredTopic("audit");
            var group = broker.consumerGroup();
            structured(topic)
                    .register(
                            group,
                            dev.shove.ConsumerGroupConfig.builder()
                                    .noDeadLetterConsumer()
                                    .build(),
                            () -> (data, event, meta, ctx) -> {
                                seen.add(new Seen(data, event, meta));
                                return Outcome.ack();
                            });
            group.start();

            probe.inject(topic, "{\"orderId\":\"o-1\",\"cents\":1}".getBytes(StandardCharsets.UTF_8), Map.of());

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> probe.deadLetterHeaders(topic).size() == 1);
            assertThat(probe.deadLetterHeaders(topic).getFirst().get(ShoveHeaders.DEATH_REASON))
                    .startsWith("decode-failed: cloudevents+json(json(");
            assertThat(seen).isEmpty();
        }

        @Test
        @DisplayName("a structured event topic needs the structured codec, and says how to build it")
        void needsStructuredCodec() {
            Topic<CloudEventMessage<OrderPaid>> wrong = Topic.builder(
                            "audit",
                            dev.shove.Codec.json(
                                    new com.fasterxml.jackson.core.type.TypeReference<
                                            CloudEventMessage<OrderPaid>>() {}))
                    .build();

            assertThatThrownBy(() -> CloudEventTopic.structured(wrong))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("topic 'audit'")
                    .hasMessageContaining("CloudEventMessage.structuredCodec");
        }
    }
}
