package dev.shove.jdbc;

import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import java.sql.Connection;

/**
 * A handler whose database writes belong to the inbox's transaction: it gets the connection on which the inbox
 * recorded the message id, writes on it, and never commits or rolls it back itself. {@link Inbox#handler} commits
 * when the outcome is {@link Outcome#ack()} and rolls back otherwise.
 *
 * <pre>{@code
 * TransactionalHandler<OrderPaid, App> handler = (order, meta, app, connection) -> {
 *     app.ledger().credit(connection, order.orderId(), order.cents());
 *     return Outcome.ack();
 * };
 * }</pre>
 *
 * @param <T> the message type
 * @param <C> the context type
 * @since 0.1.0
 */
@FunctionalInterface
public interface TransactionalHandler<T, C> {

    /**
     * Handles one message inside the inbox's transaction.
     *
     * @param message the decoded message
     * @param metadata what is known about this delivery
     * @param context the group's shared context
     * @param connection the transaction's connection (auto-commit off); do not commit, roll back or close it
     * @return what to do with the message; anything but {@link Outcome#ack()} rolls the transaction back
     * @throws Exception any failure; the transaction rolls back and the message is retried
     */
    Outcome handle(T message, MessageMetadata metadata, C context, Connection connection) throws Exception;
}
