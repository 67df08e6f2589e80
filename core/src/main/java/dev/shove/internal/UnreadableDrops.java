package dev.shove.internal;

/**
 * How the dead-letter flow learns that a handler's default {@code handleUnreadableDead} dropped a dead letter's bytes
 * (counted in {@code shove.messages.discarded}): the default says so here, on the worker's thread, and the flow asks
 * after the call. It works through any wrapper around the handler (auditing, tracing) that passes the call on, which
 * a look at the handler's class could not.
 */
public final class UnreadableDrops {
    private static final ThreadLocal<Boolean> DROPPED = new ThreadLocal<>();

    private UnreadableDrops() {}

    /** Called by the default {@code handleUnreadableDead}. */
    public static void dropped() {
        DROPPED.set(Boolean.TRUE);
    }

    /** Whether the default ran on this thread since the last call, forgetting it. */
    static boolean take() {
        if (DROPPED.get() == null) {
            return false;
        }
        DROPPED.remove();
        return true;
    }
}
