package dev.shove;

import dev.shove.spi.LazyHeaderMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What shove and the broker know about one delivery of a message. Immutable.
 *
 * @param topic the name of the topic the message belongs to
 * @param retryCount how many retries this message has spent (0 on the first delivery); shove owns this count and
 *     carries it across every hop in the {@value ShoveHeaders#RETRY_COUNT} header. {@code maxRetries} is measured
 *     against it. {@link Outcome#defer()} does not advance it.
 * @param deliveryId the broker's identifier of this delivery (a delivery tag, a partition-offset, a stream entry id),
 *     for logs
 * @param redelivered whether the broker flags this delivery as a redelivery of the same broker message (after a
 *     consumer crash or a returned message); a retry is a new broker message and is not flagged
 * @param deliveryCount the broker's own attempt counter for this broker message, including this delivery (a first
 *     delivery is 1); empty where the broker has none, never 0. A retry publishes a new message, so it restarts at 1
 * @param headers every header of the message: the publisher's own and shove's ({@code shove-*}, see {@link
 *     ShoveHeaders})
 * @param partition the partition the message was read from, where the broker has partitions (Kafka)
 * @param offset the message's position in its log (Kafka offset, stream sequence), where the broker has one
 * @param timestampMs when the broker accepted the message, in milliseconds since the epoch, where the broker says
 * @param position where the message sits in a log-like subscription (seek back to it with {@link
 *     Outcome#andSeek(Position)}), where the backend has a log
 * @since 0.1.0
 */
public record MessageMetadata(
        String topic,
        int retryCount,
        String deliveryId,
        boolean redelivered,
        OptionalInt deliveryCount,
        Map<String, String> headers,
        OptionalInt partition,
        OptionalLong offset,
        OptionalLong timestampMs,
        Optional<Position> position) {

    /**
     * Checks the components; see the class description.
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
    public MessageMetadata {
        Objects.requireNonNull(topic, "topic");
        if (retryCount < 0) {
            throw new IllegalArgumentException("retryCount must not be negative, was " + retryCount);
        }
        Objects.requireNonNull(deliveryId, "deliveryId");
        Objects.requireNonNull(deliveryCount, "deliveryCount");
        if (deliveryCount.isPresent() && deliveryCount.getAsInt() < 1) {
            throw new IllegalArgumentException("deliveryCount is at least 1 when known, was " + deliveryCount);
        }
        headers = headers instanceof LazyHeaderMap ? headers : Map.copyOf(headers);
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(offset, "offset");
        Objects.requireNonNull(timestampMs, "timestampMs");
        Objects.requireNonNull(position, "position");
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
}
