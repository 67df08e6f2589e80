package dev.shove.internal;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOutcome;
import dev.shove.Envelope;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.internal.DeliveryPolicy.Decision;
import dev.shove.spi.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of a batch registration: per message the same checks and decoding as {@link MainFlow} (failures
 * settled one by one, never reaching the handler), then one handler call for the readable messages under one
 * deadline, then each message settled by its outcome. Replies of the whole batch are published before any message
 * is acknowledged; if one fails, every message of the batch is retried.
 */
final class BatchFlow<T, C> implements ConsumerEngine.Flow {
    private static final Logger log = LoggerFactory.getLogger(BatchFlow.class);

    private final Registration<T, C> reg;
    private final BatchMessageHandler<T, ? super C> handler;

    BatchFlow(Registration<T, C> reg, BatchMessageHandler<T, ? super C> handler) {
        this.reg = reg;
        this.handler = handler;
    }

    @Override
    public void run(ConsumerEngine engine, ConsumerEngine.Worker worker, Job job) {
        runBatch(engine, worker, List.of(job));
    }

    @Override
    public void runBatch(ConsumerEngine engine, ConsumerEngine.Worker worker, List<Job> batch) {
        List<Job> readable = new ArrayList<>(batch.size());
        List<Envelope<T>> envelopes = new ArrayList<>(batch.size());
        for (Job job : batch) {
            Decision early = reg.beforeHandler(job);
            if (early != null) {
                reg.finish(engine, job, early, null, null);
                continue;
            }
            try {
                T message = reg.decode(job);
                job.runs++;
                envelopes.add(new Envelope<>(message, reg.metadata(job)));
                readable.add(job);
            } catch (Registration.Unreadable e) {
                reg.finish(engine, job, reg.unreadable(job, e), null, null);
            }
        }
        if (readable.isEmpty()) {
            return;
        }
        C context = reg.context;
        List<Envelope<T>> view = List.copyOf(envelopes);
        if (!engine.invoke(worker, List.copyOf(readable), () -> handler.handle(view, context))) {
            return;
        }
        List<Outcome> outcomes = outcomes(readable, worker.result, worker.error);
        long perMessageNanos = worker.nanos / readable.size();
        boolean replyFailed = false;
        List<Settlement.Copy.ToTopic> replies = new ArrayList<>();
        for (Outcome o : outcomes) {
            if (o.isAck() && !o.replies().isEmpty()) {
                try {
                    replies.addAll(reg.prepareReplies(o.replies()));
                } catch (RuntimeException e) {
                    log.warn(
                            "batch replies on topic '{}' cannot be prepared ({}); retrying the batch",
                            reg.topic.name(),
                            e.toString());
                    outcomes = retryAll(readable.size());
                    replyFailed = true;
                    replies.clear();
                    break;
                }
            }
        }
        if (!replies.isEmpty()) {
            Throwable failure = reg.publishReplies(replies);
            if (failure != null) {
                log.warn(
                        "publishing the replies of a batch on topic '{}' failed ({}); retrying the batch",
                        reg.topic.name(),
                        failure.toString());
                outcomes = retryAll(readable.size());
                replyFailed = true;
            }
        }
        Runnable uniformContinuation = replyFailed
                ? null
                : worker.result instanceof BatchOutcome b
                        ? b.uniform().flatMap(Outcome::continuation).orElse(null)
                        : null;
        if (uniformContinuation != null) {
            afterEvery(engine, readable, uniformContinuation);
        }
        Position seek = null;
        for (int i = 0; i < readable.size(); i++) {
            Job job = readable.get(i);
            Outcome outcome = outcomes.get(i);
            reg.meters.consumed(outcome.kind(), perMessageNanos);
            reg.finish(
                    engine,
                    job,
                    reg.policy.decide(outcome, job.retryCount),
                    outcome.continuation().orElse(null),
                    null);
            seek = outcome.seek().orElse(seek);
        }
        if (seek != null) {
            reg.seek(engine, seek, null);
        }
    }

