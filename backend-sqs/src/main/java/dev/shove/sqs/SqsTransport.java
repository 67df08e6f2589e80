package dev.shove.sqs;

import dev.shove.BrokerUnavailableException;
import dev.shove.PublishException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.Capabilities;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.sns.model.PublishBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/**
 * The SQS/SNS transport: the SQS and SNS clients ({@link AwsClients}: each call a future on a virtual thread), the
 * topology, the subscriptions and the dead-letter stores. It translates and decides nothing: where a copy goes is the
 * engine's {@link Settlement}; this class only knows which queue that is and how SQS takes it.
 *
 * <p>Publishing goes to the topic's SNS topic (so that other queues subscribed to it get the message too), or
 * straight to its queue with {@link SqsConfig.Builder#noSns()}. A retry copy goes back to the queue its original came
 * from with {@code DelaySeconds} (at most 15 minutes; the engine holds a longer delay again when the copy arrives
 * early); a dead letter goes to the dead-letter queue at once.
 *
 * <p>HTTP is stateless: when SQS or the emulator is away, calls fail and are tried again (consumers back off; publishes
 * fail with a retriable {@link PublishException}); nothing needs to reconnect. The calls tell {@link SqsHealth} what
 * the connection's health is.
 */
final class SqsTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(SqsTransport.class);

    /** How long closing waits for consumers to make what they held visible again. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private static final Pattern DEDUP_ID = Pattern.compile("[\\x21-\\x7e]{1,128}");

    private final SqsConfig config;
    private final TransportContext context;
    private final String endpointDescription;
    private final Capabilities capabilities;
    private final AwsClients aws;
    private final ScheduledExecutorService scheduler;
    private final SqsTopology topology;
    private final Set<SqsSubscription> subscriptions = ConcurrentHashMap.newKeySet();
    private final Set<SqsDeadLetters.Pass> passes = ConcurrentHashMap.newKeySet();
    private final long maxCopyDelaySeconds;
    private volatile boolean closed;

    SqsTransport(SqsConfig config, TransportContext context) {
        this.config = config;
        this.context = context;
        Region region = region(config);
        this.endpointDescription = config.endpoint().map(Object::toString).orElse("AWS " + region.id());
        this.capabilities = capabilities(config);
        this.maxCopyDelaySeconds = config.maxCopyDelay().toSeconds();
        String client = context.clientName();
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(
                1,
                Thread.ofPlatform().daemon().name("shove-sqs-timer-" + client).factory());
        timer.setRemoveOnCancelPolicy(true);
        this.scheduler = timer;
        AwsCredentialsProvider credentials = config.credentialsProvider()
                .orElseGet(() -> DefaultCredentialsProvider.builder().build());
        this.aws = new AwsClients(config, region, credentials, client, new SqsHealth(context, endpointDescription));
        this.topology = new SqsTopology(config, aws);
        try {
            ping(config.apiCallTimeout());
        } catch (RuntimeException e) {
            closeClients();
            throw new BrokerUnavailableException(
                    "cannot reach SQS at " + endpointDescription + " (" + e.getMessage()
                            + "); is it running and are the credentials right? Locally: scripts/brokers.sh up sqs",
                    e);
        }
        log.info("connected '{}' to SQS{} at {}", client, aws.hasSns() ? " and SNS" : "", endpointDescription);
    }

    private static Region region(SqsConfig config) {
        if (config.region().isPresent()) {
            return Region.of(config.region().get());
        }
        try {
            return new DefaultAwsRegionProviderChain().getRegion();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "no AWS region: set one with SqsConfig.of(region) or SqsConfig.builder().region(...), or in"
                            + " AWS_REGION or the profile",
                    e);
        }
    }

    static Capabilities capabilities(SqsConfig config) {
        Capabilities.Builder b = Capabilities.builder()
                .exactDelays(config.maxCopyDelay())
                .durableRetries()
                .deliveryCount()
                .redeliveryFlag()
                .timestamps()
                .competingConsumers()
                .nativeBatches();
        return (config.usesSns() ? b.broadcast() : b).build();
    }

    @Override
    public String name() {
        return "sqs";
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    SqsConfig config() {
        return config;
    }

    AwsClients aws() {
        return aws;
    }

    SqsTopology topology() {
        return topology;
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    void backendError(String kind) {
        context.backendError(name(), kind);
    }

    void register(SqsDeadLetters.Pass pass) {
        passes.add(pass);
    }

    void unregister(SqsDeadLetters.Pass pass) {
        passes.remove(pass);
    }

    void register(SqsSubscription subscription) {
        subscriptions.add(subscription);
    }

    void unregister(SqsSubscription subscription) {
        subscriptions.remove(subscription);
    }

    @Override
    public void declare(Topic<?> topic) {
        checkOpen();
        topology.declare(topic);
    }

    // ------------------------------------------------------------------ publishing

    @Override
    public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
        if (closed) {
            return CompletableFuture.failedFuture(closedFailure(topic));
        }
        SqsMessages.Encoded encoded;
        try {
            encoded = SqsMessages.encode(
                    message.payload(), message.headers(), "a message of topic '" + topic.name() + "'");
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        String what = "a message of topic '" + topic.name() + "'";
        CompletableFuture<?> sent;
        if (aws.hasSns()) {
            sent = topology.topicArn(topic)
                    .thenCompose(arn -> aws.sns(c -> c.publish(r -> {
                        r.topicArn(arn).message(encoded.body()).messageAttributes(encoded.forSns());
                        if (topic.isSequenced()) {
                            r.messageGroupId(groupOf(message)).messageDeduplicationId(dedupId(message.headers()));
                        }
                    })));
        } else {
            sent = topology.queueUrl(topic, topic.name())
                    .thenCompose(url -> aws.sqs(c -> c.sendMessage(r -> {
                        r.queueUrl(url).messageBody(encoded.body()).messageAttributes(encoded.forSqs());
                        if (topic.isSequenced()) {
                            r.messageGroupId(groupOf(message)).messageDeduplicationId(dedupId(message.headers()));
                        }
                    })));
        }
        return sent.handle((ok, failure) -> {
            if (failure != null) {
                throw new CompletionException(publishFailure(topic, failure, what));
            }
            return null;
        });
    }

    /**
     * Publishes in batch calls of up to 10 messages and 256 KiB ({@code PublishBatch}, or {@code SendMessageBatch}
     * without SNS); each message learns its own result, so a refusal names exactly the messages refused.
     */
    @Override
    public List<CompletableFuture<Void>> publishAll(Topic<?> topic, List<OutboundMessage> messages) {
        List<CompletableFuture<Void>> results = new ArrayList<>(messages.size());
        if (closed) {
            for (int i = 0; i < messages.size(); i++) {
                results.add(CompletableFuture.failedFuture(closedFailure(topic)));
            }
            return results;
        }
        List<Integer> chunk = new ArrayList<>(10);
        List<SqsMessages.Encoded> encodedChunk = new ArrayList<>(10);
        int chunkBytes = 0;
        for (int i = 0; i < messages.size(); i++) {
            results.add(new CompletableFuture<>());
        }
        for (int i = 0; i < messages.size(); i++) {
            SqsMessages.Encoded encoded;
            try {
                encoded = SqsMessages.encode(
                        messages.get(i).payload(),
                        messages.get(i).headers(),
                        "message " + i + " of a batch for topic '" + topic.name() + "'");
            } catch (RuntimeException e) {
                results.get(i).completeExceptionally(e);
                continue;
            }
            if (chunk.size() == 10 || chunkBytes + encoded.size() > SqsMessages.MAX_MESSAGE_BYTES) {
                sendChunk(topic, messages, chunk, encodedChunk, results);
                chunk = new ArrayList<>(10);
                encodedChunk = new ArrayList<>(10);
                chunkBytes = 0;
            }
            chunk.add(i);
            encodedChunk.add(encoded);
            chunkBytes += encoded.size();
        }
        if (!chunk.isEmpty()) {
            sendChunk(topic, messages, chunk, encodedChunk, results);
        }
        return results;
    }

    private void sendChunk(
            Topic<?> topic,
            List<OutboundMessage> messages,
            List<Integer> indices,
            List<SqsMessages.Encoded> encoded,
            List<CompletableFuture<Void>> results) {
        String what = "a batch of " + indices.size() + " message(s) for topic '" + topic.name() + "'";
        CompletableFuture<List<BatchFailure>> call;
        if (aws.hasSns()) {
            List<PublishBatchRequestEntry> entries = new ArrayList<>(indices.size());
            for (int j = 0; j < indices.size(); j++) {
                OutboundMessage m = messages.get(indices.get(j));
                PublishBatchRequestEntry.Builder e = PublishBatchRequestEntry.builder()
                        .id(Integer.toString(j))
                        .message(encoded.get(j).body())
                        .messageAttributes(encoded.get(j).forSns());
                if (topic.isSequenced()) {
                    e.messageGroupId(groupOf(m)).messageDeduplicationId(dedupId(m.headers()));
                }
                entries.add(e.build());
            }
            call = topology.topicArn(topic)
                    .thenCompose(arn ->
                            aws.sns(c -> c.publishBatch(r -> r.topicArn(arn).publishBatchRequestEntries(entries))))
                    .thenApply(response -> response.failed().stream()
                            .map(f ->
                                    new BatchFailure(Integer.parseInt(f.id()), f.code(), f.message(), f.senderFault()))
                            .toList());
        } else {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>(indices.size());
            for (int j = 0; j < indices.size(); j++) {
                OutboundMessage m = messages.get(indices.get(j));
                SendMessageBatchRequestEntry.Builder e = SendMessageBatchRequestEntry.builder()
                        .id(Integer.toString(j))
                        .messageBody(encoded.get(j).body())
                        .messageAttributes(encoded.get(j).forSqs());
                if (topic.isSequenced()) {
                    e.messageGroupId(groupOf(m)).messageDeduplicationId(dedupId(m.headers()));
                }
                entries.add(e.build());
            }
            call = topology.queueUrl(topic, topic.name())
                    .thenCompose(url ->
                            aws.sqs(c -> c.sendMessageBatch(r -> r.queueUrl(url).entries(entries))))
                    .thenApply(response -> response.failed().stream()
                            .map((BatchResultErrorEntry f) ->
                                    new BatchFailure(Integer.parseInt(f.id()), f.code(), f.message(), f.senderFault()))
                            .toList());
        }
        call.whenComplete((failed, failure) -> {
            if (failure != null) {
                RuntimeException e = publishFailure(topic, failure, what);
                for (int index : indices) {
                    results.get(index).completeExceptionally(e);
                }
                return;
            }
            boolean[] refused = new boolean[indices.size()];
            for (BatchFailure f : failed) {
                refused[f.entry()] = true;
                int index = indices.get(f.entry());
                results.get(index)
                        .completeExceptionally(new PublishException(
                                "SQS/SNS refused message " + index + " of a batch for topic '" + topic.name() + "': "
                                        + f.code() + ": " + f.message(),
                                null,
                                !f.senderFault()));
            }
            for (int j = 0; j < indices.size(); j++) {
                if (!refused[j]) {
                    results.get(indices.get(j)).complete(null);
                }
            }
        });
    }

    private record BatchFailure(
            int entry, String code, @Nullable String message, boolean senderFault) {}

    private RuntimeException publishFailure(Topic<?> topic, Throwable failure, String what) {
        Throwable cause = SqsErrors.unwrap(failure);
        if (SqsErrors.isMissingQueue(cause) || SqsErrors.isMissingTopic(cause)) {
            topology.forget(topic);
            return new TopologyException(
                    "cannot publish to topic '" + topic.name() + "': its " + (aws.hasSns() ? "SNS topic" : "queue")
                            + " does not exist (" + SqsErrors.describe(cause)
                            + "). Declare the topic first with broker.topology().declare(topic)",
                    cause);
        }
        if (closed) {
            return closedFailure(topic);
        }
        return SqsErrors.publishFailure(cause, what);
    }

    private static PublishException closedFailure(Topic<?> topic) {
        return new PublishException(
                "cannot publish to topic '" + topic.name() + "': the SQS transport is closed", null, false);
    }

    /** The FIFO message group of a new message: its key. */
    private static String groupOf(OutboundMessage message) {
        String key = message.key() != null ? message.key() : message.headers().get(ShoveHeaders.SEQUENCE_KEY);
        return key != null && !key.isEmpty() ? groupId(key) : "shove";
    }

    /**
     * The FIFO {@code MessageGroupId} of a sequencing key: the key itself when SQS takes it (1 to 128 of its
     * alphanumeric and punctuation characters), else {@code h-} and the Base64url SHA-256 of its UTF-8, so that any
     * Unicode key keeps one group of its own (the key itself travels in {@code shove-sequence-key}).
     */
    static String groupId(String key) {
        if (DEDUP_ID.matcher(key).matches() && !key.startsWith("h-")) {
            return key;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "h-" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JVM has SHA-256", e);
        }
    }

    /**
     * The FIFO deduplication id of a new message: its shove message id, unique per publish, so that two messages with
     * the same payload are never taken for one (content-based deduplication would drop the second). A replayed dead
     * letter keeps its message id but is a publish of its own: its replay count makes its id new, or SQS would drop it
     * as a duplicate of the original within the five minutes it remembers ids.
     */
    private static String dedupId(Map<String, String> headers) {
        String id = headers.get(ShoveHeaders.MESSAGE_ID);
        String replays = headers.get(ShoveHeaders.REPLAY_COUNT);
        if (id != null && replays != null) {
            id = id + "-replay-" + replays;
        }
        return id != null && DEDUP_ID.matcher(id).matches()
                ? id
                : UUID.randomUUID().toString();
    }

    /**
     * Sends the copy a settlement asks for: a retry to {@code queueUrl} (the queue the delivery came from) delayed by
     * up to {@link SqsConfig#maxCopyDelay()}, a dead letter to the topic's dead-letter queue, a reply to its topic.
     */
    CompletableFuture<Void> sendCopy(Topic<?> topic, SqsDelivery delivery, Settlement.Copy copy, String queueUrl) {
        String id = delivery.headers().getOrDefault(ShoveHeaders.MESSAGE_ID, delivery.deliveryId());
        try {
            return switch (copy) {
                case Settlement.Copy.ToHold hold -> {
                    if (topic.isSequenced()) {
                        throw new IllegalStateException("topic '" + topic.name()
                                + "' is sequenced: its FIFO queue cannot delay a copy (retries wait in place)");
                    }
                    SqsMessages.Encoded e =
                            SqsMessages.encode(hold.payload(), hold.headers(), "a retry copy of message " + id);
                    int delay =
                            (int) Math.min(maxCopyDelaySeconds, (hold.delay().toMillis() + 999) / 1000);
                    yield send(SendMessageRequest.builder()
                            .queueUrl(queueUrl)
                            .messageBody(e.body())
                            .messageAttributes(e.forSqs())
                            .delaySeconds(delay)
                            .build());
                }
                case Settlement.Copy.ToDeadLetter dead -> {
                    SqsMessages.Encoded e =
                            SqsMessages.encode(dead.payload(), dead.headers(), "a dead letter of message " + id);
                    yield topology.queueUrl(topic, dead.queue()).thenCompose(url -> {
                        SendMessageRequest.Builder r = SendMessageRequest.builder()
                                .queueUrl(url)
                                .messageBody(e.body())
                                .messageAttributes(e.forSqs());
                        if (topic.isSequenced()) {
                            // one id per death: a settlement tried again is deduplicated, a message that dies again
                            // (after a redrive) is not
                            String deaths = dead.headers().getOrDefault(ShoveHeaders.DEATH_COUNT, "1");
                            r.messageGroupId(groupOf(delivery))
                                    .messageDeduplicationId(
                                            dedupId(Map.of(ShoveHeaders.MESSAGE_ID, id + "-dead-" + deaths)));
                        }
                        return send(r.build());
                    });
                }
                case Settlement.Copy.ToTopic reply -> publish(reply.topic(), reply.message());
            };
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Void> send(SendMessageRequest request) {
        return aws.sqs(c -> c.sendMessage(request)).thenApply(r -> null);
    }

    private static String groupOf(SqsDelivery delivery) {
        if (delivery.groupId != null) {
            return delivery.groupId;
        }
        String key = delivery.headers().get(ShoveHeaders.SEQUENCE_KEY);
        return key != null && !key.isEmpty() ? groupId(key) : "shove";
    }

    // ------------------------------------------------------------------ consuming

    @Override
    public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
        checkOpen();
        return SqsSubscription.open(this, request, sink);
    }

    /**
     * The depth of the topic's queue: ready is {@code ApproximateNumberOfMessages}, in flight {@code
     * ApproximateNumberOfMessagesNotVisible}, and held {@code ApproximateNumberOfMessagesDelayed}: the retry copies
     * waiting out their {@code DelaySeconds} in the same queue (a sequenced topic's retries wait in place, in flight).
     */
    @Override
    public QueueStats stats(Topic<?> topic) {
        checkOpen();
        if (topic.isBroadcast()) {
            return new QueueStats(0, 0); // each subscriber has a queue of its own; nothing waits for a group
        }
        Map<String, String> attributes = queueAttributes(
                topic,
                topic.name(),
                "reading the depth of topic '" + topic.name() + "'",
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED);
        return new QueueStats(
                count(attributes, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES),
                count(attributes, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE),
                count(attributes, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED));
    }

    /**
     * The dead-letter queue of a topic: one queue, whatever the group (a group names no queue on SQS: its consumers
     * compete for the topic's queues, the dead-letter consumer for its dead-letter queue).
     */
    @Override
    public DeadLetterStore deadLetters(Topic<?> topic, String group) {
        checkOpen();
        String dlq = topic.dlq().orElseThrow(); // the engine refuses a topic without one before asking
        return new SqsDeadLetters(this, topic, dlq);
    }

    /** Attributes of one of a topic's queues, read now (blocking, bounded by the API call timeout). */
    Map<String, String> queueAttributes(Topic<?> topic, String queue, String what, QueueAttributeName... names) {
        Duration timeout = config.apiCallTimeout().plusSeconds(5);
        String url = SqsErrors.await(
                topology.queueUrl(topic, queue),
                timeout,
                "finding queue '" + queue + "' of topic '" + topic.name() + "'");
        return SqsErrors.await(
                        aws.sqs(c -> c.getQueueAttributes(r -> r.queueUrl(url).attributeNames(names))), timeout, what)
                .attributesAsStrings();
    }

    static long count(Map<String, String> attributes, QueueAttributeName name) {
        return count(attributes.get(name.toString()));
    }

    private static long count(@Nullable String value) {
        try {
            return value == null ? 0 : Math.max(0, Long.parseLong(value));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public void ping(Duration timeout) {
        checkOpen();
        try {
            SqsErrors.await(
                    aws.sqs(c -> c.listQueues(
                            r -> r.queueNamePrefix(config.namePrefix().isEmpty() ? "shove" : config.namePrefix())
                                    .maxResults(1))),
                    timeout,
                    "pinging SQS at " + endpointDescription);
        } catch (TopologyException e) {
            // a refusal (credentials, permissions) is no round trip either
            throw new BrokerUnavailableException(e.getMessage(), e.getCause());
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the SQS transport at " + endpointDescription + " is closed");
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (SqsSubscription s : List.copyOf(subscriptions)) {
            try {
                s.shutdown(CLOSE_TIMEOUT);
            } catch (RuntimeException e) {
                log.warn("closing consumer {} failed: {}", s.consumerId(), e.toString());
            }
        }
        for (SqsDeadLetters.Pass p : List.copyOf(passes)) {
            p.close(); // a pass left open gives back what it holds, rather than hiding it for its lease
        }
        closeClients();
        log.info("closed '{}' to SQS at {}", context.clientName(), endpointDescription);
    }

    private void closeClients() {
        scheduler.shutdownNow();
        aws.close();
    }
}
