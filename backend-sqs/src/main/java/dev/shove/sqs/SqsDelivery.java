package dev.shove.sqs;

import dev.shove.spi.Delivery;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One received SQS message: its payload and headers decoded, the broker's coordinates (receive count, sent time,
 * message group) and the receipt handle every later call on it needs. The lease fields belong to the subscription's
 * visibility heartbeat.
 */
final class SqsDelivery implements Delivery {
    final String receiptHandle;
    final @Nullable String groupId;
    /** When the subscription received the message ({@link System#nanoTime()}): SQS caps visibility at 12 h from it. */
    final long receivedNanos;
    /** Until when the message is invisible to other consumers, as far as this subscription knows. */
    volatile long leaseUntilNanos;

    private final String messageId;
    private final byte[] payload;
    private final Map<String, String> headers;
    private final String queue;
    private final int receiveCount;
    private final long sentTimestamp;

    SqsDelivery(
            String receiptHandle,
            String messageId,
            byte[] payload,
            Map<String, String> headers,
            String queue,
            int receiveCount,
            long sentTimestamp,
            @Nullable String groupId,
            long receivedNanos,
            long leaseUntilNanos) {
        this.receiptHandle = receiptHandle;
        this.messageId = messageId;
        this.payload = payload;
        this.headers = headers;
        this.queue = queue;
        this.receiveCount = receiveCount;
        this.sentTimestamp = sentTimestamp;
        this.groupId = groupId;
        this.receivedNanos = receivedNanos;
        this.leaseUntilNanos = leaseUntilNanos;
    }

    @Override
    public byte[] payload() {
        return payload;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    /** SQS's message id. */
    @Override
    public String deliveryId() {
        return messageId;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public boolean redelivered() {
        return receiveCount > 1;
    }

    @Override
    public int deliveryCount() {
        return receiveCount;
    }

    @Override
    public long timestampMs() {
        return sentTimestamp;
    }

    /** A FIFO message's group: the ordering key of a message published without shove's header. */
    @Override
    public @Nullable String nativeKey() {
        return groupId;
    }

    @Override
    public String toString() {
        return "SqsDelivery[" + messageId + " from " + queue + ", receive " + receiveCount + "]";
    }
}
