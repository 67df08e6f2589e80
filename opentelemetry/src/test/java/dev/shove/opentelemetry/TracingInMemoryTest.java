package dev.shove.opentelemetry;

import static dev.shove.opentelemetry.SpanRecorder.attribute;
import static dev.shove.opentelemetry.SpanRecorder.id;
import static dev.shove.opentelemetry.SpanRecorder.links;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Tracing end to end on the in-memory broker, with the SDK's in-memory exporter. */
class TracingInMemoryTest {
    record Order(String id) {}

    private static final Duration HOLD = Duration.ofMillis(50);
    /** For dead letters published straight to the DLQ: only a group that reads the queue hands them to handleDead. */
    private static final ConsumerGroupConfig REMOVING_DEAD_LETTERS =
            ConsumerGroupConfig.builder().handleAndRemoveDeadLetters().build();

    private final SpanRecorder spans = new SpanRecorder();
    private final ShoveTracing tracing = ShoveTracing.of(spans.sdk());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Broker<InMemory> broker =
            Broker.builder(InMemoryConfig.ofDefaults()).meterRegistry(registry).connect();

    @AfterEach
    void close() {
        broker.close();
        spans.close();
    }

    private static Topic<Order> topic(String name) {
        return Topic.builder(name, Order.class).holdQueue(HOLD).dlq().build();
    }

    /** Consumes {@code topic} with the tracing interceptor around {@code handler}. */
    private void consume(Topic<Order> topic, MessageHandler<Order, NoContext> handler) {
        var group = broker.consumerGroup().withInterceptor(tracing.interceptor(broker));
        group.register(topic, () -> handler);
        group.start();
    }

    @Test
    @DisplayName("a traced publish's consumer span is the child of its producer span, in its trace, and links to it")
    void consumerSpanIsTheProducersChild() {
        Topic<Order> orders = topic("orders");
        consume(orders, (order, meta, ctx) -> Outcome.ack());

        tracing.publisher(broker).publish(orders, new Order("o-1"));

        SpanData process = spans.awaitOne("process orders");
        SpanData send = spans.awaitOne("send orders");
        assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(process.getTraceId()).isEqualTo(send.getTraceId());
        assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
        assertThat(links(process)).containsExactly(id(send));
    }

