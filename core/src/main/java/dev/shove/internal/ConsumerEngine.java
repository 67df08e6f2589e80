package dev.shove.internal;

import dev.shove.BatchOptions;
import dev.shove.Position;
import dev.shove.RegistrationHealth;
import dev.shove.ShoveHeaders;
import dev.shove.internal.DeliveryPolicy.Ack;
import dev.shove.internal.DeliveryPolicy.DeadLetter;
import dev.shove.internal.DeliveryPolicy.Decision;
import dev.shove.internal.DeliveryPolicy.Discard;
import dev.shove.internal.DeliveryPolicy.Hold;
import dev.shove.internal.DeliveryPolicy.WaitInPlace;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.WireHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer: one subscription, a fixed set of worker virtual threads, and the bookkeeping between them.
 *
 * <p><b>Flow.</b> The transport's thread calls {@link #deliver}; the job goes to the ready queue (for a sequenced
 * topic, only if its key is free; otherwise it queues in its key's lane). Workers take jobs and hand each to the
 * {@link Flow}, which runs it (checks, decode, handler under the watchdog) and returns a {@link Verdict}; the worker
 * then carries the verdict out here ({@link #apply}): a settlement submitted to the transport, or, for a sequenced
 * topic, a wait in place that keeps the key's lane. The engine is the only one that acts on the transport. When a
 * key's job settles, the same worker runs the key's next job without a queue hop.
 *
 * <p><b>Accounting.</b> {@code unsettled} counts deliveries received and not yet submitted for settlement (the
 * transport's window); {@code unconfirmed} counts submissions whose callback has not come back; {@code running}
 * counts handlers in progress. Every job leaves through {@link Job#claimSettlement()} exactly once: by its worker,
 * by the watchdog (deadline), by the drain (shutdown) or by a withdrawal.
 *
 * <p><b>Stop.</b> Pause intake, return what has not started, wait for handlers until the deadline, take over (and
 * return) the ones still running, wait for confirmations, close the subscription.
 */
final class ConsumerEngine implements DeliverySink, Watchdog.Owner {
    private static final Logger log = LoggerFactory.getLogger(ConsumerEngine.class);

    /** Workers (stuck ones included) a consumer may have, as a multiple of its worker count. */
    static final int STUCK_FACTOR = 4;

    /** How long a worker gathering a batch waits for more at a time before it looks at the state again. */
    private static final long GATHER_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int STOPPING = 2;
    private static final int STOPPED = 3;

    final String consumerId;
    final EngineContext context;
    private final SubscriptionRequest request;
    private final Flow flow;
    private final int workerCount;
    private final long timeoutNanos;
    private final @Nullable BatchOptions batch;
    private final Metrics.ConsumerMeters meters;
    private final Valve valve;
    private final boolean nativeBatches;
    private final Object batchLock = new Object();

    private final WorkQueue<Job> ready = new WorkQueue<>();
    private final @Nullable Lanes lanes;
    private final Set<Job> waiting = ConcurrentHashMap.newKeySet();
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private final AtomicInteger unsettled = new AtomicInteger();
    private final AtomicInteger unconfirmed = new AtomicInteger();
    /** Handler calls in progress; also the registration's in-flight gauge's share of this consumer. */
    private final AtomicInteger running;
    /** This consumer's workers' slots, as the watchdog scans them (skipped while nothing runs). */
    private final Watchdog.Group watched;

    private final AtomicInteger workerSeq = new AtomicInteger();
    /** Replacements not started because too many stuck workers are alive; started as those return. */
    private final AtomicInteger owedWorkers = new AtomicInteger();

    private final Object idleMonitor = new Object();

    private volatile int state = NEW;
    /** When the transport last handed over a delivery (epoch ms), or 0: for health reports. */
    private volatile long lastReceivedMillis;

    private volatile @Nullable Subscription subscription;

    /** Where this main consumer offers the dead letters it stored, for the registration's handleDead; or null. */
    private @Nullable DeadLetterFeed deadLetterFeed;

    /** The feed this dead-letter consumer reads in place of a subscription to the queue; or null. */
    private @Nullable DeadLetterFeed source;

    private volatile @Nullable Throwable failure;

    ConsumerEngine(
            String consumerId,
            EngineContext context,
            SubscriptionRequest request,
            Flow flow,
            int workerCount,
            long timeoutNanos,
            boolean sequenced,
            @Nullable BatchOptions batch,
            Metrics.ConsumerMeters meters,
            Valve valve) {
        this.valve = valve;
        this.consumerId = consumerId;
        this.context = context;
        this.request = request;
        this.flow = flow;
        this.workerCount = workerCount;
        this.timeoutNanos = timeoutNanos;
        this.lanes = sequenced ? new Lanes() : null;
        this.batch = batch;
        this.meters = meters;
        this.nativeBatches = context.services().capabilities().nativeBatches();
        this.running = meters.newRunningCount();
        this.watched = Watchdog.group(running);
    }

    /** Before {@link #start}: offer each dead letter this consumer stores, once confirmed, to {@code feed}. */
    void feedDeadLettersTo(DeadLetterFeed feed) {
        this.deadLetterFeed = feed;
    }

    /** Before {@link #start}: consume {@code feed} instead of subscribing to the queue (a dead-letter consumer). */
    void consumeFrom(DeadLetterFeed feed) {
        this.source = feed;
    }

    /** Subscribes and starts the workers. Throws what the transport throws (a missing queue, an unreachable broker). */
    void start() {
        state = RUNNING;
        context.services().watchdog().watch(watched);
        try {
            DeadLetterFeed feed = source;
            subscription = feed != null
                    ? context.services().transport().subscribeLocal(request, this, feed::open)
                    : context.services().transport().subscribe(request, this);
        } catch (RuntimeException e) {
            state = STOPPED;
            context.services().watchdog().remove(watched);
            meters.stoppedCounting(running);
            throw e;
        }
        for (int i = 0; i < workerCount; i++) {
            spawnWorker();
        }
    }

    // ---------------------------------------------------------------- intake (transport threads)

    @Override
    public void deliver(Delivery delivery) {
        lastReceivedMillis = System.currentTimeMillis();
        Job job = intake(delivery);
        if (job == null) {
            return;
        }
        Worker settling = Worker.takingNextOf(this);
        if (settling == null) {
            ready.add(job);
        } else if (settling.inlineNext != null) {
            ready.addQuietly(job); // a second delivery in one settlement: no wake, the settling worker comes back
        } else {
            // The settling worker runs the oldest job next, as it would take it from the queue: this one when the
            // queue is empty (no lock at all), else the head, in one lock with the append. No wake, no park.
            settling.inlineNext = ready.looksEmpty() ? job : ready.addAndTakeOldest(job);
        }
    }

    /**
     * A poll's deliveries go to the ready queue together: one lock and at most one wake for the lot, instead of one
     * per delivery (the hand-off was the Kafka consumer's bottleneck).
     */
    @Override
    public void deliverAll(List<? extends Delivery> deliveries) {
        lastReceivedMillis = System.currentTimeMillis();
        List<Job> admitted = new ArrayList<>(deliveries.size());
        for (Delivery delivery : deliveries) {
            Job job = intake(delivery);
            if (job != null) {
                admitted.add(job);
            }
        }
        ready.addAll(admitted);
        if (state != RUNNING && !admitted.isEmpty()) {
            // A stop began while the jobs were being built, perhaps after its last sweep of the ready queue.
            returnUnstarted();
        }
    }

    /**
     * Takes a delivery in: counts it and returns its job when the job may go to the ready queue now; null when it was
     * returned (the consumer is stopping) or queued behind its key's lane.
     */
    private @Nullable Job intake(Delivery delivery) {
        Job job = new Job(this, delivery, lanes == null ? null : sequenceKey(delivery));
        if (batch != null) {
            job.arrivedNanos = System.nanoTime();
        }
        unsettled.incrementAndGet();
        if (state != RUNNING) {
            // The transport should have stopped; return the message rather than let it sit unsettled.
            if (job.claimSettlement()) {
                submit(job, Settlement.RETURN, true);
            }
            return null;
        }
        return lanes == null || lanes.admit(job) ? job : null;
    }

    @Override
    public List<Delivery> withdraw(Predicate<? super Delivery> which) {
        Predicate<Job> matches = j -> which.test(j.delivery);
        List<Job> withdrawn = ready.removeIf(j -> matches.test(j) && j.withdraw());
        for (Job j : waiting) {
            if (matches.test(j) && j.withdraw()) {
                waiting.remove(j);
                withdrawn.add(j);
            }
        }
        if (lanes != null) {
            List<Job> promoted = new ArrayList<>();
            withdrawn.addAll(lanes.withdraw(matches, promoted));
            ready.addAll(promoted);
        }
        unsettled.addAndGet(-withdrawn.size());
        signalIdle();
        return withdrawn.stream().map(j -> j.delivery).toList();
    }

    @Override
    public void failed(Throwable cause) {
        if (failure != null || state >= STOPPING) {
            return;
        }
        failure = cause;
        log.error(
                "consumer {} of queue '{}' failed and stops: {}",
                consumerId,
                request.queue(),
                cause.getMessage(),
                cause);
        Thread.ofVirtual()
                .name("shove-stop-" + consumerId)
                .start(() -> stop(System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
    }

    // ---------------------------------------------------------------- workers

    private void spawnWorker() {
        Worker worker = new Worker(
                consumerId + "-w" + workerSeq.getAndIncrement(),
                this,
                timeoutNanos,
                watched,
                this::signalIdle,
                this::workerLoop);
        workers.add(worker);
        watched.add(worker.slot);
        worker.start();
    }

    void workerLoop(Worker worker) {
        try {
            while (!worker.retired) {
                boolean probe;
                List<Job> jobs = null;
                Job one = null;
                try {
                    probe = valve.awaitOpen();
                    if (batch != null) {
                        jobs = collectBatch(batch);
                    } else {
                        one = ready.take();
                    }
                } catch (InterruptedException e) {
                    if (state >= STOPPING) {
                        break;
                    }
                    continue;
                }
                if (!probe && !valve.isFlowing()) {
                    // paused, or the breaker opened, while this worker waited for work: the jobs wait too
                    if (jobs != null) {
                        ready.addAll(jobs);
                    } else {
                        ready.add(one);
                    }
                    continue;
                }
                if (jobs != null) {
                    runBatch(worker, jobs);
                } else {
                    Job next = one;
                    while (next != null && !worker.retired) {
                        next = runOne(worker, next);
                        if (next != null && !valve.isFlowing()) {
                            ready.add(next); // the next message waits for the valve like any other
                            next = null;
                        }
                    }
                    if (next != null) {
                        handBack(next); // this worker retired with a job it was to run next
                    }
                }
                if (probe) {
                    valve.returnProbe(); // unless the probe's handler run reported, which closed or reopened it
                }
            }
        } catch (Throwable t) {
            context.crashed(t);
            log.error("shove internal error in consumer {}; the worker stops and is replaced", consumerId, t);
            worker.retired = true;
            replaceWorker();
        } finally {
            workers.remove(worker);
            watched.remove(worker.slot);
            if (state == RUNNING && owedWorkers.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                spawnWorker(); // a stuck handler returned: start the replacement it was owed
            }
        }
    }

    /**
     * Gathers one batch: the first job waiting, then what else waits, then (unless the transport hands over native
     * batches) more arrivals until the batch is full or {@code maxWait} after the first job's arrival. One worker
     * gathers at a time, so batches fill instead of splitting arrivals between workers.
     */
    private List<Job> collectBatch(BatchOptions options) throws InterruptedException {
        synchronized (batchLock) {
            int max = options.maxBatchSize();
            List<Job> jobs = new ArrayList<>(Math.min(max, 64));
            Job first = ready.take();
            jobs.add(first);
            ready.drainTo(jobs, max - jobs.size());
            if (!nativeBatches) {
                long deadline = first.arrivedNanos + options.maxWait().toNanos();
                while (jobs.size() < max && state == RUNNING) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    Job next;
                    try {
                        // In slices, so that a stop is noticed at once rather than after maxWait.
                        next = ready.poll(Math.min(left, GATHER_SLICE_NANOS), TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        // Only stop interrupts a gathering worker (it is retired by then): hand back what was
                        // gathered, so that those jobs are returned to the broker rather than forgotten.
                        break;
                    }
                    if (next != null) {
                        jobs.add(next);
                        ready.drainTo(jobs, max - jobs.size());
                    }
                }
            }
            return jobs;
        }
    }

    private void runBatch(Worker worker, List<Job> jobs) {
        List<Job> started = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            if (!job.start()) {
                continue; // withdrawn
            }
            if (state != RUNNING) {
                returnToBroker(job);
            } else {
                started.add(job);
            }
        }
        if (started.isEmpty()) {
            return;
        }
        List<Verdict> verdicts;
        try {
            verdicts = flow.runBatch(worker, started);
        } catch (Throwable t) {
            verdicts = crashed(started, t);
        }
        for (Verdict verdict : verdicts) {
            apply(verdict, verdict.job(), null);
        }
    }

    /** Runs one job; returns the next job of the same key when the job released its lane, to run inline. */
    private @Nullable Job runOne(Worker worker, Job job) {
        if (!job.start()) {
            return null; // withdrawn
        }
        if (state != RUNNING) {
            if (job.claimSettlement()) {
                submit(job, Settlement.RETURN, true);
            }
            return null;
        }
        worker.inlineNext = null;
        Verdict verdict;
        try {
            verdict = flow.run(worker, job);
        } catch (Throwable t) {
            verdict = crashed(List.of(job), t).getFirst();
        }
        if (verdict != null) {
            // Unsequenced, the worker goes back to the ready queue right after: what its settlement lets the
            // transport deliver on this thread it takes itself, rather than wake a parked worker for it.
            worker.takesNext = lanes == null;
            try {
                apply(verdict, job, worker);
            } finally {
                worker.takesNext = false;
            }
        }
        Job next = worker.inlineNext;
        worker.inlineNext = null;
        return next;
    }

    /**
     * Jobs whose flow threw something other than what their handler threw (a virtual machine error from a codec, a
     * shove bug): logged and counted as a crash of shove's machinery; the flow decides what happens to them.
     */
    private List<Verdict> crashed(List<Job> jobs, Throwable error) {
        context.crashed(error);
        log.error(
                "shove internal error in consumer {} of queue '{}' while running {} message(s) ({}); the worker goes on",
                consumerId,
                request.queue(),
                jobs.size(),
                error.toString(),
                error);
        return flow.crashed(jobs, error);
    }

    @Override
    public void timedOut(Watchdog.Slot slot) {
        Object token = slot.job();
        if (token == null) {
            return;
        }
        replaceWorker();
        for (Verdict verdict : flow.timedOut(token)) {
            apply(verdict, verdict.job(), null);
        }
    }

    /**
     * Replaces a worker whose handler call was taken over. A handler that ignores its interrupt keeps its thread, so
     * the workers still alive are bounded: past {@code workerCount} times {@link #STUCK_FACTOR}, the replacement is
     * owed until a stuck one returns, and the consumer runs with fewer workers meanwhile.
     */
    private void replaceWorker() {
        if (state != RUNNING) {
            return;
        }
        if (workers.size() >= workerCount * STUCK_FACTOR) {
            if (owedWorkers.getAndIncrement() == 0) {
                log.error(
                        "{} handlers of consumer {} on queue '{}' ignore their interrupt and keep running past their"
                                + " deadline; no more workers are started until one returns",
                        workers.size() - workerCount,
                        consumerId,
                        request.queue());
            }
            return;
        }
        spawnWorker();
    }

    // ---------------------------------------------------------------- decisions

    /**
     * Carries out a flow's verdict: a settlement submitted to the transport (releasing the key's lane), or a wait in
     * place; then the move the handler asked for, if any. {@code job}: the job it concerns (named by the caller: {@link
     * Verdict#ACKED} names none). {@code inline}: the caller is the job's worker and will run
     * the key's next job itself (it is left in {@link Worker#inlineNext}); otherwise the next job is queued.
     */
    private void apply(Verdict verdict, Job job, @Nullable Worker inline) {
        job.addContinuation(verdict.continuation());
        Decision decision = verdict.decision();
        if (decision instanceof WaitInPlace wait) {
            waitInPlace(job, wait);
        } else if (job.claimSettlement()) {
            Settlement settlement = verdict.replies().isEmpty()
                    ? settlementOf(job, decision, verdict.failure())
                    : new Settlement(List.copyOf(verdict.replies()), Settlement.Action.ACK);
            submit(job, settlement, false);
            releaseLane(job, inline);
        }
        Position seek = verdict.seek();
        if (seek != null) {
            seek(seek, inline);
        }
    }

    /** The transport's settlement for a decision: an ack, or a copy (hold tier, dead-letter queue) then an ack. */
    private Settlement settlementOf(Job job, Decision decision, @Nullable Throwable failure) {
        return switch (decision) {
            case Ack a -> Settlement.ACK;
            case Hold h ->
                Settlement.forward(
                        new Settlement.Copy.ToHold(h.tier(), h.delay(), job.delivery.payload(), holdHeaders(job, h)));
            case DeadLetter d -> {
                Settlement.Copy.ToDeadLetter copy = new Settlement.Copy.ToDeadLetter(
                        request.topic().dlq().orElseThrow(),
                        job.delivery.payload(),
                        deadLetterHeaders(job, d, failure));
                if (deadLetterFeed != null) {
                    job.deadLetter = copy;
                }
                yield Settlement.forward(copy);
            }
            case Discard d -> Settlement.ACK;
            case DeliveryPolicy.Skip s -> Settlement.ACK;
            case WaitInPlace w -> throw new AssertionError("a wait in place settles nothing");
        };
    }

    /**
     * Moves the subscription (a handler asked with {@link dev.shove.Outcome#andSeek}): drops every job not started
     * yet, then asks the transport to move. A refused move returns the dropped deliveries to the broker, so nothing is
     * lost and the subscription stays where it was. {@code inline}: the worker that settled the seeking job; the next
     * job of its key, handed to it to run inline, is not started yet and is dropped too.
     */
    private void seek(Position position, @Nullable Worker inline) {
        Subscription sub = subscription;
        if (sub == null || state != RUNNING) {
            return;
        }
        List<Delivery> dropped = new ArrayList<>();
        Job next = inline == null ? null : inline.inlineNext;
        if (next != null) {
            inline.inlineNext = null;
            if (next.withdraw()) {
                // withdraw below then finds its lane's active job withdrawn and frees the lane
                unsettled.decrementAndGet();
                dropped.add(next.delivery);
            }
        }
        dropped.addAll(withdraw(d -> true));
        try {
            sub.seek(position, dropped);
            log.info("consumer {} of queue '{}' moved to {}", consumerId, request.queue(), position);
        } catch (RuntimeException e) {
            log.error(
                    "consumer {} of queue '{}' cannot move to {}: {}; it stays where it was",
                    consumerId,
                    request.queue(),
                    position,
                    e.getMessage());
            for (Delivery d : dropped) {
                unsettled.incrementAndGet();
                Job returned = new Job(this, d, null, 0);
                if (returned.claimSettlement()) {
                    submit(returned, Settlement.RETURN, true);
                }
            }
        }
    }

    /** A job a worker took but will not run: to the ready queue for another, or back to the broker when stopping. */
    private void handBack(Job job) {
        if (state == RUNNING) {
            ready.add(job);
            if (state != RUNNING) {
                returnUnstarted(); // a stop began meanwhile, perhaps after its last sweep of the ready queue
            }
        } else {
            returnToBroker(job);
            signalIdle();
        }
    }

    /** Returns a job to the broker for redelivery: shutdown, a handler abandoned at the deadline. */
    void returnToBroker(Job job) {
        if (job.claimSettlement()) {
            submit(job, Settlement.RETURN, true);
        }
    }

    private void waitInPlace(Job job, WaitInPlace wait) {
        job.retryCount(wait.retryCount());
        job.waitingSinceMillis = System.currentTimeMillis();
        Subscription sub = subscription;
        if (sub != null) {
            // before a stop may return it below: the transport keeps the wait with the message where it can
            sub.waiting(
                    job.delivery,
                    wait.retryCount(),
                    System.currentTimeMillis() + wait.delay().toMillis());
        }
        job.requeue();
        waiting.add(job);
        if (state != RUNNING) {
            // Stopping: waiting out the delay here would only hold up the drain. The message is still unsettled on
            // the broker, so returning it keeps its place at the head of its key for the next consumer. The check
            // follows the add, so a drain that already swept the waiting set cannot miss this job.
            if (waiting.remove(job)) {
                returnToBroker(job);
            }
            signalIdle();
            return;
        }
        context.services()
                .scheduler()
                .schedule(
                        () -> {
                            if (waiting.remove(job)) {
                                if (state == RUNNING) {
                                    ready.add(job);
                                } else {
                                    returnToBroker(job);
                                    signalIdle();
                                }
                            }
                        },
                        wait.delay().toNanos(),
                        TimeUnit.NANOSECONDS);
        signalIdle();
    }

    private void releaseLane(Job job, @Nullable Worker inline) {
        if (lanes == null) {
            return;
        }
        Job next = lanes.release(job);
        if (next == null) {
            if (job.key != null) {
                flow.laneDrained(job.key);
            }
            return;
        }
        if (inline != null && state == RUNNING) {
            inline.inlineNext = next;
        } else if (state == RUNNING) {
            ready.add(next);
        } else {
            returnToBroker(next);
        }
    }

    private void submit(Job job, Settlement settlement, boolean returned) {
        if (returned) {
            job.markReturned();
        }
        unconfirmed.incrementAndGet();
        Subscription sub = subscription;
        try {
            if (sub == null) {
                throw new IllegalStateException("consumer " + consumerId + " has no subscription");
            }
            sub.settle(job.delivery, settlement, job);
        } catch (RuntimeException e) {
            onSettled(job, e);
        } finally {
            // Unsettled until the transport has the settlement in hand: the drain waits for none unsettled, then
            // interrupts the workers, and an interrupt while a transport hands a copy to its client can lose it (jnats
            // drops a publish queued from an interrupted thread).
            unsettled.decrementAndGet();
        }
        signalIdle();
    }

    void onSettled(Job job, @Nullable Throwable failure) {
        unconfirmed.decrementAndGet();
        SettleCallback confirmation = job.confirmation;
        if (confirmation != null) {
            confirmation.settled(failure);
        }
        if (failure != null) {
            Metrics.backendError(
                    context.services().metrics().registry(),
                    context.services().transport().name(),
                    "settle");
            log.warn(
                    "settling message {} from queue '{}' failed; the broker will deliver it again: {}",
                    job.messageId(),
                    job.delivery.queue(),
                    failure.toString());
        } else if (!job.returned()) {
            DeadLetterFeed feed = deadLetterFeed;
            Settlement.Copy.ToDeadLetter dead = job.deadLetter;
            if (feed != null && dead != null) {
                feed.offer(dead.payload(), dead.headers());
            }
            if (job.continuation != null) {
                context.continuations().submit(job.continuation, request.topic().name(), job.messageId());
            }
        }
        signalIdle();
    }

    // ---------------------------------------------------------------- copies

    private Map<String, String> holdHeaders(Job job, Hold hold) {
        Map<String, String> headers = new HashMap<>(job.delivery.headers());
        headers.put(ShoveHeaders.RETRY_COUNT, Integer.toString(hold.retryCount()));
        headers.put(
                ShoveHeaders.NOT_BEFORE,
                Long.toString(System.currentTimeMillis() + hold.delay().toMillis()));
        return headers;
    }

    private Map<String, String> deadLetterHeaders(Job job, DeadLetter dead, @Nullable Throwable failure) {
        Map<String, String> headers = new HashMap<>(job.delivery.headers());
        Failures.describe(failure, headers);
        headers.remove(ShoveHeaders.NOT_BEFORE);
        headers.put(ShoveHeaders.RETRY_COUNT, Integer.toString(dead.retryCount()));
        headers.put(ShoveHeaders.DEATH_REASON, Failures.oneLine(dead.reason(), Failures.MAX_REASON));
        headers.put(ShoveHeaders.ORIGINAL_QUEUE, job.delivery.queue());
        int deaths = context.services().wireHeaders().deathCount(headers);
        headers.put(ShoveHeaders.DEATH_COUNT, Integer.toString(deaths + 1));
        return headers;
    }

    /** Reads shove's own headers of this consumer's deliveries. */
    WireHeaders wireHeaders() {
        return context.services().wireHeaders();
    }

    private static @Nullable String sequenceKey(Delivery delivery) {
        String key = delivery.headers().get(ShoveHeaders.SEQUENCE_KEY);
        return key != null ? key : delivery.nativeKey();
    }

    // ---------------------------------------------------------------- state

    /** Nothing running, nothing waiting, nothing queued: safe to scale down. */
    boolean isIdle() {
        return running.get() == 0
                && ready.isEmpty()
                && waiting.isEmpty()
                && (lanes == null || lanes.isEmpty())
                && unsettled.get() == 0;
    }

    int running() {
        return running.get();
    }

    /** Retries waiting in place in this consumer. */
    int waitingCount() {
        return waiting.size();
    }

    /** How long the oldest retry waiting in place has waited, in ms; 0 when none waits. */
    long oldestWaitMillis() {
        long oldest = 0;
        long now = System.currentTimeMillis();
        for (Job job : waiting) {
            oldest = Math.max(oldest, now - job.waitingSinceMillis);
        }
        return oldest;
    }

    /** When the transport last handed over a delivery (epoch ms), or 0 if it never has. */
    long lastReceivedMillis() {
        return lastReceivedMillis;
    }

    /** Handler calls of this consumer running longer than {@code thresholdNanos}. */
    List<RegistrationHealth.StalledHandler> stalled(long thresholdNanos) {
        List<RegistrationHealth.StalledHandler> stalled = new ArrayList<>();
        long now = System.nanoTime();
        for (Worker w : workers) {
            if (!w.slot.isInCall()) {
                continue;
            }
            long start = w.slot.startNanos();
            if (now - start > thresholdNanos) {
                List<Job> jobs = Flow.jobsOf(w.slot.job());
                String id = jobs.size() == 1
                        ? jobs.getFirst().messageId()
                        : jobs.size() + " messages from "
                                + (jobs.isEmpty() ? "?" : jobs.getFirst().messageId());
                stalled.add(new RegistrationHealth.StalledHandler(id, Duration.ofNanos(now - start)));
            }
        }
        return stalled;
    }

    boolean isStopped() {
        return state == STOPPED;
    }

    @Nullable
    Throwable failure() {
        return failure;
    }

    String queue() {
        return request.queue();
    }

    /**
     * Stops the consumer: see the class comment. Returns true if handlers were still running at the deadline (they
     * were interrupted and their messages returned).
     */
    boolean stop(long deadlineNanos) {
        synchronized (this) {
            if (state >= STOPPING) {
                return awaitStopped(deadlineNanos);
            }
            state = STOPPING;
        }
        Subscription sub = subscription;
        if (sub != null) {
            try {
                sub.pause();
            } catch (RuntimeException e) {
                log.warn("pausing consumer {} failed: {}", consumerId, e.toString());
            }
        }
        returnUnstarted();
        awaitQuiet(deadlineNanos, () -> running.get() == 0 && unsettled.get() == 0);
        boolean timedOut = false;
        for (Worker w : workers) {
            if (w.slot.isRunning() && w.slot.takeOver()) {
                for (Job job : Flow.jobsOf(w.slot.job())) {
                    timedOut = true;
                    log.warn(
                            "drain deadline passed with the handler of message {} on queue '{}' still running; it"
                                    + " was interrupted and the message returned for redelivery",
                            job.messageId(),
                            job.delivery.queue());
                    returnToBroker(job);
                }
            }
        }
        returnUnstarted(); // anything a finishing worker released meanwhile
        for (Worker w : workers) {
            w.retired = true;
            w.interrupt();
        }
        awaitQuiet(deadlineNanos, () -> unconfirmed.get() == 0);
        if (sub != null) {
            try {
                sub.close();
            } catch (RuntimeException e) {
                log.warn("closing consumer {} failed: {}", consumerId, e.toString());
            }
        }
        state = STOPPED;
        context.services().watchdog().remove(watched);
        meters.stoppedCounting(running);
        signalIdle();
        return timedOut;
    }

    private boolean awaitStopped(long deadlineNanos) {
        awaitQuiet(deadlineNanos, () -> state == STOPPED);
        return false;
    }

    private void returnUnstarted() {
        List<Job> jobs = new ArrayList<>();
        // A retry waiting in place heads its key's lane: it goes back before the key's later messages, so that a
        // broker that redelivers in the order of return keeps the key's order.
        for (Job j : waiting) {
            if (waiting.remove(j)) {
                jobs.add(j);
            }
        }
        ready.drainTo(jobs);
        if (lanes != null) {
            jobs.addAll(lanes.takeQueued());
        }
        for (Job j : jobs) {
            returnToBroker(j);
        }
    }

    private void awaitQuiet(long deadlineNanos, BooleanSupplier quiet) {
        synchronized (idleMonitor) {
            while (!quiet.getAsBoolean()) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    idleMonitor.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 50)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void signalIdle() {
        if (state >= STOPPING) {
            synchronized (idleMonitor) {
                idleMonitor.notifyAll();
            }
        }
    }
}
