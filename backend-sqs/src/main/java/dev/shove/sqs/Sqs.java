package dev.shove.sqs;

/** The marker type of the SQS/SNS backend: {@code Broker<Sqs>}. Never instantiated. */
public final class Sqs {
    private Sqs() {}
}
