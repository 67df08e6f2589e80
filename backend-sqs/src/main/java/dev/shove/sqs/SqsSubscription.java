package dev.shove.sqs;

import dev.shove.Topic;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.sqs.SqsTopology.SubscriberQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * One consumer of one SQS queue: long polls that keep the engine's window full, a visibility heartbeat for what it
 * holds, and settlement (copies, then coalesced deletes).
 *
 * <p><b>Window.</b> The engine allows {@code window} deliveries handed over and not yet settled. Each of the
 * subscription's pollers ({@code ceil(window / 10)}, at most {@value #MAX_POLLERS}) reserves what it asks SQS for (at
 * most 10) before it asks, and gives back what did not come; so receives in flight never overshoot the window. A
 * poller waits until enough of the window is free ({@link #threshold}), so that receives stay batches.
 *
 * <p><b>Visibility.</b> Messages are received invisible for the lease: the handler timeout plus a margin (or the
 * configured visibility timeout without one). Every third of the lease the heartbeat extends the lease of every held
 * message that has less than half of it left (a handler still running, a message waiting for its key, a sequenced
 * retry waiting in place), so SQS never hands it to another consumer meanwhile. The engine ends a handler at its
 * timeout and settles the message, which ends the lease; SQS's own cap (12 h after the receive) ends it otherwise.
 *
 * <p><b>Settlement.</b> Copies first (a retry to this queue with {@code DelaySeconds}, a dead letter to the DLQ), each
 * accepted by SQS; then the delete, coalesced with others into {@code DeleteMessageBatch}. A failed copy leaves the
 * message and makes it visible again; a failed delete lets the lease run out (at least once). A return makes the
 * message visible at once, except while one of this subscription's receives is in flight: SQS would hand the message
 * to that very receive (counting a receive the next consumer would see), so returns wait for the receives in flight to
 * end. The callback of a return comes at once: the message stays in SQS either way.
 *
 * <p><b>Stop.</b> {@link #pause} stops handing over; what a receive still in flight brings afterwards is made visible
 * again at once. A long poll in flight is not cancelled (SQS would still take messages for it, hidden for a whole
 * lease), so it ends by itself within the receive wait; the transport cancels what remains when it closes.
 *
 * <p>Thread-safe.
 */
final class SqsSubscription implements Subscription {
    private static final Logger log = LoggerFactory.getLogger(SqsSubscription.class);

    static final int MAX_RECEIVE = 10;
    static final int MAX_POLLERS = 10;
    /** What a lease adds to the handler timeout: time for the settlement after the engine took a handler over. */
    static final Duration LEASE_MARGIN = Duration.ofSeconds(2);

    private static final long MIN_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 5_000;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final SqsTransport transport;
    private final AwsClients aws;
    private final SubscriptionRequest request;
    private final Topic<?> topic;
    private final DeliverySink sink;
    private final String queueUrl;
    private final String queueName;
    private final @Nullable SubscriberQueue broadcastQueue;
    private final boolean fifo;
    private final int window;
    private final int pollers;
    private final int threshold;
    private final int leaseSeconds;
    private final long leaseNanos;
    private final int waitSeconds;
    private final Coalescer<SqsDelivery> deletes;

    /** Messages received and not yet deleted or made visible again, by receipt handle: what the lease covers. */
    private final Map<String, SqsDelivery> held = new ConcurrentHashMap<>();

    private final Set<CompletableFuture<ReceiveMessageResponse>> receives = ConcurrentHashMap.newKeySet();
    private final AtomicInteger settling = new AtomicInteger();
    private final Object lock = new Object();
    private int free;
    private int idlePollers;
    private int receiving;
    private int failures;
    private boolean paused;
    private boolean closed;
    private final List<SqsDelivery> pendingReturns = new ArrayList<>();
    private volatile @Nullable ScheduledFuture<?> heartbeat;
    private volatile @Nullable ScheduledFuture<?> toucher;
    private volatile boolean warnedCap;

    private SqsSubscription(
            SqsTransport transport,
            SubscriptionRequest request,
            DeliverySink sink,
            String queueUrl,
            @Nullable SubscriberQueue broadcastQueue) {
        this.transport = transport;
        this.aws = transport.aws();
        this.request = request;
        this.topic = request.topic();
        this.sink = sink;
        this.queueUrl = queueUrl;
        this.queueName = request.queue();
        this.broadcastQueue = broadcastQueue;
        this.fifo = topic.isSequenced();
        this.window = request.window();
        this.pollers = Math.min(MAX_POLLERS, (window + MAX_RECEIVE - 1) / MAX_RECEIVE);
        this.threshold = threshold(window);
        this.leaseSeconds =
                leaseSeconds(request.handlerTimeout(), transport.config().visibilityTimeout());
        this.leaseNanos = TimeUnit.SECONDS.toNanos(leaseSeconds);
        this.waitSeconds = (int) transport.config().receiveWait().toSeconds();
        this.deletes = new Coalescer<>(
                this::deleteBatch, transport.config().settleLinger().toNanos(), transport.scheduler());
        this.free = window;
        this.idlePollers = pollers;
    }

    /**
     * How many free places in the window a poller waits for before it receives: a full receive (10) when the window
     * holds two receives or more, so that receives stay full while other pollers keep the window busy; half the window
     * below that, so that a few messages held long (a blocked handler) never stop a small window from filling. With no
     * receive in flight a poller takes whatever is free, so the window always fills.
     */
    static int threshold(int window) {
        return window > 2 * MAX_RECEIVE ? MAX_RECEIVE : Math.max(1, Math.min(MAX_RECEIVE, window) / 2);
    }

    /**
     * The visibility timeout of receives, in whole seconds: the handler timeout plus {@link #LEASE_MARGIN}, or the
     * configured one without a handler timeout; between 1 s and SQS's 12 h.
     */
    static int leaseSeconds(@Nullable Duration handlerTimeout, Duration withoutTimeout) {
        Duration lease = handlerTimeout == null ? withoutTimeout : handlerTimeout.plus(LEASE_MARGIN);
        long seconds = (lease.toMillis() + 999) / 1000;
        return (int) Math.max(1, Math.min(seconds, SqsConfig.MAX_VISIBILITY.toSeconds()));
    }

    /** Opens a subscription: finds (or, for a broadcast subscriber, creates) its queue and starts polling. */
    static SqsSubscription open(SqsTransport transport, SubscriptionRequest request, DeliverySink sink) {
        Topic<?> topic = request.topic();
        SqsTopology topology = transport.topology();
        Duration timeout = transport.config().apiCallTimeout().plusSeconds(5);
        SubscriberQueue own = null;
        String url;
        if (topic.isBroadcast() && request.source() == SubscriptionRequest.Source.MAIN) {
            topology.reap(topic);
            own = topology.createSubscriberQueue(topic);
            url = own.url();
        } else {
            url = SqsErrors.await(
                    topology.queueUrl(topic, request.queue()),
                    timeout,
                    "finding queue '" + request.queue() + "' of topic '" + topic.name() + "'");
        }
        SqsSubscription subscription = new SqsSubscription(transport, request, sink, url, own);
        transport.register(subscription);
        subscription.start();
        return subscription;
    }

    private void start() {
        long period = Math.max(200, leaseNanos / 3 / 1_000_000);
        heartbeat =
                transport.scheduler().scheduleWithFixedDelay(this::extendLeases, period, period, TimeUnit.MILLISECONDS);
        if (broadcastQueue != null) {
            long touch = Math.max(250, transport.config().broadcastQueueExpiry().toMillis() / 4);
            SubscriberQueue queue = broadcastQueue;
            toucher = transport
                    .scheduler()
                    .scheduleWithFixedDelay(
                            () -> transport.topology().touch(queue).exceptionally(e -> {
                                log.debug("touching broadcast queue '{}' failed: {}", queue.name(), e.toString());
                                return null;
                            }),
                            touch,
                            touch,
                            TimeUnit.MILLISECONDS);
        }
        log.debug(
                "consumer {} reads {} (window {}, {} poller(s), lease {} s)",
                request.consumerId(),
                queueUrl,
                window,
                pollers,
                leaseSeconds);
        poll();
    }

    // ------------------------------------------------------------------ receiving

    /** Starts the receives the window and the idle pollers allow. */
    private void poll() {
        List<Integer> launches = null;
        synchronized (lock) {
            // below the threshold only when nothing is in flight: the window fills up even when its rest is small
            while (idlePollers > 0
                    && !paused
                    && !closed
                    && pendingReturns.isEmpty()
                    && (free >= threshold || free > 0 && receiving == 0)) {
                int n = Math.min(MAX_RECEIVE, free);
                free -= n;
                idlePollers--;
                receiving++;
                if (launches == null) {
                    launches = new ArrayList<>(pollers);
                }
                launches.add(n);
            }
        }
        if (launches != null) {
            for (int n : launches) {
                receive(n);
            }
        }
    }

    private void receive(int n) {
        CompletableFuture<ReceiveMessageResponse> call;
        try {
            call = aws.sqs(c -> c.receiveMessage(ReceiveMessageRequest.builder()
                    .queueUrl(queueUrl)
                    .maxNumberOfMessages(n)
                    .waitTimeSeconds(waitSeconds)
                    .visibilityTimeout(leaseSeconds)
                    .messageAttributeNames("All")
                    .messageSystemAttributeNames(
                            MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
                            MessageSystemAttributeName.SENT_TIMESTAMP,
                            MessageSystemAttributeName.MESSAGE_GROUP_ID)
                    .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(waitSeconds + 30L))
                            .apiCallAttemptTimeout(Duration.ofSeconds(waitSeconds + 10L)))
                    .build()));
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        receives.add(call);
        CompletableFuture<ReceiveMessageResponse> self = call;
        call.whenComplete((response, failure) -> {
            receives.remove(self);
            received(n, response, failure);
        });
    }

    private void received(int asked, @Nullable ReceiveMessageResponse response, @Nullable Throwable failure) {
        long now = System.nanoTime();
        List<SqsDelivery> deliveries = new ArrayList<>(asked);
        if (response != null) {
            for (Message m : response.messages()) {
                deliveries.add(toDelivery(m, now));
            }
        }
        List<SqsDelivery> giveBack = null;
        List<SqsDelivery> returns = null;
        synchronized (lock) {
            receiving--;
            free += asked - deliveries.size();
            for (SqsDelivery d : deliveries) {
                held.put(d.receiptHandle, d);
            }
            if (paused || closed) {
                free += deliveries.size();
                giveBack = deliveries;
            } else if (!deliveries.isEmpty()) {
                // under the lock, so that a pause cannot slip between the check and the hand-over
                sink.deliverAll(deliveries);
            }
            if (receiving == 0 && !pendingReturns.isEmpty()) {
                returns = new ArrayList<>(pendingReturns);
                pendingReturns.clear();
            }
            if (failure == null) {
                failures = 0;
                idlePollers++;
            } else {
                failures++;
            }
        }
        if (giveBack != null && !giveBack.isEmpty()) {
            makeVisible(giveBack);
        }
        if (returns != null) {
            makeVisible(returns);
        }
        if (failure != null) {
            receiveFailed(failure);
        } else {
            poll();
        }
    }

    private void receiveFailed(Throwable failure) {
        int attempt;
        boolean stopping;
        synchronized (lock) {
            attempt = failures;
            stopping = paused || closed;
        }
        if (stopping) {
            synchronized (lock) {
                idlePollers++;
            }
            return;
        }
        transport.backendError("receive");
        long backoff = Math.min(MAX_BACKOFF_MILLIS, MIN_BACKOFF_MILLIS << Math.min(10, attempt - 1));
        if (attempt == 1 || attempt % 20 == 0) {
            log.warn(
                    "consumer {} cannot receive from queue '{}' ({}): {}; trying again in {} ms{}",
                    request.consumerId(),
                    queueName,
                    queueUrl,
                    SqsErrors.describe(failure),
                    backoff,
                    SqsErrors.isMissingQueue(failure)
                            ? " (the queue is gone: declare topic '" + topic.name() + "' again)"
                            : "");
        }
        try {
            transport
                    .scheduler()
                    .schedule(
                            () -> {
                                synchronized (lock) {
                                    idlePollers++;
                                }
                                poll();
                            },
                            backoff,
                            TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            log.debug("not polling again: the transport is closed");
        }
    }

    private SqsDelivery toDelivery(Message m, long now) {
        SqsMessages.Decoded decoded = SqsMessages.decode(m.body(), m.messageAttributes());
        Map<MessageSystemAttributeName, String> system = m.attributes();
        return new SqsDelivery(
                m.receiptHandle(),
                m.messageId(),
                decoded.payload(),
                decoded.headers(),
                queueName,
                parseInt(system.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT), 0),
                parseLong(system.get(MessageSystemAttributeName.SENT_TIMESTAMP), -1),
                system.get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
                now,
                now + leaseNanos);
    }

    private static int parseInt(@Nullable String s, int fallback) {
        try {
            return s == null ? fallback : Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    private static long parseLong(@Nullable String s, long fallback) {
        try {
            return s == null ? fallback : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    // ------------------------------------------------------------------ settlement

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        SqsDelivery d = (SqsDelivery) delivery;
        synchronized (lock) {
            free++;
        }
        poll();
        if (settlement.action() == Settlement.Action.RETURN) {
            boolean later;
            synchronized (lock) {
                later = receiving > 0;
                if (later) {
                    pendingReturns.add(d);
                }
            }
            if (!later) {
                makeVisible(List.of(d));
            }
            // the message stays in SQS whether it becomes visible now, after the receive in flight, or at the lease's
            // end: nothing is left to make durable
            callback.settled(null);
            return;
        }
        settling.incrementAndGet();
        if (settlement.copies().isEmpty()) {
            deletes.add(d, failure -> deleted(d, failure, callback));
            return;
        }
        CompletableFuture<Void> copies = CompletableFuture.completedFuture(null);
        for (Settlement.Copy copy : settlement.copies()) {
            copies = copies.thenCompose(ignored -> transport.sendCopy(topic, d, copy, queueUrl));
        }
        copies.whenComplete((ok, failure) -> {
            if (failure != null) {
                Throwable cause = SqsErrors.unwrap(failure);
                log.warn(
                        "the copy settling message {} from queue '{}' was not taken ({}); the message stays and is"
                                + " delivered again",
                        d.deliveryId(),
                        queueName,
                        SqsErrors.describe(cause));
                makeVisible(List.of(d));
                finished(callback, cause);
            } else {
                deletes.add(d, error -> deleted(d, error, callback));
            }
        });
    }

    private void deleted(SqsDelivery d, @Nullable Throwable failure, SettleCallback callback) {
        held.remove(d.receiptHandle);
        if (failure != null) {
            log.debug("deleting message {} from queue '{}' failed: {}", d.deliveryId(), queueName, failure.toString());
        }
        finished(callback, failure);
    }

    private void finished(SettleCallback callback, @Nullable Throwable failure) {
        try {
            callback.settled(failure);
        } finally {
            if (settling.decrementAndGet() == 0) {
                synchronized (settling) {
                    settling.notifyAll();
                }
            }
        }
    }

    private CompletableFuture<Map<Integer, Throwable>> deleteBatch(List<SqsDelivery> batch) {
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            entries.add(DeleteMessageBatchRequestEntry.builder()
                    .id(Integer.toString(i))
                    .receiptHandle(batch.get(i).receiptHandle)
                    .build());
        }
        return aws.sqs(c -> c.deleteMessageBatch(r -> r.queueUrl(queueUrl).entries(entries)))
                .thenApply(response -> failuresByIndex(response.failed()));
    }

    static Map<Integer, Throwable> failuresByIndex(List<BatchResultErrorEntry> failed) {
        if (failed.isEmpty()) {
            return Map.of();
        }
        Map<Integer, Throwable> out = new HashMap<>();
        for (BatchResultErrorEntry e : failed) {
            out.put(
                    Integer.parseInt(e.id()),
                    new IllegalStateException("SQS refused: " + e.code() + ": " + e.message()));
        }
        return out;
    }

    /** Makes messages visible again at once (a return); they leave the lease. Failures are logged. */
    private void makeVisible(List<SqsDelivery> deliveries) {
        for (int from = 0; from < deliveries.size(); from += MAX_RECEIVE) {
            List<SqsDelivery> chunk = deliveries.subList(from, Math.min(deliveries.size(), from + MAX_RECEIVE));
            changeVisibility(chunk, 0).whenComplete((failures, error) -> {
                for (SqsDelivery d : chunk) {
                    held.remove(d.receiptHandle);
                }
                if (error != null) {
                    log.debug(
                            "making {} message(s) of queue '{}' visible again failed ({}); they return when their"
                                    + " visibility timeout ends",
                            chunk.size(),
                            queueName,
                            SqsErrors.describe(error));
                }
                synchronized (settling) {
                    settling.notifyAll();
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
        try {
            return aws.sqs(c -> c.changeMessageVisibilityBatch(
                            r -> r.queueUrl(queueUrl).entries(entries)))
                    .thenApply(response -> failuresByIndex(response.failed()));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The heartbeat: extends the lease of every held message with less than half of it left. */
    private void extendLeases() {
        try {
            long now = System.nanoTime();
            long cap = SqsConfig.MAX_VISIBILITY.toNanos() - leaseNanos;
            List<SqsDelivery> due = new ArrayList<>();
            for (SqsDelivery d : held.values()) {
                if (d.leaseUntilNanos - now < leaseNanos / 2) {
                    if (now - d.receivedNanos < cap) {
                        due.add(d);
                    } else if (!warnedCap) {
                        warnedCap = true;
                        log.warn(
                                "message {} of queue '{}' has been held for nearly 12 hours, SQS's longest visibility;"
                                        + " it becomes visible to other consumers when its lease ends",
                                d.deliveryId(),
                                queueName);
                    }
                }
            }
            for (int from = 0; from < due.size(); from += MAX_RECEIVE) {
                List<SqsDelivery> chunk = due.subList(from, Math.min(due.size(), from + MAX_RECEIVE));
                long sent = System.nanoTime();
                changeVisibility(chunk, leaseSeconds).whenComplete((failures, error) -> {
                    for (int i = 0; i < chunk.size(); i++) {
                        if (error == null && !failures.containsKey(i)) {
                            chunk.get(i).leaseUntilNanos = sent + leaseNanos;
                        }
                    }
                    if (error != null) {
                        transport.backendError("visibility");
                        log.warn(
                                "extending the visibility of {} message(s) of queue '{}' failed: {}",
                                chunk.size(),
                                queueName,
                                SqsErrors.describe(error));
                    }
                });
            }
            boolean done;
            synchronized (lock) {
                done = closed && receiving == 0 && held.isEmpty();
            }
            if (done) {
                stopTimers();
            }
        } catch (RuntimeException e) {
            log.warn("the visibility heartbeat of queue '{}' failed: {}", queueName, e.toString());
        }
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void pause() {
        synchronized (lock) {
            paused = true;
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            paused = true;
            closed = true;
        }
        deletes.flush();
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        synchronized (settling) {
            while (settling.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    log.warn(
                            "consumer {} closed with {} settlement(s) of queue '{}' unfinished; their messages are"
                                    + " delivered again",
                            request.consumerId(),
                            settling.get(),
                            queueName);
                    break;
                }
                try {
                    settling.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (broadcastQueue != null) {
            ScheduledFuture<?> t = toucher;
            if (t != null) {
                t.cancel(false);
            }
            cancelReceives();
            transport.topology().deleteSubscriberQueue(broadcastQueue);
            held.clear();
        }
        synchronized (lock) {
            if (receiving == 0 && held.isEmpty()) {
                stopTimers();
            }
        }
        log.debug("consumer {} of queue '{}' closed", request.consumerId(), queueName);
    }

    /**
     * The transport closes: cancels the receives still in flight and makes every held message visible again (bounded),
     * so nothing waits out a lease.
     */
    void shutdown(Duration timeout) {
        synchronized (lock) {
            paused = true;
            closed = true;
        }
        cancelReceives();
        List<SqsDelivery> rest;
        synchronized (lock) {
            pendingReturns.clear();
            rest = new ArrayList<>(held.values());
        }
        if (!rest.isEmpty() && broadcastQueue == null) {
            makeVisible(rest);
            long deadline = System.nanoTime() + timeout.toNanos();
            synchronized (settling) {
                while (!held.isEmpty() && System.nanoTime() < deadline) {
                    try {
                        settling.wait(20);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
        stopTimers();
    }

    private void cancelReceives() {
        for (CompletableFuture<ReceiveMessageResponse> r : List.copyOf(receives)) {
            r.cancel(true);
        }
    }

    private void stopTimers() {
        ScheduledFuture<?> h = heartbeat;
        if (h != null) {
            h.cancel(false);
        }
        ScheduledFuture<?> t = toucher;
        if (t != null) {
            t.cancel(false);
        }
        transport.unregister(this);
    }

    String consumerId() {
        return request.consumerId();
    }
}