    @Test
    @DisplayName("spans carry the messaging attributes: system, destination, operation, message id, group, retry count")
    void spansCarryTheMessagingAttributes() {
        Topic<Order> orders = topic("orders");
        AtomicReference<MessageMetadata> seen = new AtomicReference<>();
        consume(orders, (order, meta, ctx) -> {
            seen.set(meta);
            return Outcome.ack();
        });

        tracing.publisher(broker).publish(orders, new Order("o-1"));

        SpanData process = spans.awaitOne("process orders");
        SpanData send = spans.awaitOne("send orders");
        assertThat(attribute(send, MessagingAttributes.SYSTEM)).isEqualTo("shove.memory");
        assertThat(attribute(send, MessagingAttributes.DESTINATION_NAME)).isEqualTo("orders");
        assertThat(attribute(send, MessagingAttributes.OPERATION_TYPE)).isEqualTo("send");
        assertThat(attribute(send, MessagingAttributes.OPERATION_NAME)).isEqualTo("send");

        assertThat(attribute(process, MessagingAttributes.SYSTEM)).isEqualTo("shove.memory");
        assertThat(attribute(process, MessagingAttributes.DESTINATION_NAME)).isEqualTo("orders");
        assertThat(attribute(process, MessagingAttributes.OPERATION_TYPE)).isEqualTo("process");
        assertThat(attribute(process, MessagingAttributes.OPERATION_NAME)).isEqualTo("process");
        assertThat(attribute(process, MessagingAttributes.CONSUMER_GROUP_NAME)).isEqualTo("orders");
        assertThat(attribute(process, MessagingAttributes.MESSAGE_ID))
                .isEqualTo(seen.get().header(ShoveHeaders.MESSAGE_ID).orElseThrow());
        assertThat(attribute(process, MessagingAttributes.SHOVE_RETRY_COUNT)).isZero();
        assertThat(attribute(process, MessagingAttributes.SHOVE_OUTCOME)).isEqualTo("ack");
        assertThat(process.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    }

    @Test
    @DisplayName("the publisher's own headers survive beside the trace context")
    void userHeadersSurvive() {
        Topic<Order> orders = topic("orders");
        AtomicReference<Map<String, String>> headers = new AtomicReference<>();
        consume(orders, (order, meta, ctx) -> {
            headers.set(meta.headers());
            return Outcome.ack();
        });

        tracing.publisher(broker).publishWithHeaders(orders, new Order("o-1"), Map.of("tenant", "acme"));

        SpanData send = spans.awaitOne("send orders");
        await().atMost(SpanRecorder.TIMEOUT).until(() -> headers.get() != null);
        assertThat(headers.get())
                .containsEntry("tenant", "acme")
                .hasEntrySatisfying(
                        "traceparent",
                        traceparent -> assertThat(traceparent)
                                .startsWith("00-%s-%s-".formatted(send.getTraceId(), send.getSpanId())));
    }

    @Test
    @DisplayName("a retried message's runs are consumer spans of the producer's trace, with retry counts 0 and 1")
    void retriesStayInTheTrace() {
        Topic<Order> orders = topic("orders");
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        consume(orders, (order, meta, ctx) -> failedOnce.add(order.id()) ? Outcome.retry() : Outcome.ack());

        tracing.publisher(broker).publish(orders, new Order("o-1"));

        List<SpanData> runs = spans.await("process orders", 2);
        SpanData send = spans.awaitOne("send orders");
        assertThat(runs)
                .allSatisfy(run -> {
                    assertThat(run.getTraceId()).isEqualTo(send.getTraceId());
                    assertThat(run.getParentSpanId()).isEqualTo(send.getSpanId());
                })
                .extracting(run -> attribute(run, MessagingAttributes.SHOVE_RETRY_COUNT))
                .containsExactly(0L, 1L);
        SpanData first = runs.get(0);
        assertThat(attribute(first, MessagingAttributes.SHOVE_OUTCOME)).isEqualTo("retry");
        assertThat(first.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attribute(first, MessagingAttributes.ERROR_TYPE)).isEqualTo("retry");
        assertThat(attribute(runs.get(1), MessagingAttributes.SHOVE_OUTCOME)).isEqualTo("ack");
    }

    @Test
    @DisplayName("a handler that throws ends its span with status ERROR and the exception recorded")
    void exceptionsAreRecorded() {
        Topic<Order> orders = topic("orders");
        Set<String> thrownOnce = ConcurrentHashMap.newKeySet();
        consume(orders, (order, meta, ctx) -> {
            if (thrownOnce.add(order.id())) {
                throw new IllegalStateException("ledger down");
            }
            return Outcome.ack();
        });

        tracing.publisher(broker).publish(orders, new Order("o-1"));

        SpanData failed = spans.awaitOne("process orders");
        assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failed.getStatus().getDescription()).isEqualTo("ledger down");
        assertThat(attribute(failed, MessagingAttributes.ERROR_TYPE)).isEqualTo("java.lang.IllegalStateException");
        assertThat(failed.getEvents()).singleElement().satisfies(event -> {
            assertThat(event.getName()).isEqualTo("exception");
            assertThat(event.getAttributes().asMap().toString())
                    .contains("java.lang.IllegalStateException")
                    .contains("ledger down");
        });
        assertThat(failed.getAttributes().get(MessagingAttributes.SHOVE_OUTCOME))
                .as("the outcome of a throw is the registration's to decide")
                .isNull();
    }

