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
final class BatchFlow<T, C> implements Flow {
    private static final Logger log = LoggerFactory.getLogger(BatchFlow.class);

    private final DeliveryPipeline<T, C> pipeline;
    private final BatchMessageHandler<T, ? super C> handler;

    BatchFlow(DeliveryPipeline<T, C> pipeline, BatchMessageHandler<T, ? super C> handler) {
        this.pipeline = pipeline;
        this.handler = handler;
    }

    @Override
    public @Nullable Verdict run(Worker worker, Job job) {
        List<Verdict> verdicts = runBatch(worker, List.of(job));
        return verdicts.isEmpty() ? null : verdicts.getFirst();
    }

    /**
     * Returns a verdict per job; when the handler call was taken over, only those of the jobs that never reached the
     * handler (the taker settles the others).
     */
    @Override
    public List<Verdict> runBatch(Worker worker, List<Job> batch) {
        List<Verdict> verdicts = new ArrayList<>(batch.size());
        List<Job> readable = new ArrayList<>(batch.size());
        List<Envelope<T>> envelopes = new ArrayList<>(batch.size());
        for (Job job : batch) {
            Decision early = pipeline.admit(job);
            if (early != null) {
                verdicts.add(pipeline.verdict(job, early, null));
                continue;
            }
            try {
                T message = pipeline.decode(job);
                job.runs++;
                envelopes.add(new Envelope<>(message, pipeline.metadata(job)));
                readable.add(job);
            } catch (DeliveryPipeline.Unreadable e) {
                verdicts.add(pipeline.verdict(job, pipeline.unreadable(job, e), null));
            }
        }
        if (readable.isEmpty()) {
            return verdicts;
        }
        C context = pipeline.context;
        List<Envelope<T>> view = List.copyOf(envelopes);
        if (!worker.invoke(List.copyOf(readable), () -> handler.handle(view, context))) {
            return verdicts;
        }
        List<Outcome> outcomes = outcomes(readable, worker.result, worker.error);
        long perMessageNanos = worker.nanos / readable.size();
        boolean replyFailed = false;
        List<Settlement.Copy.ToTopic> replies = new ArrayList<>();
        for (Outcome o : outcomes) {
            if (o.isAck() && !o.replies().isEmpty()) {
                try {
                    replies.addAll(pipeline.prepareReplies(o.replies()));
                } catch (RuntimeException e) {
                    log.warn(
                            "batch replies on topic '{}' cannot be prepared ({}); retrying the batch",
                            pipeline.topic.name(),
                            e.toString());
                    outcomes = retryAll(readable.size());
                    replyFailed = true;
                    replies.clear();
                    break;
                }
            }
        }
        if (!replies.isEmpty()) {
            Throwable failure = pipeline.publishReplies(replies);
            if (failure != null) {
                log.warn(
                        "publishing the replies of a batch on topic '{}' failed ({}); retrying the batch",
                        pipeline.topic.name(),
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
            afterEvery(readable, uniformContinuation);
        }
        Position seek = null;
        for (int i = 0; i < readable.size(); i++) {
            Job job = readable.get(i);
            Outcome outcome = outcomes.get(i);
            pipeline.meters.consumed(outcome.kind(), perMessageNanos);
            pipeline.valve.record(worker.error != null || outcome.kind() == Outcome.Kind.RETRY);
            verdicts.add(pipeline.verdict(
                            job,
                            pipeline.policy.decide(outcome, job.retryCount()),
                            outcome.continuation().orElse(null))
                    .failedWith(worker.error));
            seek = outcome.seek().isPresent() ? pipeline.seekOf(outcome) : seek;
        }
        if (seek != null) {
            // the move follows the settlement of the whole batch
            int last = verdicts.size() - 1;
            verdicts.set(last, verdicts.get(last).seeking(seek));
        }
        return verdicts;
    }

    /** One outcome per readable message, from what the handler returned or threw. */
    private List<Outcome> outcomes(List<Job> readable, @Nullable Object result, @Nullable Throwable error) {
        int n = readable.size();
        if (error != null || !(result instanceof BatchOutcome batchOutcome)) {
            Outcome failed = pipeline.outcomeOf(readable.getFirst(), null, error);
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
                    pipeline.topic.name(),
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
    private void afterEvery(List<Job> jobs, Runnable continuation) {
        AtomicInteger left = new AtomicInteger(jobs.size());
        AtomicBoolean failed = new AtomicBoolean();
        Job last = jobs.getLast();
        for (Job job : jobs) {
            job.confirmation = failure -> {
                if (failure != null || job.returned()) {
                    failed.set(true);
                }
                if (left.decrementAndGet() == 0 && !failed.get()) {
                    pipeline.submitContinuation(continuation, last.messageId());
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
    public List<Verdict> timedOut(Object token) {
        List<Job> jobs = Flow.jobsOf(token);
        Outcome outcome = pipeline.timeoutOutcome();
        log.warn(
                "batch handler for topic '{}' exceeded its timeout of {} on a batch of {}; interrupted, each"
                        + " message treated as {}",
                pipeline.topic.name(),
                Duration.ofNanos(pipeline.timeoutNanos),
                jobs.size(),
                outcome);
        List<Verdict> verdicts = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            pipeline.meters.failed("timeout");
            pipeline.meters.consumed(outcome.kind(), pipeline.timeoutNanos);
            verdicts.add(pipeline.timedOut(job));
        }
        return verdicts;
    }

    @Override
    public List<Verdict> crashed(List<Job> jobs, Throwable error) {
        List<Verdict> verdicts = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            verdicts.add(pipeline.verdict(job, pipeline.policy.decide(Outcome.retry(), job.retryCount()), null));
        }
        return verdicts;
    }
}
