package dev.shove.cloudevents;

/**
 * How a topic carries its events, as the CloudEvents protocol bindings name the two content modes.
 *
 * @since 0.1.0
 */
public enum CloudEventMode {
    /**
     * The message's payload is the event's data, encoded by the topic's codec; the attributes travel as headers named
     * by the broker's {@link HeaderConvention} ({@code ce_type} on Kafka, {@code cloudEvents:type} on RabbitMQ).
     */
    BINARY,
    /**
     * The payload is the whole event in the JSON event format ({@value CloudEventMessage#STRUCTURED_CONTENT_TYPE}):
     * attributes and data together, so no header is needed to read it.
     */
    STRUCTURED
}
