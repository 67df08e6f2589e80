package dev.shove.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Broker;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** ShoveTracing's configuration and its small helpers. */
class ShoveTracingTest {
    record Order(String id) {}

    @Test
    @DisplayName("the defaults: W3C Trace Context and Baggage, producer spans, the message's context as parent")
    void defaults() {
        ShoveTracing tracing = ShoveTracing.of(OpenTelemetry.noop());

        assertThat(tracing.propagator()).isSameAs(ShoveTracing.DEFAULT_PROPAGATOR);
        assertThat(tracing.propagator().fields()).containsExactlyInAnyOrder("traceparent", "tracestate", "baggage");
        assertThat(tracing.producerSpans()).isTrue();
        assertThat(tracing.messageParent()).isTrue();
    }

    @Test
    @DisplayName("toBuilder starts from the configuration it was called on")
    void toBuilderKeepsSettings() {
        ShoveTracing tracing = ShoveTracing.builder(OpenTelemetry.noop())
                .propagator(W3CTraceContextPropagator.getInstance())
                .noProducerSpans()
                .build();

        ShoveTracing copy = tracing.toBuilder().noMessageParent().build();

        assertThat(copy.propagator()).isSameAs(W3CTraceContextPropagator.getInstance());
        assertThat(copy.producerSpans()).isFalse();
        assertThat(copy.messageParent()).isFalse();
        assertThat(tracing.messageParent()).isTrue();
    }

    @Test
    @DisplayName("extract reads the creation context and baggage a message carries")
    void extractReadsHeaders() {
        ShoveTracing tracing = ShoveTracing.of(OpenTelemetry.noop());
        MessageMetadata meta = MessageMetadata.of(
                "orders",
                "d-1",
                Map.of(
                        "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                        "baggage", "tenant=acme"));

        Context context = tracing.extract(meta);

        assertThat(Span.fromContext(context).getSpanContext().getSpanId()).isEqualTo("b7ad6b7169203331");
        assertThat(Baggage.fromContext(context).getEntryValue("tenant")).isEqualTo("acme");
        assertThat(tracing.extract(MessageMetadata.of("orders", "d-2", Map.of())))
                .isSameAs(Context.root());
    }

    @Test
    @DisplayName("dead-letter spans need a topic with a dead-letter queue")
    void deadLetterSpansNeedADlq() {
        ShoveTracing tracing = ShoveTracing.of(OpenTelemetry.noop());
        Topic<Order> noDlq = Topic.builder("orders", Order.class).build();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            assertThatThrownBy(() -> tracing.deadLetterSpans(broker, noDlq, () -> (o, m, c) -> Outcome.ack()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("topic 'orders' has no dead-letter queue");
        }
    }
}
