package dev.shove.benchmarks;

import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.sqs.Sqs;
import dev.shove.sqs.SqsConfig;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * {@link LatencyBenchmark} on the SQS/SNS emulator (messages published through SNS, as shove does). The raw consumer
 * is the AWS SDK v2's synchronous client over Apache HttpClient 5 (what shove uses): {@code prefetch / 10} virtual
 * threads, each a loop of long-polling {@code ReceiveMessage} of 10 (a wait of {@link SqsConfig#DEFAULT_RECEIVE_WAIT},
 * shove's default), each body decoded and handled, then one {@code DeleteMessageBatch} per receive sent on a virtual
 * thread of its own without waiting.
 */
final class SqsLatency implements LatencyBenchmark.Backend {
    private final Broker<Sqs> broker;
    private final SqsClient sqs;

    SqsLatency(String endpoint) {
        this.broker = Broker.connect(SqsConfig.emulator(endpoint));
        this.sqs = SqsClient.builder()
                .httpClientBuilder(Apache5HttpClient.builder().maxConnections(100))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                .endpointOverride(URI.create(endpoint))
                .build();
    }

    @Override
    public Broker<?> broker() {
        return broker;
    }

    @Override
    public String rawLabel() {
        return "raw AWS SDK ReceiveMessage of 10 (long poll), DeleteMessageBatch per receive";
    }

    @Override
    public LatencyBenchmark.Lane raw(Topic<LatencyBenchmark.Msg> topic, int prefetch, LatencyBenchmark.Sink sink) {
        String url = sqs.getQueueUrl(r -> r.queueName(topic.name())).queueUrl();
        int wait = (int) SqsConfig.DEFAULT_RECEIVE_WAIT.toSeconds();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        for (int p = 0; p < Math.max(1, prefetch / 10); p++) {
            threads.execute(() -> {
                try {
                    while (running.get()) {
                        ReceiveMessageResponse response = sqs.receiveMessage(r -> r.queueUrl(url)
                                .maxNumberOfMessages(10)
                                .waitTimeSeconds(wait)
                                .messageAttributeNames("All"));
                        if (!response.hasMessages() || response.messages().isEmpty()) {
                            continue;
                        }
                        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(10);
                        for (Message m : response.messages()) {
                            sink.handle(m.body().getBytes(StandardCharsets.UTF_8));
                            entries.add(DeleteMessageBatchRequestEntry.builder()
                                    .id(Integer.toString(entries.size()))
                                    .receiptHandle(m.receiptHandle())
                                    .build());
                        }
                        threads.execute(() ->
                                sqs.deleteMessageBatch(r -> r.queueUrl(url).entries(entries)));
                    }
                } catch (RuntimeException e) {
                    if (running.get()) {
                        failure.set(e);
                    }
                }
            });
        }
        return LatencyBenchmark.published(broker, topic, () -> {
            running.set(false);
            // a poll in flight lasts up to its wait: interrupt it rather than wait
            threads.shutdownNow();
            threads.awaitTermination(5, TimeUnit.SECONDS);
            if (failure.get() != null) {
                throw new IllegalStateException(
                        "the raw consumer of queue '" + topic.name() + "' failed: " + failure.get(), failure.get());
            }
        });
    }

    @Override
    public void delete(Topic<LatencyBenchmark.Msg> topic) {
        List<String> queues = new ArrayList<>();
        queues.add(topic.name());
        topic.dlq().ifPresent(queues::add);
        LatencyBenchmark.deleteAll("SQS queues", queues, queue -> {
            String url = sqs.getQueueUrl(r -> r.queueName(queue)).queueUrl();
            sqs.deleteQueue(r -> r.queueUrl(url));
        });
    }

    @Override
    public void close() {
        try {
            sqs.close();
        } finally {
            broker.close();
        }
    }
}
