package dev.shove;

import java.time.Instant;
import java.util.Objects;

/**
 * The state of a broker connection as the backend reports it: up or down, since when, and what the backend said
 * about the last change. A backend that reports nothing is up since the broker was connected.
 *
 * @param connected whether the connection is up
 * @param since when it last went up or down
 * @param detail what the backend said about the last change (why it was lost); empty when up from the start
 * @since 0.1.0
 */
public record ConnectionHealth(boolean connected, Instant since, String detail) {
    /**
     * Checks the components; see the class description.
     *
     * @param connected whether the connection is up
     * @param since when it last went up or down
     * @param detail what the backend said about the last change (why it was lost); empty when up from the start
     */
    public ConnectionHealth {
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(detail, "detail");
    }
}
