package dev.shove.test;

import dev.shove.CodecException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.OutboundMessage;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A message the broker accepted for a topic while the kit recorded, as it went to the broker: published by the
 * application, a handler's reply, a dead letter replayed, or raw bytes {@link ShoveKit#inject injected}. Immutable;
 * thread-safe.
 *
 * @param <T> the topic's message type
 * @since 0.1.0
 */
public final class Published<T> {
    private final Topic<T> topic;
    private final OutboundMessage message;

    Published(Topic<T> topic, OutboundMessage message) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.message = Objects.requireNonNull(message, "message");
    }

    /** {@return the topic it was published to} */
    public Topic<T> topic() {
        return topic;
    }

    /**
     * {@return the message, decoded with the topic's codec}
     *
     * @throws CodecException when the bytes do not decode (raw bytes injected, another codec)
     */
    public T message() {
        try {
            return topic.codec().decode(message.payload());
        } catch (Exception e) {
            throw new CodecException(
                    "a message published to topic '%s'%s cannot be decoded with codec %s: %s"
                            .formatted(
                                    topic.name(),
                                    messageId()
                                            .map(id -> " (message id " + id + ")")
                                            .orElse(""),
                                    topic.codec().name(),
                                    e.getMessage()),
                    e);
        }
    }

    /** {@return the bytes that went to the broker} Do not change the array. */
    public byte[] payload() {
        return message.payload();
    }

    /** {@return every header it carried: the publisher's own and shove's ({@code shove-message-id}, ...)} */
    public Map<String, String> headers() {
        return message.headers();
    }

    /**
     * {@return one header, if present}
     *
     * @param name the header's name
     */
    public Optional<String> header(String name) {
        return Optional.ofNullable(message.headers().get(name));
    }

    /**
     * {@return the id shove stamped on it ({@value ShoveHeaders#MESSAGE_ID}); empty for raw bytes injected without one}
     */
    public Optional<String> messageId() {
        return header(ShoveHeaders.MESSAGE_ID);
    }

    /** {@return the ordering key of a sequenced topic; empty otherwise} */
    public Optional<String> key() {
        return Optional.ofNullable(message.key());
    }

    @Override
    public String toString() {
        String body;
        try {
            body = String.valueOf(message());
        } catch (CodecException e) {
            body = message.payload().length + " bytes that do not decode";
        }
        return "Published[" + topic.name() + " " + messageId().orElse("(no message id)") + " " + body + "]";
    }
}
