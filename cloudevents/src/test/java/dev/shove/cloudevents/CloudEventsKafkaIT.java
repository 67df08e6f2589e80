package dev.shove.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.kafka.Kafka;
import dev.shove.kafka.KafkaConfig;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventContext;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.cloudevents.kafka.CloudEventSerializer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Interop with the CloudEvents SDK's own Kafka binding on a real Kafka: events its {@code CloudEventSerializer} writes
 * with a plain {@code KafkaProducer} reach a shove handler, and events shove publishes are read by its {@code
 * CloudEventDeserializer} with a plain {@code KafkaConsumer}, in both modes. {@code SHOVE_KAFKA_BOOTSTRAP} points it at
 * the broker (default {@code 127.0.0.1:9092}); a missing broker skips it, or fails it with {@code
 * SHOVE_IT_REQUIRED=true}.
 */
class CloudEventsKafkaIT {
    record OrderPaid(String orderId, long cents) {}

    record Seen(OrderPaid data, CloudEventContext event, MessageMetadata metadata) {}

    private static final String BOOTSTRAP_ENV = "SHOVE_KAFKA_BOOTSTRAP";
    private static final URI SOURCE = URI.create("/orders");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String bootstrap = BrokerAvailability.env(BOOTSTRAP_ENV, "127.0.0.1:9092");
    private final String prefix = "it-ce-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private Broker<Kafka> broker;

