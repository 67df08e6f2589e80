package dev.shove;

import dev.shove.spi.DurationText;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records every call to an {@link AuditSink}. Strict: a failing sink turns the outcome into retry, so no delivery goes
 * unaudited; with an audit timeout, a slow sink is abandoned and the original outcome kept. The audit log topic
 * itself is never audited. A handler that throws is recorded as a retry, and the exception goes on.
 */
final class AuditInterceptor implements HandlerInterceptor {
    private static final Logger log = LoggerFactory.getLogger(AuditInterceptor.class);

    private final AuditSink<Object> sink;
    private final @Nullable Duration auditTimeout;
    /** Audit writes running on threads of their own (with a timeout only), at most {@link #MAX_WRITERS}. */
    private final Semaphore writers = new Semaphore(MAX_WRITERS);

    /** The most audit writes with a timeout running at once; more wait for one to end. */
    static final int MAX_WRITERS = 1_000;

    @SuppressWarnings("unchecked")
    AuditInterceptor(AuditSink<?> sink, @Nullable Duration auditTimeout) {
        this.sink = (AuditSink<Object>) Objects.requireNonNull(sink, "sink");
        if (auditTimeout != null && (auditTimeout.isNegative() || auditTimeout.isZero())) {
            throw new IllegalArgumentException("audit timeout must be positive, was " + DurationText.of(auditTimeout));
        }
        this.auditTimeout = auditTimeout;
    }

    @Override
    public Outcome intercept(Invocation invocation) throws Exception {
        return around(invocation.message(), invocation.metadata(), invocation::proceed);
    }

    /** Audits one call of {@code next} on {@code message}. */
    Outcome around(Object message, MessageMetadata metadata, Callable<Outcome> next) throws Exception {
        if (AuditLog.TOPIC_NAME.equals(metadata.topic())) {
            return next.call();
        }
        long start = System.nanoTime();
        Outcome outcome;
        Exception failure = null;
        try {
            outcome = next.call();
        } catch (Exception e) {
            failure = e;
            outcome = Outcome.retry();
        }
        long durationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        String traceId = metadata.header(AuditRecord.TRACE_ID_HEADER)
                .orElseGet(() -> UUID.randomUUID().toString());
        AuditRecord<Object> record = new AuditRecord<>(
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

    private Outcome audit(AuditRecord<Object> record, Outcome outcome) {
        if (auditTimeout == null) {
            try {
                sink.audit(record);
                return outcome;
            } catch (Exception e) {
                log.error("audit sink failed for a message of topic '{}'; retrying the message", record.topic(), e);
                return Outcome.retry();
            }
        }
        FutureTask<Void> task = new FutureTask<>(() -> {
            sink.audit(record);
            return null;
        });
        // A sink that ignores its interrupt keeps its thread after the timeout: bound how many may pile up, and make
        // the handler wait for a slot (back-pressure) rather than start threads without end.
        writers.acquireUninterruptibly();
        try {
            Thread.ofVirtual().name("shove-audit-" + record.topic()).start(() -> {
                try {
                    task.run();
                } finally {
                    writers.release();
                }
            });
        } catch (RuntimeException | Error e) {
            writers.release();
            throw e;
        }
        try {
            task.get(auditTimeout.toNanos(), TimeUnit.NANOSECONDS);
            return outcome;
        } catch (TimeoutException e) {
            task.cancel(true);
            log.error(
                    "audit sink timed out after {} for a message of topic '{}'; keeping the handler's outcome",
                    DurationText.of(auditTimeout),
                    record.topic());
            return outcome;
        } catch (ExecutionException e) {
            log.error(
                    "audit sink failed for a message of topic '{}'; retrying the message",
                    record.topic(),
                    e.getCause());
            return Outcome.retry();
        } catch (InterruptedException e) {
            task.cancel(true);
            Thread.currentThread().interrupt();
            return Outcome.retry();
        }
    }
}
