package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * Broker objects are missing, or exist with settings that conflict with the topic's declaration (for example a hold
 * queue declared with a different delay). The message names the object and what differs.
 */
public class TopologyException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    public TopologyException(String message) {
        super(message);
    }

    public TopologyException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
