package dev.shove.opentelemetry;

import static io.opentelemetry.api.common.AttributeKey.longKey;
import static io.opentelemetry.api.common.AttributeKey.stringKey;

import io.opentelemetry.api.common.AttributeKey;

/**
 * Every attribute name and value this module writes, in one place.
 *
 * <p>The {@code messaging.*} and {@code error.type} names are those of the OpenTelemetry semantic conventions, version
 * 1.39.0 ("Semantic conventions for messaging spans", status Development). They are spelled out here rather than
 * taken from {@code io.opentelemetry.semconv:opentelemetry-semconv-incubating}, an alpha artifact, because this
 * module depends on the OpenTelemetry API alone; {@code SemanticConventionsTest} checks each one against that
 * artifact's constants. Names under {@code shove.} are shove's own.
 */
final class MessagingAttributes {
    static final AttributeKey<String> SYSTEM = stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION_NAME = stringKey("messaging.destination.name");
    static final AttributeKey<String> DESTINATION_PARTITION_ID = stringKey("messaging.destination.partition.id");
    static final AttributeKey<String> OPERATION_TYPE = stringKey("messaging.operation.type");
    static final AttributeKey<String> OPERATION_NAME = stringKey("messaging.operation.name");
    static final AttributeKey<String> MESSAGE_ID = stringKey("messaging.message.id");
    static final AttributeKey<Long> MESSAGE_BODY_SIZE = longKey("messaging.message.body.size");
    static final AttributeKey<String> CONSUMER_GROUP_NAME = stringKey("messaging.consumer.group.name");
    static final AttributeKey<Long> BATCH_MESSAGE_COUNT = longKey("messaging.batch.message_count");
    static final AttributeKey<Long> KAFKA_OFFSET = longKey("messaging.kafka.offset");
    static final AttributeKey<String> ERROR_TYPE = stringKey("error.type");

    /** {@code MessageMetadata.retryCount()}: the retries the message had spent when this run began. */
    static final AttributeKey<Long> SHOVE_RETRY_COUNT = longKey("shove.retry_count");
    /** The outcome the handler (or an interceptor inside this one) returned: {@code ack}, {@code retry}, ... */
    static final AttributeKey<String> SHOVE_OUTCOME = stringKey("shove.outcome");
    /** The reason of a {@code reject(reason)}. */
    static final AttributeKey<String> SHOVE_REJECT_REASON = stringKey("shove.reject_reason");
    /** {@code DeadMessageMetadata.reason()}. */
    static final AttributeKey<String> SHOVE_DEATH_REASON = stringKey("shove.death_reason");
    /** {@code DeadMessageMetadata.deathCount()}. */
    static final AttributeKey<Long> SHOVE_DEATH_COUNT = longKey("shove.death_count");

    /** {@code messaging.operation.type} (and name) of a single message's publish. */
    static final String SEND = "send";
    /** {@code messaging.operation.type} (and name) of one message of a batch, or of a reply. */
    static final String CREATE = "create";
    /** {@code messaging.operation.type} (and name) of a handler call. */
    static final String PROCESS = "process";

    /** {@code error.type} of a handler call that returned {@code retry}, {@code reject} or nothing. */
    static final String ERROR_RETRY = "retry";

    static final String ERROR_REJECT = "reject";
    static final String ERROR_NO_OUTCOME = "no_outcome";

    /** The system name of the in-memory backend, which the conventions do not register. */
    static final String MEMORY_SYSTEM = "shove.memory";

    private MessagingAttributes() {}

    /**
     * The {@code messaging.system} of a shove backend ({@code Broker.backendName()}): the registered value where the
     * conventions have one ({@code kafka}, {@code rabbitmq}, {@code aws_sqs}), {@value #MEMORY_SYSTEM} for the
     * in-process broker, and the backend's own name otherwise.
     */
    static String system(String backendName) {
        return switch (backendName) {
            case "memory" -> MEMORY_SYSTEM;
            case "sqs" -> "aws_sqs";
            default -> backendName;
        };
    }
}
