package dev.shove.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import dev.shove.ShoveHeaders;
import dev.shove.spi.HeaderMapBuilder;
import dev.shove.spi.OutboundMessage;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Translation between shove's string headers and AMQP messages. Every header travels as an AMQP long string; any
 * AMQP value read back becomes a string (numbers in decimal, timestamps in epoch milliseconds, byte arrays as UTF-8,
 * arrays and tables in brackets). The broker's own dead-letter bookkeeping ({@code x-death}, {@code
 * x-first-death-*}, {@code x-last-death-*}), which RabbitMQ writes when a hold queue's TTL sends a copy back, is not
 * passed on: shove counts retries itself, and republishing it as a string only makes the broker log "invalid x-death
 * header" on the next hop. Neither is a quorum queue's {@code x-delivery-count}, which becomes the delivery's {@link
 * #deliveryCount delivery count}: copied onto a retry copy, it would make the copy's first delivery look like a
 * redelivery.
 */
final class AmqpMessages {
    /** AMQP's "persistent" delivery mode: the broker writes the message to disk in a durable queue. */
    static final int PERSISTENT = 2;

    private AmqpMessages() {}

    /** Properties of a message published by the application: persistent, its codec's content type, its headers. */
    static AMQP.BasicProperties forPublish(OutboundMessage message) {
        return new AMQP.BasicProperties.Builder()
                .contentType(message.contentType())
                .deliveryMode(PERSISTENT)
                .messageId(message.headers().get(ShoveHeaders.MESSAGE_ID))
                .timestamp(new Date())
                .headers(toAmqp(message.headers()))
                .build();
    }

    /**
     * Properties of a copy (to a hold queue or the DLQ): the original's properties (content type and encoding,
     * correlation id, reply-to, message id, timestamp, type, app id, priority) with the copy's headers, persistent.
     * Not kept: {@code expiration} (a per-message TTL would cut a hold short) and {@code user-id} (the broker checks it
     * against the connection's user, so a copy of another user's message would be refused).
     */
    static AMQP.BasicProperties forCopy(AMQP.BasicProperties original, Map<String, String> headers) {
        return new AMQP.BasicProperties.Builder()
                .contentType(original.getContentType())
                .contentEncoding(original.getContentEncoding())
                .correlationId(original.getCorrelationId())
                .replyTo(original.getReplyTo())
                .messageId(original.getMessageId())
                .timestamp(original.getTimestamp())
                .type(original.getType())
                .appId(original.getAppId())
                .priority(original.getPriority())
                .deliveryMode(PERSISTENT)
                .headers(toAmqp(headers))
                .build();
    }

    static Map<String, Object> toAmqp(Map<String, String> headers) {
        return new HashMap<>(headers);
    }

    /** The header in which a quorum queue says how often it got a message back (absent the first time). */
    static final String DELIVERY_COUNT = "x-delivery-count";

    /**
     * The delivery count of a message received from a quorum queue, first delivery = 1: its {@code x-delivery-count}
     * header counts the times the queue got it back (absent, or 0 when it arrived from a hold tier, on a first
     * delivery). 0 (unknown) for a classic queue, which keeps no count.
     */
    static int deliveryCount(@Nullable Map<String, Object> headers, boolean quorum) {
        if (!quorum) {
            return 0;
        }
        Object returns = headers == null ? null : headers.get(DELIVERY_COUNT);
        if (returns instanceof Number n && n.longValue() >= 0 && n.longValue() < Integer.MAX_VALUE) {
            return n.intValue() + 1;
        }
        return 1;
    }

    /**
     * Every header of a received message as a string, without the broker's bookkeeping; immutable ({@link
     * HeaderMapBuilder}: the engine keeps it without copying it).
     */
    static Map<String, String> toStrings(@Nullable Map<String, Object> headers) {
        if (headers == null || headers.isEmpty()) {
            return Map.of();
        }
        HeaderMapBuilder out = new HeaderMapBuilder(headers.size());
        for (Map.Entry<String, Object> h : headers.entrySet()) {
            if (h.getValue() != null
                    && !isBrokerDeathHeader(h.getKey())
                    && !h.getKey().equals(DELIVERY_COUNT)) {
                out.put(h.getKey(), asString(h.getValue()));
            }
        }
        return out.build();
    }

    static boolean isBrokerDeathHeader(String name) {
        return name.equals("x-death") || name.startsWith("x-first-death-") || name.startsWith("x-last-death-");
    }

    /** One AMQP field value as a string. */
    static String asString(Object value) {
        return switch (value) {
            case String s -> s;
            case LongString s -> s.toString();
            case byte[] bytes -> new String(bytes, StandardCharsets.UTF_8);
            case Date d -> Long.toString(d.getTime());
            case BigDecimal d -> d.toPlainString();
            case List<?> list -> {
                StringBuilder b = new StringBuilder("[");
                for (Object o : list) {
                    if (b.length() > 1) {
                        b.append(", ");
                    }
                    b.append(o == null ? "null" : asString(o));
                }
                yield b.append(']').toString();
            }
            case Map<?, ?> map -> {
                StringBuilder b = new StringBuilder("{");
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (b.length() > 1) {
                        b.append(", ");
                    }
                    b.append(e.getKey()).append('=').append(e.getValue() == null ? "null" : asString(e.getValue()));
                }
                yield b.append('}').toString();
            }
            default -> String.valueOf(value);
        };
    }
}
