package dev.shove.sqs;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The SDK's synchronous SQS and SNS clients over one pooled HTTP client (Apache HttpClient 5, no Netty), each call
 * made on a virtual thread of its own and handed back as a {@link CompletableFuture}: the transport keeps the shape of
 * asynchronous calls while a blocked call costs no platform thread. Cancelling a future interrupts its call.
 *
 * <p>Why not the SDK's asynchronous clients: they need its Netty client, which is built on Netty 4.1 and breaks next
 * to the Netty 4.2 that lettuce and amqp-client bring (aws/aws-sdk-java-v2#6757).
 *
 * <p>Every call's end tells a {@link Reachability}: a call that fails without an answer from SQS or SNS (refused,
 * reset, timed out) reports it unreachable; the next call that gets an answer reports it back.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
final class AwsClients implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AwsClients.class);

    /** What the transport learns of every call: an answer came, or the service could not be reached. */
    interface Reachability {
        /** A call to {@code service} that began at {@code startedNanos} got an answer. */
        void answered(String service, long startedNanos);

        /** A call to {@code service} got no answer: {@code failure} is a connection error. */
        void unreachable(String service, Throwable failure);
    }

    static final String SQS = "SQS";
    static final String SNS = "SNS";

    /** HttpClient 5's "no connection free in the pool in time" (an IOException): named, not linked against. */
    private static final String POOL_TIMEOUT = "org.apache.hc.core5.http.ConnectionRequestTimeoutException";

    private final SdkHttpClient http;
    private final SqsClient sqs;
    private final @Nullable SnsClient sns;
    private final ExecutorService calls;
    private final Reachability reachability;
    private volatile boolean closed;

    AwsClients(
            SqsConfig config,
            Region region,
            AwsCredentialsProvider credentials,
            String clientName,
            Reachability reachability) {
        this.reachability = reachability;
        this.http = Apache5HttpClient.builder()
                .maxConnections(config.maxConnections())
                .connectionAcquisitionTimeout(config.apiCallTimeout())
                // a long poll answers within its wait: more than that without a byte is a dead connection
                .socketTimeout(config.receiveWait().plusSeconds(10))
                .build();
        this.calls = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("shove-sqs-call-" + clientName + "-", 0).factory());
        var sqsBuilder = SqsClient.builder()
                .httpClient(http)
                .region(region)
                .credentialsProvider(credentials)
                .overrideConfiguration(o -> o.apiCallTimeout(config.apiCallTimeout()));
        config.endpoint().ifPresent(sqsBuilder::endpointOverride);
        this.sqs = sqsBuilder.build();
        if (config.usesSns()) {
            var snsBuilder = SnsClient.builder()
                    .httpClient(http)
                    .region(region)
                    .credentialsProvider(credentials)
                    .overrideConfiguration(o -> o.apiCallTimeout(config.apiCallTimeout()));
            config.snsEndpoint().ifPresent(snsBuilder::endpointOverride);
            this.sns = snsBuilder.build();
        } else {
            this.sns = null;
        }
    }

    boolean hasSns() {
        return sns != null;
    }

    /** Calls SQS on a virtual thread of its own. */
    <T> CompletableFuture<T> sqs(Function<SqsClient, T> call) {
        return submit(SQS, sqs, call);
    }

    /** Calls SNS on a virtual thread of its own; fails when SNS is off. */
    <T> CompletableFuture<T> sns(Function<SnsClient, T> call) {
        SnsClient client = sns;
        if (client == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("SNS is off (noSns())"));
        }
        return submit(SNS, client, call);
    }

    private <C, T> CompletableFuture<T> submit(String service, C client, Function<C, T> call) {
        Call<T> future = new Call<>();
        if (closed) {
            future.completeExceptionally(closedFailure(service));
            return future;
        }
        try {
            calls.execute(() -> future.run(service, () -> call.apply(client)));
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(closedFailure(service));
        }
        return future;
    }

    private static SdkClientException closedFailure(String service) {
        return SdkClientException.create("the " + service + " client is closed");
    }

    /**
     * A call that got no answer from the service: the connection was refused, reset or timed out, or the call ran out
     * of time. A refusal by the service (an error response) is an answer; an interrupt of our own, or no free
     * connection in the pool (a local limit), is no news about the service.
     */
    static boolean isConnectionFailure(Throwable failure) {
        Throwable e = SqsErrors.unwrap(failure);
        if (!(e instanceof SdkClientException) || e instanceof AbortedException) {
            return false;
        }
        if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
            return true;
        }
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof InterruptedException
                    || POOL_TIMEOUT.equals(cause.getClass().getName())) {
                return false;
            }
            if (cause instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    /** A call on a virtual thread: cancelling it interrupts the thread, which aborts the HTTP request. */
    private final class Call<T> extends CompletableFuture<T> {
        private volatile @Nullable Thread runner;

        void run(String service, Supplier<T> body) {
            runner = Thread.currentThread();
            if (isDone()) {
                return; // cancelled before it began
            }
            long started = System.nanoTime();
            try {
                T result = body.get();
                reachability.answered(service, started);
                complete(result);
            } catch (RuntimeException | Error e) {
                if (!isCancelled() && !closed) {
                    if (isConnectionFailure(e)) {
                        reachability.unreachable(service, e);
                    } else if (e instanceof SdkServiceException) {
                        reachability.answered(service, started); // refused, but it answered
                    }
                }
                completeExceptionally(e);
            } finally {
                runner = null;
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            Thread t = runner;
            if (cancelled && t != null) {
                t.interrupt();
            }
            return cancelled;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // interrupts the calls still running (long polls): the HTTP client's close then finds no request in flight
        calls.shutdownNow();
        try {
            sqs.close();
        } catch (RuntimeException e) {
            log.debug("closing the SQS client failed: {}", e.toString());
        }
        if (sns != null) {
            try {
                sns.close();
            } catch (RuntimeException e) {
                log.debug("closing the SNS client failed: {}", e.toString());
            }
        }
        http.close();
    }
}
