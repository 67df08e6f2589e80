package dev.shove;

/**
 * Where {@link MessageHandler#audited audited} handlers send their {@link AuditRecord records}: a database table, a
 * log, or the {@code shove-audit-log} topic ({@link AuditLog#sink(Publisher)}). Called on the handler's thread after
 * the handler returns; must be thread-safe.
 *
 * @param <M> the message types this sink accepts
 */
@FunctionalInterface
public interface AuditSink<M> {
    /** Records one delivery. Throwing makes the audited delivery retry. */
    void audit(AuditRecord<? extends M> record) throws Exception;
}
