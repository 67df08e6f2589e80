package dev.shove.asyncapi;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * shove's objects on SQS and SNS ({@code docs/backends/sqs.md}): a queue per topic, subscribed to an SNS topic of the
 * same name, with a redrive policy to its dead-letter queue; a sequenced topic's queues and SNS topic are FIFO ({@code
 * .fifo}), the sequence key being the message group; a broadcast topic is only the SNS topic. There are no hold
 * queues: a retry is a copy sent back to the queue with a delay.
 *
 * @param prefix the name prefix of every queue and SNS topic ({@code namePrefix}), empty by default
 * @param sns whether SNS topics are used ({@code sns=false} publishes straight to the queues, without broadcast)
 * @param maxReceiveCount the redrive policy's count
 */
record SqsLayout(String prefix, boolean sns, int maxReceiveCount) implements Layout {
    static final int DEFAULT_MAX_RECEIVE_COUNT = 20;
    /** SQS's longest retention, which shove gives dead-letter queues. */
    private static final int DLQ_RETENTION_SECONDS = 1_209_600;

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Override
    public boolean hasMain(Topic<?> topic) {
        return !topic.isBroadcast() || sns;
    }

    @Override
    public boolean hasHolds(Topic<?> topic) {
        return false;
    }

    @Override
    public Map<String, ObjectNode> channelBindings(Channel channel) {
        Map<String, ObjectNode> bindings = new LinkedHashMap<>();
        Topic<?> topic = channel.topic;
        boolean fifo = topic.isSequenced();
        if (channel.kind == Channel.Kind.DEAD_LETTER) {
            ObjectNode sqs = JSON.objectNode();
            ObjectNode queue = queue(sqs, channel.address, fifo);
            queue.put("messageRetentionPeriod", DLQ_RETENTION_SECONDS);
            sqs.put("bindingVersion", "0.2.0");
            bindings.put("sqs", sqs);
            return bindings;
        }
        if (!topic.isBroadcast()) {
            ObjectNode sqs = JSON.objectNode();
            ObjectNode queue = queue(sqs, topic.name(), fifo);
            topic.dlq().ifPresent(dlq -> {
                ObjectNode redrive = queue.putObject("redrivePolicy");
                redrive.putObject("deadLetterQueue").put("name", name(dlq, fifo));
                redrive.put("maxReceiveCount", maxReceiveCount);
            });
            if (fifo) {
                sqs.put("x-shove-message-group-id", ShoveHeaders.SEQUENCE_KEY);
            }
            sqs.put("bindingVersion", "0.2.0");
            bindings.put("sqs", sqs);
        }
        if (sns) {
            ObjectNode topicBinding = JSON.objectNode();
            topicBinding.put("name", name(topic.name(), fifo));
            ObjectNode ordering = topicBinding.putObject("ordering");
            ordering.put("type", fifo ? "FIFO" : "standard");
            if (fifo) {
                ordering.put("contentBasedDeduplication", false);
            }
            topicBinding.put("bindingVersion", "0.1.0");
            bindings.put("sns", topicBinding);
        }
        return bindings;
    }

    private ObjectNode queue(ObjectNode sqs, String shoveName, boolean fifo) {
        ObjectNode queue = sqs.putObject("queue");
        queue.put("name", name(shoveName, fifo));
        queue.put("fifoQueue", fifo);
        if (fifo) {
            queue.put("deduplicationScope", "messageGroup");
            queue.put("fifoThroughputLimit", "perMessageGroupId");
        }
        return queue;
    }

    private String name(String shoveName, boolean fifo) {
        return prefix + shoveName + (fifo ? ".fifo" : "");
    }
}
