package dev.shove.internal;

import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.internal.DeliveryPolicy.Ack;
import dev.shove.internal.DeliveryPolicy.DeadLetter;
import dev.shove.internal.DeliveryPolicy.Decision;
import dev.shove.internal.DeliveryPolicy.Discard;
import dev.shove.spi.Delivery;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery pipeline of a topic's main queue: pre-handler checks (due time, poisoned key, retry budget, size),
 * decode and header checks, the interceptor chain and handler under the deadline, then the {@link DeliveryPolicy}'s
 * decision, replies and seek. One instance per consumer, holding that consumer's handler.
 */
final class MainFlow<T, C> implements ConsumerEngine.Flow {
    private static final Logger log = LoggerFactory.getLogger(MainFlow.class);

    /** A copy released this much before its due time counts as due: broker timers and host clocks jitter. */
    static final long NOT_BEFORE_TOLERANCE_MS = 50;

    private final Registration<T, C> reg;
    private final InterceptorChain<T, C> chain;

    MainFlow(Registration<T, C> reg, InterceptorChain<T, C> chain) {
        this.reg = reg;
        this.chain = chain;
    }

    @Override
    public void run(ConsumerEngine engine, ConsumerEngine.Worker worker, Job job) {
        Decision early = reg.beforeHandler(job);
        if (early != null) {
            reg.finish(engine, job, early, null, worker);
            return;
        }
        T message;
        try {
            message = reg.decode(job);
        } catch (Registration.Unreadable e) {
            reg.finish(engine, job, reg.unreadable(job, e), null, worker);
            return;
        }
        MessageMetadata metadata = reg.metadata(job);
        C context = reg.context;
        job.runs++;
        if (!engine.invoke(worker, job, () -> chain.call(job, worker.slot, message, metadata, context))) {
            return; // taken over by the watchdog or the drain, which settle it
        }
        Outcome outcome = reg.outcomeOf(job, worker.result, worker.error); // counted by the MetricsInterceptor
        Decision decision = reg.policy.decide(outcome, job.retryCount);
        if (decision instanceof Ack && !outcome.replies().isEmpty()) {
            reg.ackWithReplies(engine, job, outcome, worker);
        } else {
            reg.finish(engine, job, decision, outcome.continuation().orElse(null), worker);
        }
        outcome.seek().ifPresent(position -> reg.seek(engine, position, worker));
    }

    @Override
    public void timedOut(ConsumerEngine engine, Object token) {
        Job job = (Job) token;
        Outcome outcome = reg.timeoutOutcome;
        reg.meters.failed("timeout");
        if (job.claimCount()) { // unless the chain returned just now and its MetricsInterceptor counted it
            reg.meters.consumed(outcome.kind(), reg.timeoutNanos);
        }
        log.warn(
                "handler for topic '{}' exceeded its timeout of {} on message {}; interrupted, treated as {}",
                reg.topic.name(),
                Duration.ofNanos(reg.timeoutNanos),
                job.messageId(),
                outcome);
        reg.finish(engine, job, reg.policy.decide(outcome, job.retryCount), null, null);
    }

    /** Builds the metadata of a delivery; in-place reruns add to the broker's delivery count. */
    static MessageMetadata metadata(String topic, Job job) {
        Delivery d = job.delivery;
        int count = d.deliveryCount();
        return new MessageMetadata(
                topic,
                job.retryCount,
                d.deliveryId(),
                d.redelivered(),
                count > 0 ? OptionalInt.of(count + job.runs) : OptionalInt.empty(),
                d.headers(),
                d.partition() >= 0 ? OptionalInt.of(d.partition()) : OptionalInt.empty(),
                d.offset() >= 0 ? OptionalLong.of(d.offset()) : OptionalLong.empty(),
                d.timestampMs() >= 0 ? OptionalLong.of(d.timestampMs()) : OptionalLong.empty(),
                Optional.ofNullable(d.position()));
    }

    /** How long a copy must still wait, from its {@code shove-not-before} header; 0 when due. */
    static long remainingMillis(Job job) {
        String notBefore = job.delivery.headers().get(ShoveHeaders.NOT_BEFORE);
        if (notBefore == null) {
            return 0;
        }
        long remaining;
        try {
            remaining = Long.parseLong(notBefore.trim()) - System.currentTimeMillis();
        } catch (NumberFormatException e) {
            return 0;
        }
        return remaining > NOT_BEFORE_TOLERANCE_MS ? remaining : 0;
    }

    static String laneKey(Job job) {
        return job.key == null ? "" : job.key;
    }

    static String firstLine(Throwable e) {
        String m = e.getMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    static boolean isTerminal(@Nullable Decision d) {
        return d instanceof DeadLetter || d instanceof Discard;
    }
}
