package dev.shove.sqs;

import dev.shove.BrokerUnavailableException;
import dev.shove.PublishException;
import dev.shove.ShoveException;
import dev.shove.TopologyException;
import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sns.model.NotFoundException;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * Translates what the AWS SDK throws into shove's exceptions: a missing queue or topic is a {@link TopologyException},
 * an unreachable service or throttling a retriable {@link BrokerUnavailableException} or {@link PublishException}, any
 * other refusal names AWS's error code. Messages never carry request signatures or credentials (the SDK's messages
 * carry neither).
 */
final class SqsErrors {
    private SqsErrors() {}

    /** The cause inside the wrappers of {@link CompletableFuture}. */
    static Throwable unwrap(Throwable t) {
        Throwable cur = t;
        while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
            cur = cur.getCause();
        }
        return cur;
    }

    /** SQS says the queue does not exist. */
    static boolean isMissingQueue(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof QueueDoesNotExistException) {
            return true;
        }
        return e instanceof AwsServiceException s
                && s.awsErrorDetails() != null
                && ("AWS.SimpleQueueService.NonExistentQueue"
                                .equals(s.awsErrorDetails().errorCode())
                        || "QueueDoesNotExist".equals(s.awsErrorDetails().errorCode()));
    }

    /** SNS says the topic (or subscription) does not exist. */
    static boolean isMissingTopic(Throwable t) {
        Throwable e = unwrap(t);
        return e instanceof NotFoundException
                || e instanceof AwsServiceException s
                        && s.awsErrorDetails() != null
                        && "NotFound".equals(s.awsErrorDetails().errorCode());
    }

    /** The call may succeed if tried again: no answer, a timeout, throttling, a server error. */
    static boolean isTransient(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof SdkClientException || e instanceof TimeoutException || e instanceof CancellationException) {
            return true;
        }
        return e instanceof AwsServiceException s && (s.isThrottlingException() || s.statusCode() >= 500);
    }

    /** AWS's error code and message, or the exception itself when it is not a service error. */
    static String describe(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof AwsServiceException s && s.awsErrorDetails() != null) {
            return s.awsErrorDetails().errorCode() + ": " + s.awsErrorDetails().errorMessage();
        }
        return e.toString();
    }

    /** A failure of a publish, as the engine expects it: shove exceptions as they are, the rest translated. */
    static ShoveException publishFailure(Throwable t, String what) {
        Throwable e = unwrap(t);
        if (e instanceof ShoveException s) {
            return s;
        }
        if (isTransient(e)) {
            return new PublishException(
                    "publishing " + what + " failed: SQS/SNS did not take it (" + describe(e)
                            + "); it may be sent again",
                    e,
                    true);
        }
        return new PublishException("SQS/SNS refused " + what + ": " + describe(e), e, false);
    }

    /**
     * Waits for a call made on behalf of a blocking method (declare, stats, ping) and returns its result, translating
     * its failure: {@code what} names the call for the message.
     */
    static <T> T await(CompletableFuture<T> call, Duration timeout, String what) {
        try {
            return call.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while " + what, e);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new BrokerUnavailableException(
                    "SQS/SNS did not answer within " + DurationText.of(timeout) + " while " + what, e);
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof ShoveException s) {
                throw s;
            }
            if (isTransient(cause)) {
                throw new BrokerUnavailableException(
                        "SQS/SNS is unavailable while " + what + ": " + describe(cause), cause);
            }
            throw new TopologyException("SQS/SNS refused " + what + ": " + describe(cause), cause);
        }
    }
}
