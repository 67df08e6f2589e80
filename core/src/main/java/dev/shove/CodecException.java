package dev.shove;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/** A payload could not be encoded for publishing or decoded on delivery. Names the codec and the topic. */
public class CodecException extends ShoveException {
    @Serial
    private static final long serialVersionUID = 1L;

    public CodecException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
