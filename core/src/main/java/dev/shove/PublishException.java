package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * The broker refused or did not confirm a published message. The message names the topic.
 *
 * @since 0.1.0
 */
public class PublishException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Whether publishing the same message again may succeed. */
    private final boolean retriable;

    /**
     * An exception that is retriable when its cause is.
     *
     * @param message names the topic and why the message was not accepted
     * @param cause the underlying failure, or null
     */
    public PublishException(String message, @Nullable Throwable cause) {
        this(message, cause, cause instanceof ShoveException s && s.isRetriable());
    }

    /**
     * An exception that says whether trying again may help.
     *
     * @param message names the topic and why the message was not accepted
     * @param cause the underlying failure, or null
     * @param retriable whether publishing the same message again may succeed
     */
    public PublishException(String message, @Nullable Throwable cause, boolean retriable) {
        super(message, cause);
        this.retriable = retriable;
    }

    @Override
    public boolean isRetriable() {
        return retriable;
    }
}
