package dev.shove;

import java.time.Instant;
import java.util.Objects;

/**
 * One audited delivery: what arrived, what the handler decided and how long it took.
 *
 * @param traceId the {@code x-trace-id} header of the message, or a fresh UUID when it has none
 * @param topic the topic's name
 * @param payload the decoded message
 * @param metadata the delivery's metadata
 * @param outcome the handler's decision ({@code retry} when it threw)
 * @param durationMs wall time of the handler call, in milliseconds
 * @param timestamp when the handler completed
 * @param <M> the message type
 * @since 0.1.0
 */
public record AuditRecord<M>(
        String traceId,
        String topic,
        M payload,
        MessageMetadata metadata,
        Outcome.Kind outcome,
        long durationMs,
        Instant timestamp) {

    /** The header whose value becomes {@link #traceId()}. */
    public static final String TRACE_ID_HEADER = "x-trace-id";

    /**
     * Checks the components; see the class description.
     *
     * @param traceId the {@code x-trace-id} header of the message, or a fresh UUID when it has none
     * @param topic the topic's name
     * @param payload the decoded message
     * @param metadata the delivery's metadata
     * @param outcome the handler's decision ({@code retry} when it threw)
     * @param durationMs wall time of the handler call, in milliseconds
     * @param timestamp when the handler completed
     */
    public AuditRecord {
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(timestamp, "timestamp");
    }
}