    /** One outcome per readable message, from what the handler returned or threw. */
    private List<Outcome> outcomes(List<Job> readable, @Nullable Object result, @Nullable Throwable error) {
        int n = readable.size();
        if (error != null || !(result instanceof BatchOutcome batchOutcome)) {
            Outcome failed = reg.outcomeOf(readable.getFirst(), null, error);
            List<Outcome> all = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                all.add(failed);
            }
            return all;
        }
        Outcome uniform = batchOutcome.uniform().orElse(null);
        if (uniform != null) {
            // One decision for all; its replies are published once, its seek follows the last, and its
            // continuation waits for every message (see afterEvery).
            Outcome bare = bare(uniform);
            List<Outcome> all = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                all.add(bare);
            }
            Outcome first = bare;
            for (Outcome.Reply<?> reply : uniform.replies()) {
                first = withReply(first, reply);
            }
            all.set(0, first);
            if (uniform.seek().isPresent()) {
                all.set(n - 1, all.get(n - 1).andSeek(uniform.seek().get()));
            }
            return all;
        }
        List<Outcome> each = batchOutcome.perMessage();
        if (each.size() != n) {
            log.error(
                    "batch handler of topic '{}' returned {} outcomes for a batch of {}; {}",
                    reg.topic.name(),
                    each.size(),
                    n,
                    each.size() < n ? "retrying the messages without one" : "ignoring the surplus");
        }
        List<Outcome> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            all.add(i < each.size() ? each.get(i) : Outcome.retry());
        }
        return all;
    }

    /**
     * Runs the continuation of a uniform outcome once, after the settlement of every message of the batch was
     * confirmed, in whatever order the transport confirms them; never if one of them failed.
     */
    private void afterEvery(ConsumerEngine engine, List<Job> jobs, Runnable continuation) {
        AtomicInteger left = new AtomicInteger(jobs.size());
        AtomicBoolean failed = new AtomicBoolean();
        Job last = jobs.getLast();
        for (Job job : jobs) {
            job.confirmation = failure -> {
                if (failure != null || job.returned) {
                    failed.set(true);
                }
                if (left.decrementAndGet() == 0 && !failed.get()) {
                    engine.context.continuations().submit(continuation, reg.topic.name(), last.messageId());
                }
            };
        }
    }

    /** The same decision without replies, continuation or seek. */
    private static Outcome bare(Outcome o) {
        return switch (o.kind()) {
            case ACK -> Outcome.ack();
            case RETRY -> o.delay().map(Outcome::retry).orElse(Outcome.retry());
            case REJECT -> o.reason().map(Outcome::reject).orElse(Outcome.reject());
            case DEFER -> o.delay().map(Outcome::defer).orElse(Outcome.defer());
        };
    }

    private static <R> Outcome withReply(Outcome base, Outcome.Reply<R> reply) {
        return base.withReply(reply.topic(), reply.message(), reply.headers());
    }

    private static List<Outcome> retryAll(int n) {
        List<Outcome> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            all.add(Outcome.retry());
        }
        return all;
    }

    @Override
    public void timedOut(ConsumerEngine engine, Object token) {
        List<Job> jobs = ConsumerEngine.jobsOf(token);
        Outcome outcome = reg.timeoutOutcome;
        log.warn(
                "batch handler for topic '{}' exceeded its timeout of {} on a batch of {}; interrupted, each"
                        + " message treated as {}",
                reg.topic.name(),
                Duration.ofNanos(reg.timeoutNanos),
                jobs.size(),
                outcome);
        for (Job job : jobs) {
            reg.meters.failed("timeout");
            reg.meters.consumed(outcome.kind(), reg.timeoutNanos);
            reg.finish(engine, job, reg.policy.decide(outcome, job.retryCount), null, null);
        }
    }
}
