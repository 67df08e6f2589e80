package dev.shove.internal;

import dev.shove.AuditLog;
import dev.shove.AuditRecord;
import dev.shove.AuditSink;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A handler whose every delivery is recorded to an {@link AuditSink}. Strict: a failing sink turns the outcome into
 * retry, so no delivery goes unaudited; with an audit timeout, a slow sink is abandoned and the original outcome
 * kept. Dead letters and the audit log topic itself are not audited.
 */
public final class AuditedHandler<T, C> implements MessageHandler<T, C> {
    private static final Logger log = LoggerFactory.getLogger(AuditedHandler.class);

    private final MessageHandler<T, C> inner;
    private final AuditSink<? super T> sink;
    private final @Nullable Duration auditTimeout;

    private AuditedHandler(MessageHandler<T, C> inner, AuditSink<? super T> sink, @Nullable Duration auditTimeout) {
        this.inner = inner;
        this.sink = sink;
        this.auditTimeout = auditTimeout;
    }

    public static <T, C> MessageHandler<T, C> wrap(
            MessageHandler<T, C> inner, AuditSink<? super T> sink, @Nullable Duration auditTimeout) {
        java.util.Objects.requireNonNull(sink, "sink");
        if (auditTimeout != null && (auditTimeout.isNegative() || auditTimeout.isZero())) {
            throw new IllegalArgumentException("audit timeout must be positive, was " + auditTimeout);
        }
        return new AuditedHandler<>(inner, sink, auditTimeout);
    }

    @Override
    public Outcome handle(T message, MessageMetadata metadata, C context) throws Exception {
        if (AuditLog.TOPIC_NAME.equals(metadata.topic())) {
            return inner.handle(message, metadata, context);
        }
        long start = System.nanoTime();
        Outcome outcome;
        Exception failure = null;
        try {
            outcome = inner.handle(message, metadata, context);
        } catch (Exception e) {
            failure = e;
            outcome = Outcome.retry();
        }
        long durationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        String traceId = metadata.header(AuditRecord.TRACE_ID_HEADER).orElseGet(Ids::newMessageId);
        AuditRecord<T> record = new AuditRecord<>(
                traceId,
                metadata.topic(),
                message,
                metadata,
                outcome == null ? Outcome.Kind.RETRY : outcome.kind(),
                durationMs,
                Instant.now());
        Outcome audited = audit(record, outcome);
        if (failure != null) {
            throw failure;
        }
        return audited;
    }

    private Outcome audit(AuditRecord<T> record, Outcome outcome) {
        if (auditTimeout == null) {
            try {
                sink.audit(record);
                return outcome;
            } catch (Exception e) {
                log.error("audit sink failed for message on topic '{}'; retrying the message", record.topic(), e);
                return Outcome.retry();
            }
        }
        FutureTask<Void> task = new FutureTask<>(() -> {
            sink.audit(record);
            return null;
        });
        Thread.ofVirtual().name("shove-audit-" + record.topic()).start(task);
        try {
            task.get(auditTimeout.toNanos(), TimeUnit.NANOSECONDS);
            return outcome;
        } catch (TimeoutException e) {
            task.cancel(true);
            log.error(
                    "audit sink timed out after {} for a message on topic '{}'; keeping the handler's outcome",
                    auditTimeout,
                    record.topic());
            return outcome;
        } catch (ExecutionException e) {
            log.error(
                    "audit sink failed for message on topic '{}'; retrying the message", record.topic(), e.getCause());
            return Outcome.retry();
        } catch (InterruptedException e) {
            task.cancel(true);
            Thread.currentThread().interrupt();
            return Outcome.retry();
        }
    }

    @Override
    public void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception {
        inner.handleDead(message, metadata, context);
    }
}
