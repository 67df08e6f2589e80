package dev.shove;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The health of one registration (a topic in a consumer group), part of {@link GroupHealth}.
 *
 * @param topic the topic's name
 * @param group the consumer group's name
 * @param status what the registration is doing
 * @param consumers main consumers running now
 * @param minConsumers the fewest it should run
 * @param failedConsumers consumers that stopped on an error they could not recover from, since the group started
 * @param lastReceivedAt when the last message was received from the broker; null until the first
 * @param stalledHandlers handler calls running longer than the registration's handler timeout (a handler ignoring
 *     its interrupt), or longer than {@link #STALL_WITHOUT_TIMEOUT} when it has none
 * @since 0.1.0
 */
public record RegistrationHealth(
        String topic,
        String group,
        Status status,
        int consumers,
        int minConsumers,
        int failedConsumers,
        @Nullable Instant lastReceivedAt,
        List<StalledHandler> stalledHandlers) {

    /** How long a handler of a registration without a handler timeout runs before it counts as stalled. */
    public static final Duration STALL_WITHOUT_TIMEOUT = Duration.ofSeconds(60);

    /** What a registration is doing. */
    public enum Status {
        /** Registered; the group has not started. */
        NOT_STARTED,
        /** Handing out messages. */
        RUNNING,
        /** Paused by the application ({@link ConsumerGroup#pause}). */
        PAUSED,
        /** Paused by its circuit breaker, or letting one message probe. */
        CIRCUIT_OPEN,
        /** The group stopped. */
        STOPPED
    }

    /**
     * A handler call that runs too long.
     *
     * @param messageId the {@code shove-message-id} of the message it handles
     * @param runningFor how long it has been running
     */
    public record StalledHandler(String messageId, Duration runningFor) {
        /**
         * Checks the components.
         *
         * @param messageId the {@code shove-message-id} of the message it handles
         * @param runningFor how long it has been running
         */
        public StalledHandler {
            Objects.requireNonNull(messageId, "messageId");
            Objects.requireNonNull(runningFor, "runningFor");
        }
    }

    /**
     * Checks the components; see the class description.
     *
     * @param topic the topic's name
     * @param group the consumer group's name
     * @param status what the registration is doing
     * @param consumers main consumers running now
     * @param minConsumers the fewest it should run
     * @param failedConsumers consumers that stopped on an error they could not recover from, since the group started
     * @param lastReceivedAt when the last message was received from the broker; null until the first
     * @param stalledHandlers handler calls running longer than the registration's handler timeout (a handler ignoring
     *     its interrupt), or longer than {@link #STALL_WITHOUT_TIMEOUT} when it has none
     */
    public RegistrationHealth {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(status, "status");
        stalledHandlers = List.copyOf(stalledHandlers);
    }

    /** {@return when the last message was received; empty until the first} */
    public Optional<Instant> lastReceived() {
        return Optional.ofNullable(lastReceivedAt);
    }

    /** Whether the registration should consume but every consumer it had stopped on an error. */
    boolean isDead() {
        return (status == Status.RUNNING || status == Status.PAUSED || status == Status.CIRCUIT_OPEN)
                && minConsumers > 0
                && consumers == 0
                && failedConsumers > 0;
    }
}
