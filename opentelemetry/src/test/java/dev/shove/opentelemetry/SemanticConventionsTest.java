package dev.shove.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.semconv.ErrorAttributes;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes.MessagingOperationTypeIncubatingValues;
import io.opentelemetry.semconv.incubating.MessagingIncubatingAttributes.MessagingSystemIncubatingValues;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The names {@link MessagingAttributes} spells out are the semantic conventions' own, as published in {@code
 * opentelemetry-semconv(-incubating)} 1.39.0 (a test dependency only).
 */
class SemanticConventionsTest {

    @Test
    @DisplayName("every messaging attribute name is the conventions' name")
    void attributeNames() {
        assertThat(MessagingAttributes.SYSTEM).isEqualTo(MessagingIncubatingAttributes.MESSAGING_SYSTEM);
        assertThat(MessagingAttributes.DESTINATION_NAME)
                .isEqualTo(MessagingIncubatingAttributes.MESSAGING_DESTINATION_NAME);
        assertThat(MessagingAttributes.DESTINATION_PARTITION_ID)
                .isEqualTo(MessagingIncubatingAttributes.MESSAGING_DESTINATION_PARTITION_ID);
        assertThat(MessagingAttributes.OPERATION_TYPE)
                .isEqualTo(MessagingIncubatingAttributes.MESSAGING_OPERATION_TYPE);
        assertThat(MessagingAttributes.OPERATION_NAME)
                .isEqualTo(MessagingIncubatingAttributes.MESSAGING_OPERATION_NAME);
        assertThat(MessagingAttributes.MESSAGE_ID).isEqualTo(MessagingIncubatingAttributes.MESSAGING_MESSAGE_ID);
        assertThat(MessagingAttributes.MESSAGE_BODY_SIZE)
                .isEqualTo(MessagingIncubatingAttributes.MESSAGING_MESSAGE_BODY_SIZE);
        assertThat(MessagingAttributes.CONSUMER_GROUP_NAME)
                .isEqualTo(MessagingIncubatingAttributes.MESSAGING_CONSUMER_GROUP_NAME);
        assertThat(MessagingAttributes.BATCH_MESSAGE_COUNT)
                .isEqualTo(MessagingIncubatingAttributes.MESSAGING_BATCH_MESSAGE_COUNT);
        assertThat(MessagingAttributes.KAFKA_OFFSET).isEqualTo(MessagingIncubatingAttributes.MESSAGING_KAFKA_OFFSET);
        assertThat(MessagingAttributes.ERROR_TYPE).isEqualTo(ErrorAttributes.ERROR_TYPE);
    }

    @Test
    @DisplayName("the operation types are the conventions' values")
    void operationTypes() {
        assertThat(MessagingAttributes.SEND).isEqualTo(MessagingOperationTypeIncubatingValues.SEND);
        assertThat(MessagingAttributes.CREATE).isEqualTo(MessagingOperationTypeIncubatingValues.CREATE);
        assertThat(MessagingAttributes.PROCESS).isEqualTo(MessagingOperationTypeIncubatingValues.PROCESS);
    }

    @Test
    @DisplayName("backends the conventions know get their registered system name; the in-memory one gets shove's own")
    void systems() {
        assertThat(MessagingAttributes.system("kafka")).isEqualTo(MessagingSystemIncubatingValues.KAFKA);
        assertThat(MessagingAttributes.system("rabbitmq")).isEqualTo(MessagingSystemIncubatingValues.RABBITMQ);
        assertThat(MessagingAttributes.system("sqs")).isEqualTo(MessagingSystemIncubatingValues.AWS_SQS);
        assertThat(MessagingAttributes.system("memory")).isEqualTo("shove.memory");
        assertThat(MessagingAttributes.system("nats")).isEqualTo("nats");
    }
}
