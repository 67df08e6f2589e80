package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/** The broker refused or did not confirm a published message. The message names the topic. */
public class PublishException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final boolean retriable;

    public PublishException(String message, @Nullable Throwable cause) {
        this(message, cause, cause instanceof ShoveException s && s.isRetriable());
    }

    public PublishException(String message, @Nullable Throwable cause, boolean retriable) {
        super(message, cause);
        this.retriable = retriable;
    }

    @Override
    public boolean isRetriable() {
        return retriable;
    }
}
