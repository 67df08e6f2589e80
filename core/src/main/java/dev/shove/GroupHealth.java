package dev.shove;

import java.util.List;
import java.util.Objects;

/**
 * A consumer group's (or supervisor's) health, from {@link ConsumerGroup#health()}: for probes (liveness and
 * readiness) and for operators. A snapshot; cheap to take (no broker round trip).
 *
 * @param running whether the group has been started and not stopped
 * @param connection the broker connection
 * @param registrations one entry per registered topic
 * @since 0.1.0
 */
public record GroupHealth(boolean running, ConnectionHealth connection, List<RegistrationHealth> registrations) {
    /**
     * Checks the components; see the class description.
     *
     * @param running whether the group has been started and not stopped
     * @param connection the broker connection
     * @param registrations one entry per registered topic
     */
    public GroupHealth {
        Objects.requireNonNull(connection, "connection");
        registrations = List.copyOf(registrations);
    }

    /**
     * {@return liveness} False when the group runs and a registration that should consume has lost every consumer to
     * errors it could not recover from (restarting the process is the fix). A group not started, or stopped, is alive.
     */
    public boolean isLive() {
        return !running || registrations.stream().noneMatch(RegistrationHealth::isDead);
    }

    /**
     * {@return readiness} True when the group runs, the broker connection is up and every registration runs at least
     * its minimum of consumers (a paused registration counts as ready: it was paused on purpose).
     */
    public boolean isReady() {
        return running
                && connection.connected()
                && registrations.stream().allMatch(r -> r.consumers() >= r.minConsumers());
    }
}