    @BeforeAll
    static void requireBroker() {
        String first = BrokerAvailability.env(BOOTSTRAP_ENV, "127.0.0.1:9092").split(",")[0];
        int colon = first.lastIndexOf(':');
        BrokerAvailability.require(
                "Kafka", "kafka", first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (broker != null) {
            broker.close();
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Set<String> ours = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(name -> name.startsWith(prefix))
                    .collect(Collectors.toSet());
            if (!ours.isEmpty()) {
                admin.deleteTopics(ours).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    private Broker<Kafka> connect() {
        broker = Broker.connect(KafkaConfig.of(bootstrap));
        return broker;
    }

    private Topic<OrderPaid> ordersTopic() {
        return Topic.builder(prefix + "-orders", OrderPaid.class)
                .holdQueue(Duration.ofMillis(500))
                .dlq()
                .build();
    }

    private Topic<CloudEventMessage<OrderPaid>> structuredTopic() {
        return Topic.builder(prefix + "-audit", CloudEventMessage.structuredCodec(OrderPaid.class))
                .holdQueue(Duration.ofMillis(500))
                .dlq()
                .build();
    }

    private static CloudEventTopic<OrderPaid> binary(Topic<OrderPaid> topic) {
        return CloudEventTopic.binary(topic)
                .type("com.acme.order.paid")
                .source(SOURCE)
                .build();
    }

    private static CloudEventTopic<OrderPaid> structured(Topic<CloudEventMessage<OrderPaid>> topic) {
        return CloudEventTopic.structured(topic)
                .type("com.acme.order.paid")
                .source(SOURCE)
                .build();
    }

    private void consume(CloudEventTopic<OrderPaid> topic) {
        var group = broker.consumerGroup();
        topic.register(group, () -> (data, event, meta, ctx) -> {
            seen.add(new Seen(data, event, meta));
            return Outcome.ack();
        });
        group.start();
    }

    private static CloudEvent sdkEvent(String id) {
        return CloudEventBuilder.v1()
                .withId(id)
                .withType("com.other.order.paid")
                .withSource(URI.create("https://other.example/orders"))
                .withSubject("o-7")
                .withTime(OffsetDateTime.of(2026, 12, 7, 10, 0, 0, 0, ZoneOffset.UTC))
                .withExtension("partner", "other")
                .withData("application/json", "{\"orderId\":\"o-7\",\"cents\":700}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    /** Sends one event with the SDK's serializer, in the given encoding. */
    private void sdkSend(String topic, CloudEvent event, String encoding) throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, CloudEventSerializer.class,
                CloudEventSerializer.ENCODING_CONFIG, encoding,
                CloudEventSerializer.EVENT_FORMAT_CONFIG, JsonFormat.CONTENT_TYPE);
        try (KafkaProducer<String, CloudEvent> producer = new KafkaProducer<>(config)) {
            producer.send(new ProducerRecord<>(topic, event)).get(30, TimeUnit.SECONDS);
        }
    }

    /** Reads the topic from the start with the SDK's deserializer until one record arrived. */
    private ConsumerRecord<String, CloudEvent> sdkReceiveOne(String topic) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                prefix + "-sdk-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                CloudEventDeserializer.class);
        try (KafkaConsumer<String, CloudEvent> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, CloudEvent>> records = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return !records.isEmpty();
            });
            assertThat(records).hasSize(1);
            return records.getFirst();
        }
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("binary: an event the SDK's CloudEventSerializer wrote is read by a shove handler, typed")
    void sdkBinaryToShove() throws Exception {
        connect();
        CloudEventTopic<OrderPaid> orders = binary(ordersTopic());
        consume(orders);

        sdkSend(orders.name(), sdkEvent("sdk-bin-1"), "BINARY");

        await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 1);
        Seen one = seen.getFirst();
        assertThat(one.data()).isEqualTo(new OrderPaid("o-7", 700));
        assertThat(one.event().getId()).isEqualTo("sdk-bin-1");
        assertThat(one.event().getType()).isEqualTo("com.other.order.paid");
        assertThat(one.event().getSource()).isEqualTo(URI.create("https://other.example/orders"));
        assertThat(one.event().getSubject()).isEqualTo("o-7");
        assertThat(one.event().getTime()).isEqualTo(OffsetDateTime.of(2026, 12, 7, 10, 0, 0, 0, ZoneOffset.UTC));
        assertThat(one.event().getDataContentType()).isEqualTo("application/json");
        assertThat(one.event().getExtension("partner")).isEqualTo("other");
    }

    @Test
    @DisplayName("binary: an event shove published is read by the SDK's CloudEventDeserializer, its id the message id")
    void shoveBinaryToSdk() {
        connect();
        CloudEventTopic<OrderPaid> orders = binary(ordersTopic());
        broker.topology().declare(orders.topic());

        String id = CloudEventPublisher.of(broker)
                .publish(
                        orders,
                        new OrderPaid("o-1", 1299),
                        CloudEventOptions.builder()
                                .subject("o-1")
                                .extension("tenant", "acme")
                                .build());

        ConsumerRecord<String, CloudEvent> record = sdkReceiveOne(orders.name());
        CloudEvent event = record.value();
        assertThat(event.getId()).isEqualTo(id);
        assertThat(header(record, ShoveHeaders.MESSAGE_ID)).isEqualTo(id);
        assertThat(header(record, "ce_type")).isEqualTo("com.acme.order.paid");
        assertThat(event.getType()).isEqualTo("com.acme.order.paid");
        assertThat(event.getSource()).isEqualTo(SOURCE);
        assertThat(event.getSubject()).isEqualTo("o-1");
        assertThat(event.getTime()).isNotNull();
        assertThat(event.getExtension("tenant")).isEqualTo("acme");
        assertThat(event.getDataContentType()).isEqualTo("application/json");
        assertThat(new String(event.getData().toBytes(), StandardCharsets.UTF_8))
                .isEqualTo("{\"orderId\":\"o-1\",\"cents\":1299}");
    }

    @Test
    @DisplayName("structured: an event the SDK's serializer wrote as JSON is read by a shove handler, typed")
    void sdkStructuredToShove() throws Exception {
        connect();
        CloudEventTopic<OrderPaid> audit = structured(structuredTopic());
        consume(audit);

        sdkSend(audit.name(), sdkEvent("sdk-json-1"), "STRUCTURED");

        await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 1);
        Seen one = seen.getFirst();
        assertThat(one.data()).isEqualTo(new OrderPaid("o-7", 700));
        assertThat(one.event().getId()).isEqualTo("sdk-json-1");
        assertThat(one.event().getExtension("partner")).isEqualTo("other");
    }

    @Test
    @DisplayName(
            "structured: an event shove published is read by the SDK's deserializer as application/cloudevents+json")
    void shoveStructuredToSdk() throws Exception {
        connect();
        CloudEventTopic<OrderPaid> audit = structured(structuredTopic());
        broker.topology().declare(audit.topic());

        String id = CloudEventPublisher.of(broker).publish(audit, new OrderPaid("o-1", 1299));

        ConsumerRecord<String, CloudEvent> record = sdkReceiveOne(audit.name());
        CloudEvent event = record.value();
        assertThat(header(record, "content-type")).isEqualTo("application/cloudevents+json");
        assertThat(event.getId()).isEqualTo(id);
        assertThat(header(record, ShoveHeaders.MESSAGE_ID)).isEqualTo(id);
        assertThat(event.getType()).isEqualTo("com.acme.order.paid");
        assertThat(event.getDataContentType()).isEqualTo("application/json");
        assertThat(JSON.readTree(event.getData().toBytes()).get("orderId").asText())
                .isEqualTo("o-1");
    }
}
