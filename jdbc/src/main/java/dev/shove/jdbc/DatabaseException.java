package dev.shove.jdbc;

import dev.shove.ShoveException;
import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * The database refused or failed an outbox or inbox operation: a table is missing or has the wrong shape, a statement
 * failed, the connection broke. The message names the table and what to do; the cause is the driver's {@link
 * java.sql.SQLException} when there is one.
 *
 * @since 0.1.0
 */
public class DatabaseException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * An exception wrapping the failure that caused it.
     *
     * @param message what went wrong, naming the table and what to do
     * @param cause the underlying failure, or null
     */
    public DatabaseException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
