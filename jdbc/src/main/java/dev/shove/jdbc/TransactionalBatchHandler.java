package dev.shove.jdbc;

import dev.shove.BatchOutcome;
import dev.shove.Envelope;
import java.sql.Connection;
import java.util.List;

/**
 * A batch handler whose database writes belong to the inbox's transaction; see {@link TransactionalHandler}. {@link
 * Inbox#batchHandler} passes it only the messages not seen before, and commits when every one of them is acked.
 *
 * @param <T> the message type
 * @param <C> the context type
 * @since 0.1.0
 */
@FunctionalInterface
public interface TransactionalBatchHandler<T, C> {

    /**
     * Handles the batch's new messages inside the inbox's transaction.
     *
     * @param batch the messages whose ids were not recorded yet, in delivery order; at least one
     * @param context the group's shared context
     * @param connection the transaction's connection (auto-commit off); do not commit, roll back or close it
     * @return one outcome for the whole batch, or one per message; anything but all acks rolls the transaction back
     * @throws Exception any failure; the transaction rolls back and every message is retried
     */
    BatchOutcome handle(List<Envelope<T>> batch, C context, Connection connection) throws Exception;
}
