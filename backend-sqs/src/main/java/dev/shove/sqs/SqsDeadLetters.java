package dev.shove.sqs;

import dev.shove.ShoveException;
import dev.shove.Topic;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * A topic's dead-letter queue for the dead-letter tools: counted from the queue's attributes, read in passes, emptied
 * with {@code DeleteMessageBatch}.
 *
 * <p>SQS has no way to look at a message without receiving it, so reading is not in place: a pass receives the dead
 * letters (10 at a time) invisible for {@link #LEASE}, extends that lease every third of it while the pass runs (the
 * engine may spend long on a page: a slow replay, a rate limit), deletes what the engine removes, and makes the rest
 * visible again when it ends ({@code ChangeMessageVisibilityBatch} to 0). A pass reads at most as many letters as
 * were visible when it began, and stops early at a long poll that finds none: letters arriving meanwhile (a replayed
 * message that died again) wait for the next pass. On a FIFO queue a pass sees the next letters of a key only after
 * removing those it holds (see {@link Pass#next}).
 *
 * <p>A group names no queue on SQS, so every group sees the topic's one dead-letter queue; a running dead-letter
 * consumer competes with a pass for its letters (what either holds is invisible to the other).
 *
 * <p>Thread-safe; a pass is used by one thread at a time, its heartbeat runs on the transport's timer.
 */
final class SqsDeadLetters implements DeadLetterStore {
    private static final Logger log = LoggerFactory.getLogger(SqsDeadLetters.class);

    /** How long a pass hides what it read; extended every third of it while the pass runs. */
    static final Duration LEASE = Duration.ofSeconds(30);

    private static final int MAX_BATCH = 10;
    /**
     * The first receive of a page waits this long for letters: a long poll asks every SQS server, so its empty answer
     * is the end of the pass (a short poll asks some of them).
     */
    private static final int WAIT_SECONDS = 1;

    private final SqsTransport transport;
    private final AwsClients aws;
    private final Topic<?> topic;
    private final String dlq;
    private final Duration timeout;

    SqsDeadLetters(SqsTransport transport, Topic<?> topic, String dlq) {
        this.transport = transport;
        this.aws = transport.aws();
        this.topic = topic;
        this.dlq = dlq;
        this.timeout = transport.config().apiCallTimeout().plusSeconds(5);
    }

    @Override
    public String queue() {
        return transport.topology().queueName(dlq, topic.isSequenced());
    }

    /**
     * The letters visible and the letters in flight (held by a pass or a dead-letter consumer, which may give them
     * back): a pass that ends does not change the count. SQS's figures are approximate on AWS (eventually consistent
     * within about a minute); exact on an emulator.
     */
    @Override
    public long count() {
        Map<String, String> attributes = transport.queueAttributes(
                topic,
                dlq,
                "counting the dead letters of topic '" + topic.name() + "' in queue '" + queue() + "'",
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE);
        return SqsTransport.count(attributes, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)
                + SqsTransport.count(attributes, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE);
    }

    @Override
    public boolean readsInPlace() {
        return false;
    }

    @Override
    public Scan scan() {
        String url = SqsErrors.await(
                transport.topology().queueUrl(topic, dlq),
                timeout,
                "finding dead-letter queue '" + dlq + "' of topic '" + topic.name() + "'");
        long visible = SqsTransport.count(
                transport.queueAttributes(
                        topic,
                        dlq,
                        "counting the dead letters of topic '" + topic.name() + "' in queue '" + queue() + "'",
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES),
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES);
        Pass pass = new Pass(url, visible);
        transport.register(pass);
        pass.start();
        return pass;
    }

    /** One pass: what it received and has neither removed nor given back, by receipt handle. */
    final class Pass implements Scan {
        private final String url;
        private final long limit;
        private final Map<String, SqsDelivery> held = new ConcurrentHashMap<>();
        private final AtomicBoolean closed = new AtomicBoolean();
        private long read;
        private boolean exhausted;
        private volatile @Nullable ScheduledFuture<?> heartbeat;

        Pass(String url, long limit) {
            this.url = url;
            this.limit = limit;
            this.exhausted = limit <= 0;
        }

        void start() {
            long period = LEASE.toMillis() / 3;
            try {
                heartbeat = transport
                        .scheduler()
                        .scheduleWithFixedDelay(this::extend, period, period, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                close();
                throw new IllegalStateException("the SQS transport is closed", e);
            }
        }

        /**
         * Reads up to {@code max} letters: a long poll first, whose empty answer ends the pass; then short polls to
         * fill the page, whose empty answer only ends the page. On a FIFO queue that is what moves a pass along a
         * key: SQS hands out no more of a message group while the pass holds some of it, so the rest of a key comes
         * in the next page, once the engine removed what it holds (a replay, a purge), or never in this pass.
         */
        @Override
        public List<Delivery> next(int max) {
            List<Delivery> page = new ArrayList<>(Math.min(max, MAX_BATCH));
            while (page.size() < max && !exhausted && !closed.get()) {
                int n = (int) Math.min(MAX_BATCH, Math.min(max - page.size(), limit - read));
                boolean first = page.isEmpty();
                ReceiveMessageResponse response = SqsErrors.await(
                        aws.sqs(c -> c.receiveMessage(r -> r.queueUrl(url)
                                .maxNumberOfMessages(n)
                                .waitTimeSeconds(first ? WAIT_SECONDS : 0)
                                .visibilityTimeout((int) LEASE.toSeconds())
                                .messageAttributeNames("All")
                                .messageSystemAttributeNames(
                                        MessageSystemAttributeName.SENT_TIMESTAMP,
                                        MessageSystemAttributeName.MESSAGE_GROUP_ID))),
                        timeout,
                        "reading dead letters of topic '" + topic.name() + "' from queue '" + queue() + "'");
                if (response.messages().isEmpty()) {
                    exhausted = first;
                    break;
                }
                long now = System.nanoTime();
                for (Message m : response.messages()) {
                    SqsDelivery letter = toLetter(m, now);
                    held.put(letter.receiptHandle, letter);
                    page.add(letter);
                }
                read += response.messages().size();
                exhausted = read >= limit;
            }
            return page;
        }

        private SqsDelivery toLetter(Message m, long now) {
            SqsMessages.Decoded decoded = SqsMessages.decode(m.body(), m.messageAttributes());
            Map<MessageSystemAttributeName, String> system = m.attributes();
            long sent;
            try {
                sent = Long.parseLong(system.getOrDefault(MessageSystemAttributeName.SENT_TIMESTAMP, "-1"));
            } catch (NumberFormatException e) {
                sent = -1;
            }
            // no receive count: SQS counts this pass's receive too, which says nothing about the message's deliveries
            return new SqsDelivery(
                    m.receiptHandle(),
                    m.messageId(),
                    decoded.payload(),
                    decoded.headers(),
                    dlq,
                    0,
                    sent,
                    system.get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
                    now,
                    now + LEASE.toNanos());
        }

        @Override
        public void remove(List<Delivery> letters) {
            List<SqsDelivery> chunk = new ArrayList<>(MAX_BATCH);
            List<CompletableFuture<List<String>>> calls = new ArrayList<>();
            for (Delivery d : letters) {
                chunk.add((SqsDelivery) d);
                if (chunk.size() == MAX_BATCH) {
                    calls.add(delete(chunk));
                    chunk = new ArrayList<>(MAX_BATCH);
                }
            }
            if (!chunk.isEmpty()) {
                calls.add(delete(chunk));
            }
            List<String> refused = new ArrayList<>();
            RuntimeException failure = null;
            for (CompletableFuture<List<String>> call : calls) {
                try {
                    refused.addAll(
                            SqsErrors.await(call, timeout, "removing dead letters of topic '" + topic.name() + "'"));
                } catch (RuntimeException e) {
                    failure = failure != null ? failure : e;
                }
            }
            if (failure != null) {
                throw failure;
            }
            if (!refused.isEmpty()) {
                throw new ShoveException("SQS refused to delete " + refused.size() + " of " + letters.size()
                        + " dead letters from queue '" + queue() + "' (" + refused.getFirst() + "); they stay in"
                        + " the queue and are read again by the next pass");
            }
        }

        /** Deletes up to 10 letters; what SQS refused, one description each. Deleted letters leave {@link #held}. */
        private CompletableFuture<List<String>> delete(List<SqsDelivery> chunk) {
            List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(chunk.size());
            for (int i = 0; i < chunk.size(); i++) {
                entries.add(DeleteMessageBatchRequestEntry.builder()
                        .id(Integer.toString(i))
                        .receiptHandle(chunk.get(i).receiptHandle)
                        .build());
            }
            return aws.sqs(c -> c.deleteMessageBatch(r -> r.queueUrl(url).entries(entries)))
                    .thenApply(response -> {
                        boolean[] failed = new boolean[chunk.size()];
                        List<String> refused = new ArrayList<>();
                        response.failed().forEach(f -> {
                            failed[Integer.parseInt(f.id())] = true;
                            refused.add("message "
                                    + chunk.get(Integer.parseInt(f.id())).deliveryId() + ": " + f.code() + ": "
                                    + f.message());
                        });
                        for (int i = 0; i < chunk.size(); i++) {
                            if (!failed[i]) {
                                held.remove(chunk.get(i).receiptHandle);
                            }
                        }
                        return refused;
                    });
        }

        /** The heartbeat: keeps every held letter out of sight for another lease. */
        private void extend() {
            List<SqsDelivery> letters = List.copyOf(held.values());
            for (int from = 0; from < letters.size() && !closed.get(); from += MAX_BATCH) {
                List<SqsDelivery> chunk = letters.subList(from, Math.min(letters.size(), from + MAX_BATCH));
                changeVisibility(chunk, (int) LEASE.toSeconds()).whenComplete((failures, error) -> {
                    if (error != null || !failures.isEmpty()) {
                        log.warn(
                                "keeping {} dead letter(s) of queue '{}' out of sight failed ({}); other readers may"
                                        + " see them when their lease ends",
                                chunk.size(),
                                queue(),
                                error != null ? SqsErrors.describe(error) : failures.values());
                    }
                });
            }
        }

        private CompletableFuture<Map<Integer, Throwable>> changeVisibility(List<SqsDelivery> chunk, int seconds) {
            List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>(chunk.size());
            for (int i = 0; i < chunk.size(); i++) {
                entries.add(ChangeMessageVisibilityBatchRequestEntry.builder()
                        .id(Integer.toString(i))
                        .receiptHandle(chunk.get(i).receiptHandle)
                        .visibilityTimeout(seconds)
                        .build());
            }
            return aws.sqs(c ->
                            c.changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(entries)))
                    .thenApply(response -> SqsSubscription.failuresByIndex(response.failed()));
        }

        /** Gives back every letter read and not removed (visible at once), and waits until SQS took that. */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            ScheduledFuture<?> h = heartbeat;
            if (h != null) {
                h.cancel(false);
            }
            List<SqsDelivery> letters = List.copyOf(held.values());
            List<CompletableFuture<Map<Integer, Throwable>>> calls = new ArrayList<>();
            for (int from = 0; from < letters.size(); from += MAX_BATCH) {
                calls.add(changeVisibility(letters.subList(from, Math.min(letters.size(), from + MAX_BATCH)), 0));
            }
            String why = null;
            for (CompletableFuture<Map<Integer, Throwable>> call : calls) {
                try {
                    Map<Integer, Throwable> failures =
                            SqsErrors.await(call, timeout, "giving back dead letters of queue '" + queue() + "'");
                    if (why == null && !failures.isEmpty()) {
                        why = failures.values().iterator().next().getMessage();
                    }
                } catch (RuntimeException e) {
                    why = why != null ? why : e.getMessage();
                }
            }
            held.clear();
            transport.unregister(this);
            if (why != null) {
                log.warn(
                        "giving back dead letters read from queue '{}' failed ({}); they are visible again when their"
                                + " lease of {} s ends",
                        queue(),
                        why,
                        LEASE.toSeconds());
            }
        }
    }
}
