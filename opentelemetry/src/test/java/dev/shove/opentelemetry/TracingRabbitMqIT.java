package dev.shove.opentelemetry;

import static dev.shove.opentelemetry.SpanRecorder.attribute;
import static dev.shove.opentelemetry.SpanRecorder.id;
import static dev.shove.opentelemetry.SpanRecorder.links;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.shove.Broker;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.rabbitmq.RabbitMq;
import dev.shove.rabbitmq.RabbitMqConfig;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The trace context crosses a real RabbitMQ: out in the AMQP headers of the published message, back in the headers of
 * the delivery, and through a retry's hop (a copy published to the TTL hold queue, dead-lettered by the broker back to
 * the main queue) and a rejection to the dead-letter queue. {@code SHOVE_RABBITMQ_URI} points it at the broker (default
 * {@code amqp://guest:guest@127.0.0.1:5672}); a missing broker skips it, or fails it with {@code SHOVE_IT_REQUIRED=true}.
 */
class TracingRabbitMqIT {
    record Order(String id) {}

    private static final String URI_ENV = "SHOVE_RABBITMQ_URI";
    private static final Duration HOLD = Duration.ofMillis(200);

    private final String uri = BrokerAvailability.env(URI_ENV, "amqp://guest:guest@127.0.0.1:5672");
    private final String name = "it-otel-" + UUID.randomUUID().toString().substring(0, 8);
    private final Topic<Order> orders =
            Topic.builder(name, Order.class).holdQueue(HOLD).dlq().build();
    private final SpanRecorder spans = new SpanRecorder();
    private final ShoveTracing tracing = ShoveTracing.of(spans.sdk());
    private Broker<RabbitMq> broker;

    @BeforeAll
    static void requireBroker() {
        BrokerAvailability.require(
                "RabbitMQ",
                "rabbitmq",
                URI.create(BrokerAvailability.env(URI_ENV, "amqp://guest:guest@127.0.0.1:5672")),
                5672);
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            if (broker != null) {
                broker.close();
            }
            ConnectionFactory factory = new ConnectionFactory();
            factory.setUri(uri);
            try (Connection connection = factory.newConnection("shove-it-otel-cleanup");
                    Channel channel = connection.createChannel()) {
                for (String queue : List.of(name, name + "-hold-200ms", name + "-dlq")) {
                    channel.queueDelete(queue);
                }
            }
        } finally {
            spans.close();
        }
    }

    /** Connects, and consumes the topic with the tracing interceptor around {@code handler}. */
    private void consume(MessageHandler<Order, NoContext> handler) {
        broker = Broker.connect(
                RabbitMqConfig.builder(uri).connectionName("shove-it-otel").build());
        var group = broker.consumerGroup().withInterceptor(tracing.interceptor(broker));
        group.register(orders, tracing.deadLetterSpans(broker, orders, () -> handler));
        group.start();
    }

    @Test
    @DisplayName("the consumer span of a message read from RabbitMQ is the child of its producer span, in its trace")
    void contextCrossesTheWire() {
        AtomicReference<Map<String, String>> headers = new AtomicReference<>();
        consume((order, meta, ctx) -> {
            headers.set(meta.headers());
            return Outcome.ack();
        });

        tracing.publisher(broker).publishWithHeaders(orders, new Order("o-1"), Map.of("tenant", "acme"));

        SpanData process = spans.awaitOne("process " + name);
        SpanData send = spans.awaitOne("send " + name);
        assertThat(process.getTraceId()).isEqualTo(send.getTraceId());
        assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
        assertThat(links(process)).containsExactly(id(send));
        assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(attribute(process, MessagingAttributes.SYSTEM)).isEqualTo("rabbitmq");
        assertThat(attribute(send, MessagingAttributes.SYSTEM)).isEqualTo("rabbitmq");
        assertThat(attribute(process, MessagingAttributes.DESTINATION_NAME)).isEqualTo(name);
        assertThat(headers.get()).containsEntry("tenant", "acme").containsKey("traceparent");
    }

    @Test
    @DisplayName("a retry's hop through the hold queue keeps the trace: both runs are the producer span's children")
    void retryHopKeepsTheTrace() {
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        consume((order, meta, ctx) -> failedOnce.add(order.id()) ? Outcome.retry() : Outcome.ack());

        tracing.publisher(broker).publish(orders, new Order("o-1"));

        List<SpanData> runs = spans.await("process " + name, 2);
        SpanData send = spans.awaitOne("send " + name);
        assertThat(runs)
                .allSatisfy(run -> {
                    assertThat(run.getTraceId()).isEqualTo(send.getTraceId());
                    assertThat(run.getParentSpanId()).isEqualTo(send.getSpanId());
                })
                .extracting(run -> attribute(run, MessagingAttributes.SHOVE_RETRY_COUNT))
                .containsExactly(0L, 1L);
        assertThat(attribute(runs.get(1), MessagingAttributes.MESSAGE_ID))
                .isEqualTo(attribute(runs.get(0), MessagingAttributes.MESSAGE_ID));
    }

    @Test
    @DisplayName("a message rejected to the dead-letter queue reaches handleDead in its trace")
    void deadLetterKeepsTheTrace() {
        AtomicReference<String> reason = new AtomicReference<>();
        consume(new MessageHandler<>() {
            @Override
            public Outcome handle(Order order, MessageMetadata meta, NoContext ctx) {
                return Outcome.reject("no such customer");
            }

            @Override
            public void handleDead(Order order, DeadMessageMetadata meta, NoContext ctx) {
                reason.set(meta.reason());
            }
        });

        tracing.publisher(broker).publish(orders, new Order("o-1"));

        SpanData dead = spans.awaitOne("process " + name + "-dlq");
        SpanData send = spans.awaitOne("send " + name);
        assertThat(dead.getTraceId()).isEqualTo(send.getTraceId());
        assertThat(dead.getParentSpanId()).isEqualTo(send.getSpanId());
        await().atMost(SpanRecorder.TIMEOUT).until(() -> reason.get() != null);
        assertThat(attribute(dead, MessagingAttributes.SHOVE_DEATH_REASON)).isEqualTo(reason.get());
    }
}
