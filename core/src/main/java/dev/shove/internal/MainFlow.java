package dev.shove.internal;

import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.internal.DeliveryPolicy.Decision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flow of a topic's main queue with a single-message handler: the pipeline's checks and decoding, the
 * interceptor chain and handler under the deadline, then the verdict on the outcome. One per consumer, holding that
 * consumer's handler (inside its chain).
 */
final class MainFlow<T, C> implements Flow {
    private static final Logger log = LoggerFactory.getLogger(MainFlow.class);

    private final DeliveryPipeline<T, C> pipeline;
    private final InterceptorChain<T, C> chain;

    MainFlow(DeliveryPipeline<T, C> pipeline, InterceptorChain<T, C> chain) {
        this.pipeline = pipeline;
        this.chain = chain;
    }

    @Override
    public @Nullable Verdict run(Worker worker, Job job) {
        Decision early = pipeline.admit(job);
        if (early != null) {
            return pipeline.verdict(job, early, null);
        }
        T message;
        try {
            message = pipeline.decode(job);
        } catch (DeliveryPipeline.Unreadable e) {
            return pipeline.verdict(job, pipeline.unreadable(job, e), null);
        }
        MessageMetadata metadata = pipeline.metadata(job);
        C context = pipeline.context;
        job.runs++;
        if (!worker.invoke(job, chain.callOf(job, worker, message, metadata, context))) {
            return null; // taken over by the watchdog or the drain, which settle it
        }
        // counted by the MetricsInterceptor
        return pipeline.conclude(job, pipeline.outcomeOf(job, worker.result, worker.error), worker.error);
    }

    @Override
    public List<Verdict> timedOut(Object token) {
        Job job = (Job) token;
        Outcome outcome = pipeline.timeoutOutcome();
        pipeline.meters.failed("timeout");
        if (job.claimCount()) { // unless the chain returned just now and its MetricsInterceptor counted it
            pipeline.meters.consumed(outcome.kind(), pipeline.timeoutNanos);
        }
        log.warn(
                "handler for topic '{}' exceeded its timeout of {} on message {}; interrupted, treated as {}",
                pipeline.topic.name(),
                Duration.ofNanos(pipeline.timeoutNanos),
                job.messageId(),
                outcome);
        return List.of(pipeline.timedOut(job));
    }

    @Override
    public void laneDrained(String key) {
        pipeline.laneDrained(key);
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