    @Test
    @DisplayName("a reply carries the consumer's context: the reply's consumer span is in the request's trace")
    void repliesStayInTheTrace() {
        Topic<Order> requests = topic("requests");
        Topic<Order> replies = topic("replies");
        AtomicReference<Map<String, String>> replyHeaders = new AtomicReference<>();
        var group = broker.consumerGroup().withInterceptor(tracing.interceptor(broker));
        group.register(
                requests,
                () -> (order, meta, ctx) -> Outcome.ack()
                        .withReply(replies, new Order(order.id() + "-reply"), Map.of("correlation-id", "c-1")));
        group.register(replies, () -> (order, meta, ctx) -> {
            replyHeaders.set(meta.headers());
            return Outcome.ack();
        });
        group.start();

        tracing.publisher(broker).publish(requests, new Order("q-1"));

        SpanData replyProcess = spans.awaitOne("process replies");
        SpanData requestSend = spans.awaitOne("send requests");
        SpanData requestProcess = spans.awaitOne("process requests");
        SpanData replyCreate = spans.awaitOne("create replies");
        assertThat(replyProcess.getTraceId()).isEqualTo(requestSend.getTraceId());
        assertThat(replyProcess.getParentSpanId()).isEqualTo(replyCreate.getSpanId());
        assertThat(replyCreate.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(replyCreate.getParentSpanId()).isEqualTo(requestProcess.getSpanId());
        assertThat(replyHeaders.get()).containsEntry("correlation-id", "c-1");
    }

    @Test
    @DisplayName("a message published without tracing still gets a consumer span, the root of a new trace")
    void untracedMessagesStartATrace() {
        Topic<Order> orders = topic("orders");
        consume(orders, (order, meta, ctx) -> Outcome.ack());

        broker.publisher().publish(orders, new Order("o-1"));

        SpanData process = spans.awaitOne("process orders");
        assertThat(process.getParentSpanContext().isValid()).isFalse();
        assertThat(process.getLinks()).isEmpty();
        assertThat(process.getTraceId()).isNotEqualTo(SpanContext.getInvalid().getTraceId());
    }

    @Test
    @DisplayName(
            "a batch gets a create span per message and one send span linking them; each consumer span is the child"
                    + " of its message's create span")
    void batchesGetASpanPerMessage() {
        Topic<Order> orders = topic("orders");
        consume(orders, (order, meta, ctx) -> Outcome.ack());

        tracing.publisher(broker).publishBatch(orders, List.of(new Order("o-1"), new Order("o-2"), new Order("o-3")));

        List<SpanData> processes = spans.await("process orders", 3);
        List<SpanData> creates = spans.await("create orders", 3);
        SpanData send = spans.awaitOne("send orders");
        assertThat(send.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(attribute(send, MessagingAttributes.BATCH_MESSAGE_COUNT)).isEqualTo(3L);
        assertThat(links(send))
                .containsExactlyInAnyOrderElementsOf(
                        creates.stream().map(SpanRecorder::id).toList());
        assertThat(creates).allSatisfy(create -> {
            assertThat(create.getKind()).isEqualTo(SpanKind.PRODUCER);
            assertThat(attribute(create, MessagingAttributes.MESSAGE_BODY_SIZE)).isEqualTo(12L); // {"id":"o-1"}
        });
        assertThat(processes)
                .extracting(SpanData::getParentSpanId)
                .containsExactlyInAnyOrderElementsOf(
                        creates.stream().map(SpanData::getSpanId).toList());
    }

    @Test
    @DisplayName("a dead letter's handleDead runs in a consumer span of the message's trace, and extract finds the"
            + " producer's context")
    void deadLettersStayInTheTrace() {
        Topic<Order> orders = topic("orders");
        AtomicReference<SpanContext> extracted = new AtomicReference<>();
        AtomicReference<SpanContext> current = new AtomicReference<>();
        MessageHandler<Order, NoContext> handler = new MessageHandler<>() {
            @Override
            public Outcome handle(Order order, MessageMetadata meta, NoContext ctx) {
                return Outcome.reject("no such customer");
            }

            @Override
            public void handleDead(Order order, DeadMessageMetadata meta, NoContext ctx) {
                extracted.set(Span.fromContext(tracing.extract(meta.message())).getSpanContext());
                current.set(Span.current().getSpanContext());
            }
        };
        var group = broker.consumerGroup().withInterceptor(tracing.interceptor(broker));
        group.register(orders, tracing.deadLetterSpans(broker, orders, () -> handler));
        group.start();

        tracing.publisher(broker).publish(orders, new Order("o-1"));

        SpanData dead = spans.awaitOne("process orders-dlq");
        SpanData send = spans.awaitOne("send orders");
        assertThat(dead.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(dead.getTraceId()).isEqualTo(send.getTraceId());
        assertThat(dead.getParentSpanId()).isEqualTo(send.getSpanId());
        assertThat(attribute(dead, MessagingAttributes.DESTINATION_NAME)).isEqualTo("orders-dlq");
        assertThat(attribute(dead, MessagingAttributes.SHOVE_DEATH_REASON)).isEqualTo("rejected: no such customer");
        assertThat(attribute(dead, MessagingAttributes.SHOVE_DEATH_COUNT)).isEqualTo(1L);
        assertThat(current.get()).isEqualTo(dead.getSpanContext());
        assertThat(extracted.get().getSpanId()).isEqualTo(send.getSpanId());
    }

    @Test
    @DisplayName("wrapping a handler that keeps the default handleUnreadableDead keeps its unreadable dead letters"
            + " counted as discarded")
    void unreadableDeadLettersStayCounted() {
        Topic<Order> orders = topic("orders");
        var group = broker.consumerGroup().withInterceptor(tracing.interceptor(broker));
        group.register(
                orders,
                REMOVING_DEAD_LETTERS,
                tracing.deadLetterSpans(broker, orders, () -> (order, meta, ctx) -> Outcome.ack()));
        group.start();

        Topic<byte[]> dlqAsRaw = Topic.builder("orders-dlq", byte[].class).build();
        broker.publisher().publish(dlqAsRaw, "not json".getBytes(StandardCharsets.UTF_8));

        await().atMost(SpanRecorder.TIMEOUT).until(() -> {
            Counter discarded = registry.find("shove.messages.discarded")
                    .tag("topic", "orders-dlq")
                    .tag("reason", "decode")
                    .counter();
            return discarded != null && discarded.count() == 1.0;
        });
    }

    @Test
    @DisplayName("a handler's own handleUnreadableDead runs in a consumer span of the dead letter")
    void unreadableDeadLettersAreTracedWhenHandled() {
        Topic<Order> orders = topic("orders");
        List<Integer> unreadable = new CopyOnWriteArrayList<>();
        MessageHandler<Order, NoContext> handler = new MessageHandler<>() {
            @Override
            public Outcome handle(Order order, MessageMetadata meta, NoContext ctx) {
                return Outcome.ack();
            }

            @Override
            public void handleUnreadableDead(byte[] payload, DeadMessageMetadata meta, NoContext ctx) {
                unreadable.add(payload.length);
            }
        };
        var group = broker.consumerGroup().withInterceptor(tracing.interceptor(broker));
        group.register(orders, REMOVING_DEAD_LETTERS, tracing.deadLetterSpans(broker, orders, () -> handler));
        group.start();

        Topic<byte[]> dlqAsRaw = Topic.builder("orders-dlq", byte[].class).build();
        tracing.publisher(broker).publish(dlqAsRaw, "not json".getBytes(StandardCharsets.UTF_8));

        SpanData dead = spans.awaitOne("process orders-dlq");
        assertThat(unreadable).containsExactly(8);
        assertThat(attribute(dead, MessagingAttributes.MESSAGE_BODY_SIZE)).isEqualTo(8L);
        assertThat(dead.getTraceId())
                .isEqualTo(spans.awaitOne("send orders-dlq").getTraceId());
    }

    @Test
    @DisplayName("without producer spans a message carries the context current at publish: the consumer span is its"
            + " child")
    @SuppressWarnings("try") // the scope is only closed
    void withoutProducerSpansTheCurrentContextTravels() {
        ShoveTracing noProducers = tracing.toBuilder().noProducerSpans().build();
        Topic<Order> orders = topic("orders");
        var group = broker.consumerGroup().withInterceptor(noProducers.interceptor(broker));
        group.register(orders, () -> (order, meta, ctx) -> Outcome.ack());
        group.start();

        Span request = spans.sdk().getTracer("test").spanBuilder("request").startSpan();
        try (Scope ignored = request.makeCurrent()) {
            noProducers.publisher(broker).publish(orders, new Order("o-1"));
        } finally {
            request.end();
        }

        SpanData process = spans.awaitOne("process orders");
        assertThat(process.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
        assertThat(spans.named("send orders")).isEmpty();
    }

    @Test
    @DisplayName("with noMessageParent the consumer span starts a new trace and only links to the producer span")
    void noMessageParentLinksOnly() {
        ShoveTracing linksOnly = tracing.toBuilder().noMessageParent().build();
        Topic<Order> orders = topic("orders");
        var group = broker.consumerGroup().withInterceptor(linksOnly.interceptor(broker));
        group.register(orders, () -> (order, meta, ctx) -> Outcome.ack());
        group.start();

        linksOnly.publisher(broker).publish(orders, new Order("o-1"));

        SpanData process = spans.awaitOne("process orders");
        SpanData send = spans.awaitOne("send orders");
        assertThat(process.getParentSpanContext().isValid()).isFalse();
        assertThat(process.getTraceId()).isNotEqualTo(send.getTraceId());
        assertThat(links(process)).containsExactly(id(send));
    }

    @Test
    @DisplayName("publishAsync sends in a producer span that ends when the broker accepted the message")
    void asyncPublishesAreTraced() throws Exception {
        Topic<Order> orders = topic("orders");
        consume(orders, (order, meta, ctx) -> Outcome.ack());

        tracing.publisher(broker)
                .publishAsync(orders, new Order("o-1"), Map.of())
                .get(SpanRecorder.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

        SpanData send = spans.awaitOne("send orders");
        SpanData process = spans.awaitOne("process orders");
        assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
    }

    @Test
    @DisplayName("a registration with a group name reports it as messaging.consumer.group.name")
    void namedGroupsAreReported() {
        Topic<Order> orders = topic("orders");
        var group = broker.consumerGroup();
        group.register(
                orders,
                ConsumerGroupConfig.builder()
                        .groupName("billing")
                        .interceptors(tracing.interceptor(broker))
                        .build(),
                () -> (order, meta, ctx) -> Outcome.ack());
        group.start();

        tracing.publisher(broker).publish(orders, new Order("o-1"));

        assertThat(attribute(spans.awaitOne("process orders"), MessagingAttributes.CONSUMER_GROUP_NAME))
                .isEqualTo("billing");
    }
}
