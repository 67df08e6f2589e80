package dev.shove;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures what slf4j-simple, the test logging binding, writes while an action runs: it prints to whatever {@code
 * System.err} is at the time of each call. Lines from other threads logging at the same moment may appear too, so
 * assert on text that names the test's own topic or message.
 */
public final class CapturedLog {
    private CapturedLog() {}

    /** An action that may throw, for actions that wait. */
    @FunctionalInterface
    public interface Action {
        void run() throws Exception;
    }

    /** Runs the action with {@code System.err} captured and returns what was written. */
    public static synchronized String during(Action action) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
