package dev.shove.opentelemetry;

import dev.shove.BatchPublishException;
import dev.shove.CodecException;
import dev.shove.PublishException;
import dev.shove.Publisher;
import dev.shove.Topic;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * A publisher that starts a producer span per message and writes its context into the message's headers, then
 * publishes through the broker's own publisher.
 *
 * <p>A single message gets a {@code send <topic>} span of kind PRODUCER, whose context is the message's creation
 * context. Headers that already carry a trace context (the caller's own creation context) are left as they are, and
 * the {@code send} span, of kind CLIENT then, links to that context, as the conventions ask.
 *
 * <p>{@link Publisher} has no batch method with headers, so a batch is published as one {@code publishAsync} per
 * message, all in flight together, after every message was encoded once to check it: as with the broker's own
 * {@code publishBatch}, a message that cannot be encoded publishes nothing. Each message gets a {@code create
 * <topic>} span (PRODUCER, its creation context), and one {@code send <topic>} span (CLIENT) covers the batch and
 * links to them, as in the conventions' batch example.
 */
final class TracingPublisher implements Publisher {
    private final Publisher delegate;
    private final ShoveTracing tracing;
    private final String system;

    TracingPublisher(Publisher delegate, ShoveTracing tracing, String system) {
        this.delegate = Objects.requireNonNull(delegate, "publisher");
        this.tracing = tracing;
        this.system = system;
    }

    @Override
    public <M> void publish(Topic<M> topic, M message) {
        publishWithHeaders(topic, message, Map.of());
    }

    @Override
    @SuppressWarnings("try") // the scope is only closed
    public <M> void publishWithHeaders(Topic<M> topic, M message, Map<String, String> headers) {
        Send send = start(topic, message, headers);
        try (Scope ignored = send.context().makeCurrent()) {
            delegate.publishWithHeaders(topic, message, send.headers());
        } catch (RuntimeException | Error e) {
            send.end(e);
            throw e;
        }
        send.end(null);
    }

    @Override
    @SuppressWarnings("try") // the scope is only closed
    public <M> CompletableFuture<Void> publishAsync(Topic<M> topic, M message, Map<String, String> headers) {
        Send send = start(topic, message, headers);
        CompletableFuture<Void> result;
        try (Scope ignored = send.context().makeCurrent()) {
            result = delegate.publishAsync(topic, message, send.headers());
        } catch (RuntimeException | Error e) {
            send.end(e);
            throw e;
        }
        result.whenComplete((ok, failure) -> send.end(failure == null ? null : unwrap(failure)));
        return result;
    }

    @Override
    @SuppressWarnings("try") // the scope is only closed
    public <M> void publishBatch(Topic<M> topic, List<? extends M> messages) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(messages, "messages");
        Context parent = Context.current();
        if (messages.isEmpty()
                || (!tracing.producerSpans() && tracing.inject(parent, Map.of()).isEmpty())) {
            delegate.publishBatch(topic, messages); // nothing to add to any message
            return;
        }
        long[] sizes = new long[messages.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = encodedSize(topic, messages.get(i));
        }

        List<Span> creates = new ArrayList<>(sizes.length);
        List<Map<String, String>> headers = new ArrayList<>(sizes.length);
        SpanBuilder batch = null;
        if (tracing.producerSpans()) {
            batch = spanBuilder(MessagingAttributes.SEND, topic, parent, SpanKind.CLIENT)
                    .setAttribute(MessagingAttributes.BATCH_MESSAGE_COUNT, (long) sizes.length);
            for (long size : sizes) {
                Span create = spanBuilder(MessagingAttributes.CREATE, topic, parent, SpanKind.PRODUCER)
                        .setAttribute(MessagingAttributes.MESSAGE_BODY_SIZE, size)
                        .startSpan();
                creates.add(create);
                headers.add(tracing.inject(parent.with(create), Map.of()));
                batch.addLink(create.getSpanContext());
            }
        } else {
            Map<String, String> current = tracing.inject(parent, Map.of());
            for (int i = 0; i < sizes.length; i++) {
                headers.add(current);
            }
        }
        Span send = batch == null ? null : batch.startSpan();
        Context sendContext = send == null ? parent : parent.with(send);

        List<CompletableFuture<Void>> results = new ArrayList<>(sizes.length);
        try (Scope ignored = sendContext.makeCurrent()) {
            for (int i = 0; i < sizes.length; i++) {
                CompletableFuture<Void> result;
                try {
                    result = delegate.publishAsync(topic, messages.get(i), headers.get(i));
                } catch (RuntimeException e) {
                    result = CompletableFuture.failedFuture(e);
                }
                if (!creates.isEmpty()) {
                    Span create = creates.get(i);
                    result.whenComplete((ok, failure) -> end(create, failure == null ? null : unwrap(failure)));
                }
                results.add(result);
            }
        }
        BatchPublishException failed = awaitAll(topic, results);
        if (send != null) {
            end(send, failed);
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** Waits for every message of a batch; the failures as the broker's publisher reports them, or null. */
    private static @Nullable BatchPublishException awaitAll(Topic<?> topic, List<CompletableFuture<Void>> results) {
        SortedMap<Integer, Throwable> failures = new TreeMap<>();
        for (int i = 0; i < results.size(); i++) {
            try {
                results.get(i).get();
            } catch (ExecutionException e) {
                failures.put(i, unwrap(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                for (int j = i; j < results.size(); j++) {
                    CompletableFuture<Void> result = results.get(j);
                    if (!result.isDone()) {
                        failures.put(j, new PublishException("interrupted while waiting for the broker", e));
                    } else if (result.isCompletedExceptionally()) {
                        failures.put(j, unwrap(result.exceptionNow()));
                    }
                }
                break;
            }
        }
        return failures.isEmpty() ? null : new BatchPublishException(topic.name(), results.size(), failures);
    }

    /**
     * Encodes a message of a batch as the broker's publisher will, so that one that cannot be encoded (or has no
     * ordering key) fails the batch before any message is published; returns its size in bytes.
     */
    private static <M> long encodedSize(Topic<M> topic, M message) {
        Objects.requireNonNull(message, "message");
        byte[] payload;
        try {
            payload = topic.codec().encode(message);
        } catch (Exception e) {
            throw new CodecException(
                    "cannot encode a message for topic '%s' with codec %s: %s"
                            .formatted(topic.name(), topic.codec().name(), e.getMessage()),
                    e);
        }
        topic.sequencing().ifPresent(s -> s.keyOf(message));
        return payload.length;
    }

    /** Starts what one message's publish needs: its span (if any), the context to publish in, its headers. */
    private <M> Send start(Topic<M> topic, M message, Map<String, String> headers) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(headers, "headers");
        Context parent = Context.current();
        SpanContext custom = ShoveTracing.spanContext(tracing.extract(headers));
        if (!tracing.producerSpans()) {
            return new Send(null, parent, custom.isValid() ? headers : tracing.inject(parent, headers));
        }
        SpanBuilder builder = spanBuilder(
                MessagingAttributes.SEND, topic, parent, custom.isValid() ? SpanKind.CLIENT : SpanKind.PRODUCER);
        if (message instanceof byte[] payload) {
            builder.setAttribute(MessagingAttributes.MESSAGE_BODY_SIZE, (long) payload.length);
        }
        if (custom.isValid()) {
            builder.addLink(custom);
        }
        Span span = builder.startSpan();
        Context context = parent.with(span);
        return new Send(span, context, custom.isValid() ? headers : tracing.inject(context, headers));
    }

    private SpanBuilder spanBuilder(String operation, Topic<?> topic, Context parent, SpanKind kind) {
        return tracing.tracer()
                .spanBuilder(operation + " " + topic.name())
                .setParent(parent)
                .setSpanKind(kind)
                .setAttribute(MessagingAttributes.SYSTEM, system)
                .setAttribute(MessagingAttributes.DESTINATION_NAME, topic.name())
                .setAttribute(MessagingAttributes.OPERATION_TYPE, operation)
                .setAttribute(MessagingAttributes.OPERATION_NAME, operation);
    }

    private static void end(Span span, @Nullable Throwable failure) {
        if (failure != null) {
            ShoveTracing.fail(span, failure);
        }
        span.end();
    }

    private static Throwable unwrap(Throwable t) {
        Throwable cur = t;
        while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
            cur = cur.getCause();
        }
        return cur;
    }

    /** One message's publish: its span (null without producer spans), the context to publish in, its headers. */
    private record Send(@Nullable Span span, Context context, Map<String, String> headers) {
        void end(@Nullable Throwable failure) {
            if (span != null) {
                TracingPublisher.end(span, failure);
            }
        }
    }

    @Override
    public String toString() {
        return "TracingPublisher[" + delegate + "]";
    }
}
