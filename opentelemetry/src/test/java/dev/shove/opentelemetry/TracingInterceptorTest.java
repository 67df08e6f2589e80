package dev.shove.opentelemetry;

import static dev.shove.opentelemetry.SpanRecorder.attribute;
import static dev.shove.opentelemetry.SpanRecorder.id;
import static dev.shove.opentelemetry.SpanRecorder.links;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.shove.Invocation;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.Topic;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The interceptor on hand-made invocations: attributes that need a backend's metadata, and the outcome it returns. */
class TracingInterceptorTest {
    record Order(String id) {}

    private static final Topic<Order> ORDERS =
            Topic.builder("orders", Order.class).dlq().build();
    private static final Topic<Order> RECEIPTS =
            Topic.builder("receipts", Order.class).build();
    private static final Topic<byte[]> FRAMES =
            Topic.builder("frames", byte[].class).build();
    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private final SpanRecorder spans = new SpanRecorder();
    private final ShoveTracing tracing = ShoveTracing.of(spans.sdk());

    @AfterEach
    void close() {
        spans.close();
    }

    /** One call as the engine would make it: the handler is {@code handler}. */
    record Call(Topic<?> topic, Object message, MessageMetadata metadata, Callable<Outcome> handler)
            implements Invocation {
        @Override
        public String groupName() {
            return topic.name();
        }

        @Override
        public Object context() {
            return "context";
        }

        @Override
        public Outcome proceed() throws Exception {
            return handler.call();
        }

        @Override
        public Outcome proceed(Object context) throws Exception {
            return handler.call();
        }
    }

    private static MessageMetadata metadata(Map<String, String> headers, int partition, long offset) {
        return new MessageMetadata(
                "orders",
                0,
                "d-1",
                false,
                OptionalInt.of(1),
                headers,
                partition < 0 ? OptionalInt.empty() : OptionalInt.of(partition),
                offset < 0 ? OptionalLong.empty() : OptionalLong.of(offset),
                OptionalLong.empty(),
                Optional.empty());
    }

    private static Call call(Callable<Outcome> handler) {
        return new Call(ORDERS, new Order("o-1"), metadata(Map.of("traceparent", TRACEPARENT), -1, -1), handler);
    }

    private Outcome intercept(String system, Call call) throws Exception {
        return new TracingInterceptor(tracing, system).intercept(call);
    }

    @Test
    @DisplayName("on Kafka a consumer span reports the partition and the offset")
    void kafkaPartitionAndOffset() throws Exception {
        intercept("kafka", new Call(ORDERS, new Order("o-1"), metadata(Map.of(), 3, 42), Outcome::ack));

        SpanData process = spans.awaitOne("process orders");
        assertThat(attribute(process, MessagingAttributes.SYSTEM)).isEqualTo("kafka");
        assertThat(attribute(process, MessagingAttributes.DESTINATION_PARTITION_ID))
                .isEqualTo("3");
        assertThat(attribute(process, MessagingAttributes.KAFKA_OFFSET)).isEqualTo(42L);
    }

    @Test
    @DisplayName("on another backend an offset is not reported as a Kafka offset")
    void noKafkaOffsetElsewhere() throws Exception {
        intercept("shove.memory", new Call(ORDERS, new Order("o-1"), metadata(Map.of(), 0, 7), Outcome::ack));

        SpanData process = spans.awaitOne("process orders");
        assertThat(process.getAttributes().get(MessagingAttributes.KAFKA_OFFSET))
                .isNull();
        assertThat(attribute(process, MessagingAttributes.DESTINATION_PARTITION_ID))
                .isEqualTo("0");
    }

    @Test
    @DisplayName("a byte[] message reports its body size")
    void rawBodySize() throws Exception {
        intercept("kafka", new Call(FRAMES, new byte[] {1, 2, 3}, metadata(Map.of(), -1, -1), Outcome::ack));

        assertThat(attribute(spans.awaitOne("process frames"), MessagingAttributes.MESSAGE_BODY_SIZE))
                .isEqualTo(3L);
    }

    @Test
    @DisplayName("a handler that returns nothing ends the span with status ERROR, and shove gets the null back")
    void noOutcome() throws Exception {
        Outcome outcome = intercept("kafka", call(() -> null));

        assertThat(outcome).isNull();
        SpanData process = spans.awaitOne("process orders");
        assertThat(process.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attribute(process, MessagingAttributes.ERROR_TYPE)).isEqualTo("no_outcome");
    }

    @Test
    @DisplayName("a reject ends the span with status ERROR and reports its reason")
    void rejectIsAnError() throws Exception {
        intercept("kafka", call(() -> Outcome.reject("no such customer")));

        SpanData process = spans.awaitOne("process orders");
        assertThat(process.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attribute(process, MessagingAttributes.SHOVE_OUTCOME)).isEqualTo("reject");
        assertThat(attribute(process, MessagingAttributes.SHOVE_REJECT_REASON)).isEqualTo("no such customer");
        assertThat(attribute(process, MessagingAttributes.ERROR_TYPE)).isEqualTo("reject");
    }

