package dev.shove.sqs;

/**
 * The marker type of the SQS/SNS backend: {@code Broker<Sqs>}. Never instantiated.
 *
 * @since 0.1.0
 */
public final class Sqs {
    private Sqs() {}
}
