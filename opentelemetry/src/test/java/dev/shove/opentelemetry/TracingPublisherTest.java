package dev.shove.opentelemetry;

import static dev.shove.opentelemetry.SpanRecorder.attribute;
import static dev.shove.opentelemetry.SpanRecorder.links;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.BatchPublishException;
import dev.shove.Broker;
import dev.shove.Codec;
import dev.shove.CodecException;
import dev.shove.PublishException;
import dev.shove.Publisher;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The traced publisher keeps the {@link Publisher} contract: checked against a scripted publisher and the real one. */
class TracingPublisherTest {
    record Order(String id) {}

    /** Encodes an order as its id; refuses to encode the order "unencodable". */
    private static final Codec<Order> CODEC = new Codec<>() {
        @Override
        public byte[] encode(Order order) {
            if (order.id().equals("unencodable")) {
                throw new IllegalArgumentException("no encoding for " + order.id());
            }
            return order.id().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Order decode(byte[] payload) {
            return new Order(new String(payload, StandardCharsets.UTF_8));
        }

        @Override
        public String contentType() {
            return "text/plain";
        }
    };

    private static final Topic<Order> ORDERS = Topic.builder("orders", CODEC).build();

    private final SpanRecorder spans = new SpanRecorder();
    private final ShoveTracing tracing = ShoveTracing.of(spans.sdk());
    private final Scripted broker = new Scripted();

    @AfterEach
    void close() {
        spans.close();
    }

    /** A publisher that records each call; refuses the order "refused", or fails every call with {@link #failure}. */
    static final class Scripted implements Publisher {
        record Call(String method, Object messages, Map<String, String> headers) {}

        final List<Call> calls = new CopyOnWriteArrayList<>();
        RuntimeException failure;
        CompletableFuture<Void> next;

        @Override
        public <M> void publish(Topic<M> topic, M message) {
            publishWithHeaders(topic, message, Map.of());
        }

        @Override
        public <M> void publishWithHeaders(Topic<M> topic, M message, Map<String, String> headers) {
            if (failure != null) {
                throw failure;
            }
            calls.add(new Call("publishWithHeaders", message, headers));
        }

        @Override
        public <M> void publishBatch(Topic<M> topic, List<? extends M> messages) {
            calls.add(new Call("publishBatch", messages, Map.of()));
        }

        @Override
        public <M> CompletableFuture<Void> publishAsync(Topic<M> topic, M message, Map<String, String> headers) {
            calls.add(new Call("publishAsync", message, headers));
            if (next != null) {
                return next;
            }
            return message instanceof Order o && o.id().equals("refused")
                    ? CompletableFuture.failedFuture(new PublishException("refused by the broker", null, true))
                    : CompletableFuture.completedFuture(null);
        }
    }

    private Publisher traced() {
        return new TracingPublisher(broker, tracing, "kafka");
    }

    @Test
    @DisplayName("a publish the broker refuses ends its span with status ERROR and rethrows the broker's exception")
    void refusedPublish() {
        PublishException refused = new PublishException("broker unreachable", null, true);
        broker.failure = refused;

        assertThatThrownBy(() -> traced().publish(ORDERS, new Order("o-1"))).isSameAs(refused);

        SpanData send = spans.awaitOne("send orders");
        assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attribute(send, MessagingAttributes.ERROR_TYPE)).isEqualTo(PublishException.class.getName());
        assertThat(send.getEvents()).extracting(e -> e.getName()).containsExactly("exception");
    }

    @Test
    @DisplayName("headers that carry a creation context already are published as they are; the send span is a CLIENT"
            + " span linked to it")
    void aCallersCreationContextIsKept() {
        Map<String, String> own =
                Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tenant", "acme");

        traced().publishWithHeaders(ORDERS, new Order("o-1"), own);

        assertThat(broker.calls)
                .singleElement()
                .satisfies(c -> assertThat(c.headers()).isEqualTo(own));
        SpanData send = spans.awaitOne("send orders");
        assertThat(send.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(links(send)).containsExactly("0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331");
    }

    @Test
    @DisplayName("publishAsync returns the broker's own future; its span ends when that future completes")
    void asyncReturnsTheBrokersFuture() {
        broker.next = new CompletableFuture<>();

        CompletableFuture<Void> result = traced().publishAsync(ORDERS, new Order("o-1"), Map.of());

        assertThat(result).isSameAs(broker.next);
        assertThat(spans.named("send orders")).isEmpty();
        broker.next.completeExceptionally(new PublishException("nacked", null, true));
        SpanData send = spans.awaitOne("send orders");
        assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attribute(send, MessagingAttributes.ERROR_TYPE)).isEqualTo(PublishException.class.getName());
    }

    @Test
    @DisplayName("a batch with a message that cannot be encoded fails with a CodecException and publishes nothing")
    void batchEncodingFailurePublishesNothing() {
        List<Order> batch = List.of(new Order("o-1"), new Order("unencodable"), new Order("o-3"));

        assertThatThrownBy(() -> traced().publishBatch(ORDERS, batch))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("topic 'orders'")
                .hasMessageContaining("no encoding for unencodable");

        assertThat(broker.calls).isEmpty();
        assertThat(spans.finished()).isEmpty();
    }

    @Test
    @DisplayName("a batch with a message the broker refuses fails with a BatchPublishException naming its index; the"
            + " spans say which message failed")
    void batchRefusalNamesTheIndex() {
        List<Order> batch = List.of(new Order("o-1"), new Order("refused"), new Order("o-3"));

        assertThatThrownBy(() -> traced().publishBatch(ORDERS, batch))
                .isInstanceOfSatisfying(BatchPublishException.class, e -> {
                    assertThat(e.failedIndices()).containsExactly(1);
                    assertThat(e.failures().get(1)).hasMessage("refused by the broker");
                });

        assertThat(broker.calls).extracting(Scripted.Call::messages).containsExactlyElementsOf(batch);
        assertThat(spans.await("create orders", 3))
                .extracting(s -> s.getStatus().getStatusCode())
                .containsExactlyInAnyOrder(StatusCode.UNSET, StatusCode.ERROR, StatusCode.UNSET);
        assertThat(spans.awaitOne("send orders").getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    }

    @Test
    @DisplayName("without producer spans and without a current context, a batch goes to the broker's publishBatch as it"
            + " is")
    void untracedBatchIsOneBrokerBatch() {
        Publisher publisher = new TracingPublisher(
                broker, tracing.toBuilder().noProducerSpans().build(), "kafka");
        List<Order> batch = List.of(new Order("o-1"), new Order("o-2"));

        publisher.publishBatch(ORDERS, batch);

        assertThat(broker.calls).singleElement().satisfies(c -> {
            assertThat(c.method()).isEqualTo("publishBatch");
            assertThat(c.messages()).isEqualTo(batch);
        });
    }

    @Test
    @DisplayName("a reserved header is refused as without tracing, and nothing is published")
    void reservedHeadersAreRefused() {
        try (Broker<InMemory> memory = Broker.connect(InMemoryConfig.ofDefaults())) {
            memory.topology().declare(ORDERS);
            Publisher publisher = tracing.publisher(memory);

            assertThatThrownBy(() -> publisher.publishWithHeaders(ORDERS, new Order("o-1"), Map.of("shove-x", "1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reserved prefix");

            assertThat(InMemoryProbe.of(memory).depth("orders")).isZero();
        }
    }
}
