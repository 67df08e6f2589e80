package dev.shove;

import java.time.Duration;

/**
 * Code around every handler call of a registration: observe it, short-circuit it with an outcome of its own, or give
 * what follows another context. Registered per group ({@link ConsumerGroup#withInterceptor}) or per registration
 * ({@link ConsumerOptions.Builder#interceptors}); group interceptors run outermost, then the registration's, each list
 * in the order added, then the handler.
 *
 * <pre>{@code
 * HandlerInterceptor tenantGuard = invocation ->
 *         invocation.metadata().header("tenant").isPresent() ? invocation.proceed() : Outcome.reject("no tenant");
 * }</pre>
 *
 * <p>Interceptors wrap single-message handlers only; a {@link BatchMessageHandler} body runs once for many messages
 * and is not wrapped. They run on the handler's virtual thread, inside its deadline. Must be thread-safe.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface HandlerInterceptor {

    /**
     * Handles one call: usually {@code return invocation.proceed();} with work before or after. Throwing counts as the
     * handler throwing ({@link Outcome#retry()}).
     *
     * @param invocation the call: the message, its metadata, the context, and the rest of the chain
     * @return the outcome of the call
     * @throws Exception any failure; counts as the handler throwing
     */
    Outcome intercept(Invocation invocation) throws Exception;

    /**
     * An interceptor recording every delivery to {@code sink}; a failing sink turns the outcome into {@link
     * Outcome#retry()}. The same as {@link MessageHandler#audited(AuditSink)}, for a whole group or registration.
     *
     * @param sink receives one record per delivery
     * @return the auditing interceptor
     */
    static HandlerInterceptor audit(AuditSink<Object> sink) {
        return new AuditInterceptor(sink, null);
    }

    /**
     * Like {@link #audit(AuditSink)}; a sink slower than {@code auditTimeout} is abandoned, the outcome kept.
     *
     * @param sink receives one record per delivery
     * @param auditTimeout how long the sink may take per record
     * @return the auditing interceptor
     */
    static HandlerInterceptor audit(AuditSink<Object> sink, Duration auditTimeout) {
        return new AuditInterceptor(sink, auditTimeout);
    }
}
