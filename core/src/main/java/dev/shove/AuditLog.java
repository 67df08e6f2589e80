package dev.shove;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The {@code shove-audit-log} topic and a sink that publishes audit records to it, so audit trails of many services
 * land in one place. Records are JSON with the payload as a generic JSON value:
 *
 * <pre>{@code
 * {"traceId":"…","topic":"orders","payload":{…},"metadata":{"retryCount":0,…},"outcome":"ACK",
 *  "durationMs":12,"timestamp":"2026-11-30T12:00:00Z"}
 * }</pre>
 *
 * <pre>{@code
 * broker.topology().declare(AuditLog.TOPIC);
 * group.register(ORDERS, config, () -> new OrderHandler().audited(AuditLog.sink(broker.publisher())));
 * }</pre>
 *
 * @since 0.1.0
 */
public final class AuditLog {
    /** The audit log topic's name. Handlers registered on it are never audited (no recursion). */
    public static final String TOPIC_NAME = "shove-audit-log";

    /** The audit log topic: records with a generic JSON payload, and a DLQ. */
    public static final Topic<AuditRecord<JsonNode>> TOPIC = Topic.builder(
                    TOPIC_NAME, Codec.json(new TypeReference<AuditRecord<JsonNode>>() {}))
            .holdQueue(java.time.Duration.ofSeconds(5))
            .dlq()
            .build();

    private AuditLog() {}

    /**
     * A sink that publishes each record to {@link #TOPIC} and returns once the broker accepted it, so a broker that
     * refuses turns the audited delivery into a retry. Declare the topic first.
     *
     * @param publisher publishes the records
     * @return a blocking, thread-safe sink
     */
    public static AuditSink<Object> sink(Publisher publisher) {
        Objects.requireNonNull(publisher, "publisher");
        return record -> publisher.publish(TOPIC, asJson(record));
    }

    /**
     * {@return the record with its payload converted to a generic JSON value}
     *
     * @param record an audit record of any payload type
     */
    public static AuditRecord<JsonNode> asJson(AuditRecord<?> record) {
        JsonNode payload = record.payload() instanceof byte[] bytes
                ? JsonCodec.DEFAULT_MAPPER.getNodeFactory().binaryNode(bytes)
                : JsonCodec.DEFAULT_MAPPER.valueToTree(record.payload());
        return new AuditRecord<>(
                record.traceId(),
                record.topic(),
                payload,
                record.metadata(),
                record.outcome(),
                record.durationMs(),
                record.timestamp());
    }
}
