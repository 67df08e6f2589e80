package dev.shove.internal;

import dev.shove.ShoveHeaders;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Turns a handler's exception into the {@code shove-exception-*} headers of its dead letter: class, message and stack
 * trace, each on one line (control characters become spaces: some brokers' headers cannot carry line breaks) and
 * capped, so that a hostile or huge message cannot bloat the dead-letter queue. The same rule keeps text taken from
 * headers (ids, keys, reasons) to one capped line in logs and dead-letter headers.
 */
final class Failures {
    /** The longest id or key taken from a header into a log line. */
    static final int MAX_ID = 200;
    /** The longest death reason (the handler's reject reason included) on a dead letter or in a log line. */
    static final int MAX_REASON = 1024;

    static final int MAX_CLASS = 256;
    static final int MAX_MESSAGE = 1024;
    static final int MAX_TRACE = 4096;
    private static final int MAX_CAUSES = 8;
    /** Frames per exception: the top of each, so that the causes fit too. */
    private static final int MAX_FRAMES = 10;

    private Failures() {}

    /** Writes the exception headers for {@code failure}, or removes them (from an earlier death) when it is null. */
    static void describe(@Nullable Throwable failure, Map<String, String> headers) {
        headers.remove(ShoveHeaders.EXCEPTION_CLASS);
        headers.remove(ShoveHeaders.EXCEPTION_MESSAGE);
        headers.remove(ShoveHeaders.EXCEPTION_TRACE);
        if (failure == null) {
            return;
        }
        headers.put(ShoveHeaders.EXCEPTION_CLASS, oneLine(failure.getClass().getName(), MAX_CLASS));
        String message = failure.getMessage();
        if (message != null) {
            headers.put(ShoveHeaders.EXCEPTION_MESSAGE, oneLine(message, MAX_MESSAGE));
        }
        headers.put(ShoveHeaders.EXCEPTION_TRACE, trace(failure));
    }

    /**
     * The trace with its causes: each exception with its top frames and how many more it had, separated by {@code
     * " | "}, cut at {@link #MAX_TRACE} characters.
     */
    static String trace(Throwable failure) {
        StringBuilder out = new StringBuilder();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Throwable t = failure;
        for (int causes = 0; t != null && seen.add(t) && causes <= MAX_CAUSES; causes++, t = t.getCause()) {
            if (causes > 0) {
                out.append(" | caused by ");
            }
            out.append(t.getClass().getName());
            if (t.getMessage() != null) {
                out.append(": ").append(t.getMessage());
            }
            StackTraceElement[] frames = t.getStackTrace();
            int shown = Math.min(frames.length, MAX_FRAMES);
            for (int i = 0; i < shown && out.length() <= MAX_TRACE; i++) {
                out.append(" | at ").append(frames[i]);
            }
            if (frames.length > shown) {
                out.append(" | ... ").append(frames.length - shown).append(" more");
            }
            if (out.length() > MAX_TRACE) {
                break;
            }
        }
        return oneLine(out.toString(), MAX_TRACE);
    }

    /** {@code text} with every control character made a space, cut to {@code max} characters ending in "...". */
    static String oneLine(String text, int max) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), max));
        for (int i = 0; i < text.length() && out.length() < max; i++) {
            char c = text.charAt(i);
            out.append(Character.isISOControl(c) ? ' ' : c);
        }
        if (text.length() > max) {
            out.setLength(max - 3);
            out.append("...");
        }
        return out.toString();
    }
}
