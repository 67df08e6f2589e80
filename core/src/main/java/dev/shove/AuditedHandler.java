package dev.shove;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** A handler wrapped in an {@link AuditInterceptor}: what {@link MessageHandler#audited} returns. */
final class AuditedHandler<T, C> implements MessageHandler<T, C> {
    private final MessageHandler<T, C> inner;
    private final AuditInterceptor audit;

    private AuditedHandler(MessageHandler<T, C> inner, AuditInterceptor audit) {
        this.inner = inner;
        this.audit = audit;
    }

    static <T, C> MessageHandler<T, C> wrap(
            MessageHandler<T, C> inner, AuditSink<? super T> sink, @Nullable Duration auditTimeout) {
        return new AuditedHandler<>(inner, new AuditInterceptor(sink, auditTimeout));
    }

    @Override
    public Outcome handle(T message, MessageMetadata metadata, C context) throws Exception {
        return audit.around(message, metadata, () -> inner.handle(message, metadata, context));
    }

    @Override
    public void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception {
        inner.handleDead(message, metadata, context);
    }

    @Override
    public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
        inner.handleUnreadableDead(payload, metadata, context);
    }
}
