package dev.shove.opentelemetry;

import dev.shove.HandlerInterceptor;
import dev.shove.Invocation;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Runs each handler call in a {@code process <topic>} consumer span (see {@link ShoveTracing#consumerSpan} for its
 * parent and links), current while the rest of the chain runs.
 *
 * <p>The span's status is ERROR when the call threw (the exception recorded), returned nothing, or returned {@code
 * retry} or {@code reject}: a failure, transient or permanent, in shove's own terms. The outcome's replies leave with
 * the span's trace context in their headers (through a {@code create <reply topic>} producer span, unless producer
 * spans are off), and its continuation runs in the span's context; since an {@link Outcome} is immutable, the
 * interceptor returns a copy with the same kind, delay, reason, replies (in order), continuation and seek.
 */
final class TracingInterceptor implements HandlerInterceptor {
    private final ShoveTracing tracing;
    private final String system;

    TracingInterceptor(ShoveTracing tracing, String system) {
        this.tracing = tracing;
        this.system = system;
    }

    @Override
    @SuppressWarnings("try") // the scope is only closed
    public Outcome intercept(Invocation invocation) throws Exception {
        String topic = invocation.topic().name();
        MessageMetadata meta = invocation.metadata();
        ShoveTracing.ConsumerSpan consumer =
                tracing.consumerSpan(MessagingAttributes.PROCESS + " " + topic, Context.current(), meta.headers());
        SpanBuilder builder = consumer.builder()
                .setAttribute(MessagingAttributes.SYSTEM, system)
                .setAttribute(MessagingAttributes.DESTINATION_NAME, topic)
                .setAttribute(MessagingAttributes.OPERATION_TYPE, MessagingAttributes.PROCESS)
                .setAttribute(MessagingAttributes.OPERATION_NAME, MessagingAttributes.PROCESS)
                .setAttribute(MessagingAttributes.CONSUMER_GROUP_NAME, invocation.groupName())
                .setAttribute(MessagingAttributes.SHOVE_RETRY_COUNT, (long) meta.retryCount());
        meta.messageId().ifPresent(id -> builder.setAttribute(MessagingAttributes.MESSAGE_ID, id));
        meta.partition()
                .ifPresent(
                        p -> builder.setAttribute(MessagingAttributes.DESTINATION_PARTITION_ID, Integer.toString(p)));
        if ("kafka".equals(system)) {
            meta.offset().ifPresent(o -> builder.setAttribute(MessagingAttributes.KAFKA_OFFSET, o));
        }
        if (invocation.message() instanceof byte[] payload) {
            builder.setAttribute(MessagingAttributes.MESSAGE_BODY_SIZE, (long) payload.length);
        }
        Span span = builder.startSpan();
        try (Scope ignored = consumer.parent().with(span).makeCurrent()) {
            Outcome outcome = invocation.proceed();
            record(span, outcome);
            return outcome == null ? null : carryContext(outcome);
        } catch (Throwable e) {
            ShoveTracing.fail(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    private static void record(Span span, @Nullable Outcome outcome) {
        if (outcome == null) {
            span.setStatus(StatusCode.ERROR, "the handler returned no outcome");
            span.setAttribute(MessagingAttributes.ERROR_TYPE, MessagingAttributes.ERROR_NO_OUTCOME);
            return;
        }
        span.setAttribute(MessagingAttributes.SHOVE_OUTCOME, outcome.kind().tag());
        outcome.reason().ifPresent(r -> span.setAttribute(MessagingAttributes.SHOVE_REJECT_REASON, r));
        if (outcome.isRetry() || outcome.isReject()) {
            span.setStatus(StatusCode.ERROR, outcome.toString());
            span.setAttribute(
                    MessagingAttributes.ERROR_TYPE,
                    outcome.isRetry() ? MessagingAttributes.ERROR_RETRY : MessagingAttributes.ERROR_REJECT);
        }
    }

    /** The outcome with the current (the consumer span's) context in its replies and around its continuation. */
    private Outcome carryContext(Outcome outcome) {
        Context current = Context.current();
        return rebuild(outcome, reply -> replyHeaders(current, reply), current::wrap);
    }

    /** A reply's headers with a creation context: a {@code create} span's, or the current one's. */
    private Map<String, String> replyHeaders(Context current, Outcome.Reply<?> reply) {
        if (ShoveTracing.spanContext(tracing.extract(reply.headers())).isValid()) {
            return reply.headers(); // the handler gave it a creation context of its own
        }
        if (!tracing.producerSpans()) {
            return tracing.inject(current, reply.headers());
        }
        String topic = reply.topic().name();
        SpanBuilder create = tracing.tracer()
                .spanBuilder(MessagingAttributes.CREATE + " " + topic)
                .setParent(current)
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute(MessagingAttributes.SYSTEM, system)
                .setAttribute(MessagingAttributes.DESTINATION_NAME, topic)
                .setAttribute(MessagingAttributes.OPERATION_TYPE, MessagingAttributes.CREATE)
                .setAttribute(MessagingAttributes.OPERATION_NAME, MessagingAttributes.CREATE);
        if (reply.message() instanceof byte[] payload) {
            create.setAttribute(MessagingAttributes.MESSAGE_BODY_SIZE, (long) payload.length);
        }
        Span span = create.startSpan();
        try {
            return tracing.inject(current.with(span), reply.headers());
        } finally {
            span.end(); // the reply is created; shove publishes it before the ack, out of reach of a span
        }
    }

    /**
     * A copy of {@code outcome} with each reply's headers replaced and its continuation wrapped, and the same kind,
     * delay, reason, replies (in order) and seek; {@code outcome} itself when it has neither replies nor a
     * continuation.
     */
    static Outcome rebuild(
            Outcome outcome,
            Function<Outcome.Reply<?>, Map<String, String>> replyHeaders,
            UnaryOperator<Runnable> continuation) {
        if (outcome.replies().isEmpty() && outcome.continuation().isEmpty()) {
            return outcome;
        }
        Outcome copy = switch (outcome.kind()) {
            case ACK -> Outcome.ack();
            case RETRY -> outcome.delay().map(Outcome::retry).orElseGet(Outcome::retry);
            case REJECT -> outcome.reason().map(Outcome::reject).orElseGet(Outcome::reject);
            case DEFER -> outcome.delay().map(Outcome::defer).orElseGet(Outcome::defer);
        };
        for (Outcome.Reply<?> reply : outcome.replies()) {
            copy = withReply(copy, reply, replyHeaders.apply(reply));
        }
        if (outcome.continuation().isPresent()) {
            copy = copy.andThen(continuation.apply(outcome.continuation().get()));
        }
        if (outcome.seek().isPresent()) {
            copy = copy.andSeek(outcome.seek().get());
        }
        return copy;
    }

    private static <R> Outcome withReply(Outcome outcome, Outcome.Reply<R> reply, Map<String, String> headers) {
        return outcome.withReply(reply.topic(), reply.message(), headers);
    }

    @Override
    public String toString() {
        return "TracingInterceptor[" + system + "]";
    }
}
