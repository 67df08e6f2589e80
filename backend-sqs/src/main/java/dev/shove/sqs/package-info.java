/**
 * The AWS SQS + SNS backend, over the AWS SDK for Java v2: an SQS queue per topic with a dead-letter queue beside it,
 * an SNS topic per topic subscribed with raw delivery (publishing and fan-out), retries as delayed copies written back
 * to the queue, dead letters written by the library at once with their reason, FIFO queues and topics for sequenced
 * topics, and broadcast topics fanned out to a queue of its own per running subscriber. Start with {@link
 * dev.shove.sqs.SqsConfig}; the mapping, the IAM permissions and the limits are in {@code docs/backends/sqs.md}.
 */
@NullMarked
package dev.shove.sqs;

import org.jspecify.annotations.NullMarked;
