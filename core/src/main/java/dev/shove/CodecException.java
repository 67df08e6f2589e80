package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * A payload could not be encoded for publishing or decoded on delivery. Names the codec and the topic.
 *
 * @since 0.1.0
 */
public class CodecException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * An exception wrapping the codec's failure.
     *
     * @param message names the topic and the codec
     * @param cause what the codec threw, or null
     */
    public CodecException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
