package dev.shove.cloudevents;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a binary-mode event's attributes are named as message headers: a prefix before the attribute's name ({@code
 * ce_} + {@code type} = {@code ce_type}), and whether {@code datacontenttype} travels as a {@value
 * #CONTENT_TYPE_HEADER} header or in the broker's own content-type field. Immutable.
 *
 * <p>{@link #forBackend(String)} picks the convention of the broker's protocol binding: {@link #KAFKA} on Kafka,
 * {@link #AMQP} on RabbitMQ, {@link #NATS} on NATS. Redis Streams, SQS and the in-memory broker have no binding, and get
 * {@link #GENERIC}, the HTTP binding's mapping, which is the spec's general one. Reading accepts every convention
 * listed in {@link #KNOWN}, so a consumer reads events whichever convention wrote them.
 *
 * @param prefix what comes before each attribute's name; not blank
 * @param contentTypeHeader whether {@code datacontenttype} is a {@value #CONTENT_TYPE_HEADER} header ({@code false}:
 *     the broker's own field carries it, as AMQP's {@code content-type} property does)
 * @since 0.1.0
 */
public record HeaderConvention(String prefix, boolean contentTypeHeader) {
    /** The header that carries {@code datacontenttype} where the convention has one. */
    public static final String CONTENT_TYPE_HEADER = "content-type";

    /** The Kafka protocol binding: {@code ce_type}, and a {@code content-type} header. */
    public static final HeaderConvention KAFKA = new HeaderConvention("ce_", true);

    /**
     * The AMQP protocol binding as the CloudEvents SDKs write it: {@code cloudEvents:type} application properties
     * (RabbitMQ headers), and {@code datacontenttype} in the message's {@code content-type} property, which shove
     * sets from the topic's codec.
     */
    public static final HeaderConvention AMQP = new HeaderConvention("cloudEvents:", false);

    /**
     * The AMQP binding's newer spelling, {@code cloudEvents_type}, which the binding now prefers for JMS
     * interoperability; choose it per topic where the readers expect it.
     */
    public static final HeaderConvention AMQP_UNDERSCORE = new HeaderConvention("cloudEvents_", false);

    /** The NATS protocol binding: {@code ce-type} headers, and a {@code content-type} header. */
    public static final HeaderConvention NATS = new HeaderConvention("ce-", true);

    /** The HTTP binding's mapping, for brokers without a binding of their own: {@code ce-type}, {@code content-type}. */
    public static final HeaderConvention GENERIC = new HeaderConvention("ce-", true);

    /** Every convention a consumer recognises, in the order it tries them. */
    public static final List<HeaderConvention> KNOWN = List.of(KAFKA, AMQP, AMQP_UNDERSCORE, GENERIC);

    /**
     * Checks the components; see the class description.
     *
     * @param prefix what comes before each attribute's name
     * @param contentTypeHeader whether {@code datacontenttype} is a header
     */
    public HeaderConvention {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isBlank()) {
            throw new IllegalArgumentException("a header convention needs a prefix, such as 'ce_'");
        }
    }

    /**
     * {@return the convention of a broker's protocol binding}
     *
     * @param backendName the broker's {@code Broker.backendName()}: {@code kafka}, {@code rabbitmq}, {@code nats};
     *     any other gets {@link #GENERIC}
     */
    public static HeaderConvention forBackend(String backendName) {
        return switch (backendName.toLowerCase(Locale.ROOT)) {
            case "kafka" -> KAFKA;
            case "rabbitmq" -> AMQP;
            case "nats" -> NATS;
            default -> GENERIC;
        };
    }

    /**
     * {@return the header that carries an attribute}
     *
     * @param attribute an attribute's or extension's name, e.g. {@code type}
     */
    public String header(String attribute) {
        return prefix + attribute;
    }
}
