package dev.shove.cli;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/** A command's failure, already worded for its one line on stderr, with the exit status it ends with. */
final class CliException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int status;

    private CliException(int status, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The command line is wrong ({@link ShoveCli#USAGE}). */
    static CliException usage(String message) {
        return new CliException(ShoveCli.USAGE, message, null);
    }

    /** The command line is wrong ({@link ShoveCli#USAGE}), because of {@code cause}. */
    static CliException usage(String message, Throwable cause) {
        return new CliException(ShoveCli.USAGE, message, cause);
    }

    /** The broker or the operation failed ({@link ShoveCli#FAILURE}). */
    static CliException failure(String message, Throwable cause) {
        return new CliException(ShoveCli.FAILURE, message, cause);
    }

    int status() {
        return status;
    }
}
