package dev.shove.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.awaitility.Awaitility;

/**
 * An OpenTelemetry SDK whose finished spans stay in memory ({@link InMemorySpanExporter}), for tests. It has no
 * propagators of its own: {@link ShoveTracing} brings W3C Trace Context and Baggage by default.
 */
final class SpanRecorder implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();

    OpenTelemetrySdk sdk() {
        return sdk;
    }

    /** Every span finished so far, in the order they ended. */
    List<SpanData> finished() {
        return exporter.getFinishedSpanItems();
    }

    /** The finished spans with this name, in the order they ended. */
    List<SpanData> named(String name) {
        return finished().stream().filter(s -> s.getName().equals(name)).toList();
    }

    /** Waits until {@code count} spans with this name have finished, and returns them in the order they ended. */
    List<SpanData> await(String name, int count) {
        Awaitility.await().atMost(TIMEOUT).until(() -> named(name).size() >= count);
        return named(name);
    }

    /** Waits for the first span with this name. */
    SpanData awaitOne(String name) {
        return await(name, 1).getFirst();
    }

    /** The finished span with this span id. */
    SpanData byId(String spanId) {
        return finished().stream()
                .filter(s -> s.getSpanId().equals(spanId))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no finished span " + spanId + " among " + finished()));
    }

    static <T> T attribute(SpanData span, AttributeKey<T> key) {
        return Objects.requireNonNull(span.getAttributes().get(key), () -> key + " is not set on " + span);
    }

    /** The trace and span ids ({@code trace/span}) a span links to: local and remote contexts compare equal. */
    static List<String> links(SpanData span) {
        return span.getLinks().stream().map(l -> id(l.getSpanContext())).toList();
    }

    /** A span context's trace and span id, {@code trace/span}. */
    static String id(SpanContext context) {
        return context.getTraceId() + "/" + context.getSpanId();
    }

    static String id(SpanData span) {
        return id(span.getSpanContext());
    }

    @Override
    public void close() {
        sdk.close();
    }
}