    @Test
    @DisplayName("a defer is not an error")
    void deferIsNoError() throws Exception {
        intercept("kafka", call(Outcome::defer));

        SpanData process = spans.awaitOne("process orders");
        assertThat(process.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(attribute(process, MessagingAttributes.SHOVE_OUTCOME)).isEqualTo("defer");
    }

    @Test
    @DisplayName("replies keep their order, topics, messages and headers, and gain the trace context; the seek stays")
    void repliesGainTheTraceContext() throws Exception {
        Position position = new Position.Captured("orders", 0, 5);
        Outcome returned = Outcome.ack()
                .withReply(RECEIPTS, new Order("r-1"), Map.of("correlation-id", "c-1"))
                .withReply(ORDERS, new Order("r-2"))
                .andThen(() -> {})
                .andSeek(position);

        Outcome outcome = intercept("kafka", call(() -> returned));

        assertThat(outcome.kind()).isEqualTo(Outcome.Kind.ACK);
        assertThat(outcome.seek()).contains(position);
        assertThat(outcome.continuation()).isPresent();
        assertThat(outcome.replies())
                .extracting(r -> r.topic().name(), Outcome.Reply::message)
                .containsExactly(tuple("receipts", new Order("r-1")), tuple("orders", new Order("r-2")));
        List<SpanData> creates = spans.finished().stream()
                .filter(s -> s.getName().startsWith("create "))
                .toList();
        SpanData process = spans.awaitOne("process orders");
        assertThat(creates).extracting(SpanData::getName).containsExactly("create receipts", "create orders");
        assertThat(creates).allSatisfy(c -> assertThat(c.getParentSpanId()).isEqualTo(process.getSpanId()));
        assertThat(outcome.replies().get(0).headers())
                .containsEntry("correlation-id", "c-1")
                .hasEntrySatisfying(
                        "traceparent",
                        tp -> assertThat(tp).contains(creates.get(0).getSpanId()));
        assertThat(outcome.replies().get(1).headers())
                .hasEntrySatisfying(
                        "traceparent",
                        tp -> assertThat(tp).contains(creates.get(1).getSpanId()));
    }

    @Test
    @DisplayName("a reply that carries a creation context of its own keeps it")
    void aRepliesOwnContextIsKept() throws Exception {
        Map<String, String> own = Map.of("traceparent", "00-11111111111111111111111111111111-2222222222222222-01");

        Outcome outcome = intercept("kafka", call(() -> Outcome.ack().withReply(RECEIPTS, new Order("r-1"), own)));

        assertThat(outcome.replies().getFirst().headers()).isEqualTo(own);
        spans.awaitOne("process orders");
        assertThat(spans.named("create receipts")).isEmpty();
    }

    @Test
    @DisplayName("the continuation runs in the consumer span's context, wherever it runs")
    void continuationRunsInTheSpansContext() throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        Outcome outcome = intercept(
                "kafka",
                call(() ->
                        Outcome.ack().andThen(() -> seen.set(id(Span.current().getSpanContext())))));

        Thread thread = Thread.ofVirtual().start(outcome.continuation().orElseThrow());
        thread.join(SpanRecorder.TIMEOUT);

        assertThat(seen.get()).isEqualTo(id(spans.awaitOne("process orders")));
    }

    @Test
    @DisplayName("inside another span, the consumer span is the message's child and links to both contexts")
    @SuppressWarnings("try") // the scope is only closed
    void ambientSpanBecomesALink() throws Exception {
        Span ambient = spans.sdk().getTracer("test").spanBuilder("http request").startSpan();
        try (Scope ignored = ambient.makeCurrent()) {
            intercept("kafka", call(Outcome::ack));
        } finally {
            ambient.end();
        }

        SpanData process = spans.awaitOne("process orders");
        assertThat(process.getParentSpanId()).isEqualTo("b7ad6b7169203331");
        assertThat(links(process))
                .containsExactly("0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331", id(ambient.getSpanContext()));
    }

    static Stream<Outcome> outcomes() {
        Position position = Position.sequence(9);
        return Stream.of(
                Outcome.ack(),
                Outcome.ack().andSeek(position),
                Outcome.retry(),
                Outcome.retry(Duration.ofSeconds(3)),
                Outcome.retry().andSeek(position),
                Outcome.reject(),
                Outcome.reject("no such customer"),
                Outcome.defer(),
                Outcome.defer(Duration.ofMinutes(2)).andSeek(position));
    }

    @ParameterizedTest
    @MethodSource("outcomes")
    @DisplayName("a rebuilt outcome keeps kind, delay, reason and seek, and wraps the continuation")
    void rebuildKeepsTheOutcome(Outcome outcome) {
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger wrapped = new AtomicInteger();
        Outcome withContinuation = outcome.andThen(ran::incrementAndGet);

        Outcome rebuilt = TracingInterceptor.rebuild(withContinuation, Outcome.Reply::headers, c -> () -> {
            wrapped.incrementAndGet();
            c.run();
        });

        assertThat(rebuilt).isEqualTo(outcome).isNotSameAs(withContinuation);
        assertThat(rebuilt.kind()).isEqualTo(outcome.kind());
        assertThat(rebuilt.delay()).isEqualTo(outcome.delay());
        assertThat(rebuilt.reason()).isEqualTo(outcome.reason());
        assertThat(rebuilt.seek()).isEqualTo(outcome.seek());
        rebuilt.continuation().orElseThrow().run();
        assertThat(ran).hasValue(1);
        assertThat(wrapped).hasValue(1);
    }

    @ParameterizedTest
    @MethodSource("outcomes")
    @DisplayName("an outcome with neither replies nor a continuation is returned as it is")
    void plainOutcomesAreNotRebuilt(Outcome outcome) {
        assertThat(TracingInterceptor.rebuild(outcome, r -> Map.of("x", "y"), c -> () -> {}))
                .isSameAs(outcome);
    }
}
