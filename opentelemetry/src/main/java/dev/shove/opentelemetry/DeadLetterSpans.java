package dev.shove.opentelemetry;

import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

/**
 * Handlers whose dead-letter methods run in a {@code process <dlq>} consumer span, made by {@link
 * ShoveTracing#deadLetterSpans}. {@code handle} is passed through: the interceptor traces it.
 * Both dead-letter methods are passed on, so a handler that keeps the default {@code handleUnreadableDead} still has
 * its dropped bytes counted as discarded.
 */
final class DeadLetterSpans {
    private DeadLetterSpans() {}

    static <T, C> MessageHandler<T, C> wrap(
            MessageHandler<T, C> handler, ShoveTracing tracing, String system, String dlq) {
        Spans spans = new Spans(tracing, system, dlq);
        return new Dead<>(handler, spans);
    }

    /** The code one dead-letter method runs. */
    @FunctionalInterface
    interface DeadCall {
        void run() throws Exception;
    }

    /** Starts and ends the spans of one DLQ. */
    record Spans(ShoveTracing tracing, String system, String dlq) {
        @SuppressWarnings("try") // the scope is only closed
        void run(DeadMessageMetadata dead, long bodySize, DeadCall call) throws Exception {
            MessageMetadata meta = dead.message();
            ShoveTracing.ConsumerSpan consumer =
                    tracing.consumerSpan(MessagingAttributes.PROCESS + " " + dlq, Context.current(), meta.headers());
            SpanBuilder builder = consumer.builder()
                    .setAttribute(MessagingAttributes.SYSTEM, system)
                    .setAttribute(MessagingAttributes.DESTINATION_NAME, dlq)
                    .setAttribute(MessagingAttributes.OPERATION_TYPE, MessagingAttributes.PROCESS)
                    .setAttribute(MessagingAttributes.OPERATION_NAME, MessagingAttributes.PROCESS)
                    .setAttribute(MessagingAttributes.SHOVE_RETRY_COUNT, (long) meta.retryCount())
                    .setAttribute(MessagingAttributes.SHOVE_DEATH_REASON, dead.reason())
                    .setAttribute(MessagingAttributes.SHOVE_DEATH_COUNT, (long) dead.deathCount());
            meta.messageId().ifPresent(id -> builder.setAttribute(MessagingAttributes.MESSAGE_ID, id));
            if (bodySize >= 0) {
                builder.setAttribute(MessagingAttributes.MESSAGE_BODY_SIZE, bodySize);
            }
            Span span = builder.startSpan();
            try (Scope ignored = consumer.parent().with(span).makeCurrent()) {
                call.run();
            } catch (Throwable e) {
                ShoveTracing.fail(span, e);
                throw e;
            } finally {
                span.end();
            }
        }
    }

    /** Traces handleDead and handleUnreadableDead. */
    static final class Dead<T, C> implements MessageHandler<T, C> {
        final MessageHandler<T, C> handler;
        final Spans spans;

        Dead(MessageHandler<T, C> handler, Spans spans) {
            this.handler = handler;
            this.spans = spans;
        }

        @Override
        public Outcome handle(T message, MessageMetadata metadata, C context) throws Exception {
            return handler.handle(message, metadata, context);
        }

        @Override
        public void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception {
            long size = message instanceof byte[] payload ? payload.length : -1;
            spans.run(metadata, size, () -> handler.handleDead(message, metadata, context));
        }

        @Override
        public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
            spans.run(metadata, payload.length, () -> handler.handleUnreadableDead(payload, metadata, context));
        }

        @Override
        public String toString() {
            return "DeadLetterSpans[" + spans.dlq() + ", " + handler + "]";
        }
    }
}
