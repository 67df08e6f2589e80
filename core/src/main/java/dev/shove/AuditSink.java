package dev.shove;

/**
 * Where {@link MessageHandler#audited audited} handlers send their {@link AuditRecord records}: a database table, a
 * log, or the {@code shove-audit-log} topic ({@link AuditLog#sink(Publisher)}). Called on the handler's thread after
 * the handler returns; must be thread-safe.
 *
 * @param <M> the message types this sink accepts
 * @since 0.1.0
 */
@FunctionalInterface
public interface AuditSink<M> {
    /**
     * Records one delivery.
     *
     * @param record the message, its metadata, the outcome and how long the handler took
     * @throws Exception when the record could not be kept; the audited delivery then retries
     */
    void audit(AuditRecord<? extends M> record) throws Exception;
}
