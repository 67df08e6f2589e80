package dev.shove;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.shove.spi.Delivery;
import dev.shove.spi.LazyHeaderMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * What shove and the broker know about one delivery of a message. Immutable; two are equal when every component is.
 *
 * <p>Its components are those of the constructor, each read by the accessor of the same name. The metadata shove
 * hands a handler reads the broker's coordinates of the delivery ({@link #deliveryId()}, {@link #offset()}, {@link
 * #position()}) only when they are asked for (see {@link #ofDelivery}), so that a message whose handler does not ask
 * costs no objects for them. In JSON (the audit log) it is an object of the components, in the constructor's order.
 *
 * @since 0.1.0
 */
@JsonAutoDetect(
        fieldVisibility = JsonAutoDetect.Visibility.NONE,
        getterVisibility = JsonAutoDetect.Visibility.NONE,
        isGetterVisibility = JsonAutoDetect.Visibility.NONE,
        setterVisibility = JsonAutoDetect.Visibility.NONE,
        creatorVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({
    "topic",
    "retryCount",
    "deliveryId",
    "redelivered",
    "deliveryCount",
    "headers",
    "partition",
    "offset",
    "timestampMs",
    "position"
})
public final class MessageMetadata {
    // The fields are transient only so that Jackson leaves them alone: it reads the accessors and writes through the
    // constructor, and on the module path it may not reach into this package's private fields (a record's it skips).
    private final transient String topic;
    private final transient int retryCount;
    private final transient boolean redelivered;
    private final transient OptionalInt deliveryCount;
    private final transient Map<String, String> headers;
    private final transient OptionalInt partition;
    private final transient OptionalLong timestampMs;

    /** The broker's coordinates, when given; null when they are read from {@link #delivery}. */
    private final transient @Nullable String deliveryId;

    private final transient @Nullable OptionalLong offset;
    private final transient @Nullable Optional<Position> position;

    /** The delivery the coordinates are read from, when they were not given. */
    private final transient @Nullable Delivery delivery;

    /** {@link #delivery}'s id once read (a benign race: two readers may each make an equal string). */
    private transient @Nullable String readDeliveryId;

    /**
     * Metadata with every component given. Checks the components.
     *
     * @param topic the name of the topic the message belongs to
     * @param retryCount how many retries this message has spent (0 on the first delivery); shove owns this count and
     *     carries it across every hop in the {@value ShoveHeaders#RETRY_COUNT} header. {@code maxRetries} is measured
     *     against it. {@link Outcome#defer()} does not advance it.
     * @param deliveryId the broker's identifier of this delivery (a delivery tag, a partition-offset, a stream entry
     *     id), for logs
     * @param redelivered whether the broker flags this delivery as a redelivery of the same broker message (after a
     *     consumer crash or a returned message); a retry is a new broker message and is not flagged
     * @param deliveryCount the broker's own attempt counter for this broker message, including this delivery (a first
     *     delivery is 1); empty where the broker has none, never 0. A retry publishes a new message, so it restarts at
     *     1
     * @param headers every header of the message: the publisher's own and shove's ({@code shove-*}, see {@link
     *     ShoveHeaders})
     * @param partition the partition the message was read from, where the broker has partitions (Kafka)
     * @param offset the message's position in its log (Kafka offset, stream sequence), where the broker has one
     * @param timestampMs when the broker accepted the message, in milliseconds since the epoch, where the broker says
     * @param position where the message sits in a log-like subscription (seek back to it with {@link
     *     Outcome#andSeek(Position)}), where the backend has a log
     */
    @JsonCreator
    public MessageMetadata(
            @JsonProperty("topic") String topic,
            @JsonProperty("retryCount") int retryCount,
            @JsonProperty("deliveryId") String deliveryId,
            @JsonProperty("redelivered") boolean redelivered,
            @JsonProperty("deliveryCount") OptionalInt deliveryCount,
            @JsonProperty("headers") Map<String, String> headers,
            @JsonProperty("partition") OptionalInt partition,
            @JsonProperty("offset") OptionalLong offset,
            @JsonProperty("timestampMs") OptionalLong timestampMs,
            @JsonProperty("position") Optional<Position> position) {
        this(
                topic,
                retryCount,
                Objects.requireNonNull(deliveryId, "deliveryId"),
                redelivered,
                deliveryCount,
                headers,
                partition,
                Objects.requireNonNull(offset, "offset"),
                timestampMs,
                Objects.requireNonNull(position, "position"),
                null);
    }

    private MessageMetadata(
            String topic,
            int retryCount,
            @Nullable String deliveryId,
            boolean redelivered,
            OptionalInt deliveryCount,
            Map<String, String> headers,
            OptionalInt partition,
            @Nullable OptionalLong offset,
            OptionalLong timestampMs,
            @Nullable Optional<Position> position,
            @Nullable Delivery delivery) {
        this.topic = Objects.requireNonNull(topic, "topic");
        if (retryCount < 0) {
            throw new IllegalArgumentException("retryCount must not be negative, was " + retryCount);
        }
        this.retryCount = retryCount;
        this.deliveryId = deliveryId;
        this.redelivered = redelivered;
        this.deliveryCount = Objects.requireNonNull(deliveryCount, "deliveryCount");
        if (deliveryCount.isPresent() && deliveryCount.getAsInt() < 1) {
            throw new IllegalArgumentException("deliveryCount is at least 1 when known, was " + deliveryCount);
        }
        Objects.requireNonNull(headers, "headers");
        this.headers = headers instanceof LazyHeaderMap ? headers : Map.copyOf(headers);
        this.partition = Objects.requireNonNull(partition, "partition");
        this.offset = offset;
        this.timestampMs = Objects.requireNonNull(timestampMs, "timestampMs");
        this.position = position;
        this.delivery = delivery;
    }

    /**
     * The metadata of a delivery as the engine hands it to a handler: the broker's coordinates ({@link #deliveryId()},
     * {@link #offset()}, {@link #position()}) are read from {@code delivery} when first asked for, so the delivery's
     * {@link Delivery#deliveryId()}, {@link Delivery#offset()} and {@link Delivery#position()} must give the same
     * answer on any thread for as long as anyone holds the metadata. Its headers are {@code delivery}'s. For backends
     * and tests that build what the engine builds.
     *
     * @param topic the name of the topic the message belongs to
     * @param retryCount retries spent (see the constructor)
     * @param delivery the delivery, from which the id, offset, position and headers are read
     * @param deliveryCount the broker's attempt counter (see the constructor)
     * @param partition the partition, where the broker has partitions
     * @param timestampMs when the broker accepted the message, where the broker says
     * @return the delivery's metadata
     */
    public static MessageMetadata ofDelivery(
            String topic,
            int retryCount,
            Delivery delivery,
            OptionalInt deliveryCount,
            OptionalInt partition,
            OptionalLong timestampMs) {
        return new MessageMetadata(
                topic,
                retryCount,
                null,
                delivery.redelivered(),
                deliveryCount,
                delivery.headers(),
                partition,
                null,
                timestampMs,
                null,
                delivery);
    }

    /** {@return the name of the topic the message belongs to} */
    @JsonProperty("topic")
    public String topic() {
        return topic;
    }

    /**
     * {@return how many retries this message has spent (0 on the first delivery)}; shove owns this count and carries
     * it across every hop in the {@value ShoveHeaders#RETRY_COUNT} header. {@code maxRetries} is measured against it.
     * {@link Outcome#defer()} does not advance it.
     */
    @JsonProperty("retryCount")
    public int retryCount() {
        return retryCount;
    }

    /**
     * {@return the broker's identifier of this delivery (a delivery tag, a partition-offset, a stream entry id), for
     * logs}
     */
    @JsonProperty("deliveryId")
    public String deliveryId() {
        String id = deliveryId;
        if (id != null) {
            return id;
        }
        id = readDeliveryId;
        if (id == null) {
            id = Objects.requireNonNull(delivery).deliveryId();
            readDeliveryId = id;
        }
        return id;
    }

    /**
     * {@return whether the broker flags this delivery as a redelivery of the same broker message} (after a consumer
     * crash or a returned message); a retry is a new broker message and is not flagged.
     */
    @JsonProperty("redelivered")
    public boolean redelivered() {
        return redelivered;
    }

    /**
     * {@return the broker's own attempt counter for this broker message, including this delivery} (a first delivery is
     * 1); empty where the broker has none, never 0. A retry publishes a new message, so it restarts at 1.
     */
    @JsonProperty("deliveryCount")
    public OptionalInt deliveryCount() {
        return deliveryCount;
    }

    /**
     * {@return every header of the message}: the publisher's own and shove's ({@code shove-*}, see {@link
     * ShoveHeaders}). Immutable.
     */
    @JsonProperty("headers")
    public Map<String, String> headers() {
        return headers;
    }

    /** {@return the partition the message was read from, where the broker has partitions (Kafka)} */
    @JsonProperty("partition")
    public OptionalInt partition() {
        return partition;
    }

    /** {@return the message's position in its log (Kafka offset, stream sequence), where the broker has one} */
    @JsonProperty("offset")
    public OptionalLong offset() {
        OptionalLong given = offset;
        if (given != null) {
            return given;
        }
        long read = Objects.requireNonNull(delivery).offset();
        return read >= 0 ? OptionalLong.of(read) : OptionalLong.empty();
    }

    /** {@return when the broker accepted the message, in milliseconds since the epoch, where the broker says} */
    @JsonProperty("timestampMs")
    public OptionalLong timestampMs() {
        return timestampMs;
    }

    /**
     * {@return where the message sits in a log-like subscription} (seek back to it with {@link
     * Outcome#andSeek(Position)}), where the backend has a log.
     */
    @JsonProperty("position")
    public Optional<Position> position() {
        Optional<Position> given = position;
        return given != null
                ? given
                : Optional.ofNullable(Objects.requireNonNull(delivery).position());
    }

    /**
     * Metadata of a first delivery with the given headers and nothing else known: handy in a handler's unit tests.
     *
     * @param topic the topic's name
     * @param deliveryId any identifier, for logs
     * @param headers the message's headers
     * @return metadata with retry count 0, not redelivered, and no broker coordinates
     */
    public static MessageMetadata of(String topic, String deliveryId, Map<String, String> headers) {
        return new MessageMetadata(
                topic,
                0,
                deliveryId,
                false,
                OptionalInt.empty(),
                headers,
                OptionalInt.empty(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                Optional.empty());
    }

    /**
     * {@return the value of one header, if present}
     *
     * @param name the header's name, exactly as published
     */
    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name));
    }

    /**
     * The headers parsed into a record whose components name headers: a component {@code tenantId} reads header
     * {@code tenantId}, else {@code tenant-id}; {@code Optional} components may be missing, the others must be
     * present; values are converted to numbers, booleans, enums or strings. Pair it with {@link
     * ConsumerOptions.Builder#headerContract} so that messages that do not fit never reach the handler.
     *
     * @param contract a record type whose components name headers
     * @param <H> that type
     * @return the headers as a {@code contract} instance
     * @throws IllegalArgumentException naming the header that is missing or does not parse
     */
    public <H extends Record> H headersAs(Class<H> contract) {
        return HeaderContracts.parse(headers, contract);
    }

    /** {@return the id shove stamped on the message when it was first published; it survives every retry} */
    public Optional<String> messageId() {
        return header(ShoveHeaders.MESSAGE_ID);
    }

    /**
     * {@return whether {@code other} is metadata with equal components}
     *
     * @param other any object
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof MessageMetadata m
                && topic.equals(m.topic)
                && retryCount == m.retryCount
                && deliveryId().equals(m.deliveryId())
                && redelivered == m.redelivered
                && deliveryCount.equals(m.deliveryCount)
                && headers.equals(m.headers)
                && partition.equals(m.partition)
                && offset().equals(m.offset())
                && timestampMs.equals(m.timestampMs)
                && position().equals(m.position());
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                topic,
                retryCount,
                deliveryId(),
                redelivered,
                deliveryCount,
                headers,
                partition,
                offset(),
                timestampMs,
                position());
    }

    /** {@return the components, as a record would show them} */
    @Override
    public String toString() {
        return "MessageMetadata[topic=" + topic + ", retryCount=" + retryCount + ", deliveryId=" + deliveryId()
                + ", redelivered=" + redelivered + ", deliveryCount=" + deliveryCount + ", headers=" + headers
                + ", partition=" + partition + ", offset=" + offset() + ", timestampMs=" + timestampMs
                + ", position=" + position() + "]";
    }
}
