package dev.shove.internal;

import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.internal.DeliveryPolicy.DeadLetter;
import dev.shove.internal.DeliveryPolicy.Decision;
import dev.shove.internal.DeliveryPolicy.Discard;
import dev.shove.spi.Delivery;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery pipeline of a topic's main queue: pre-handler checks (due time, poisoned key, retry budget, size),
 * decode, the handler under its deadline, then the {@link DeliveryPolicy}'s decision. One instance per consumer,
 * holding that consumer's handler.
 */
final class MainFlow<T, C> implements ConsumerEngine.Flow {
    private static final Logger log = LoggerFactory.getLogger(MainFlow.class);

    /** A copy released this much before its due time counts as due: broker timers and host clocks jitter. */
    static final long NOT_BEFORE_TOLERANCE_MS = 50;

    private final Registration<T, C> reg;
    private final MessageHandler<T, ? super C> handler;

    MainFlow(Registration<T, C> reg, MessageHandler<T, ? super C> handler) {
        this.reg = reg;
        this.handler = handler;
    }

    @Override
    public void run(ConsumerEngine engine, ConsumerEngine.Worker worker, Job job) {
        byte[] payload = job.delivery.payload();
        reg.meters.size(payload.length);
        Decision early = beforeHandler(job, payload);
        if (early != null) {
            finish(engine, job, early, null, worker);
            return;
        }
        T message;
        try {
            message = reg.topic.codec().decode(payload);
        } catch (Exception | StackOverflowError e) {
            reg.meters.failed("decode");
            String detail = reg.topic.codec().name() + ": " + firstLine(e);
            finish(engine, job, reg.policy.undecodable(detail, job.retryCount), null, worker);
            return;
        }
        MessageMetadata metadata = metadata(job);
        C context = reg.context;
        boolean mine;
        reg.meters.handlerStarted();
        try {
            mine = engine.invoke(worker, job, () -> handler.handle(message, metadata, context));
        } finally {
            reg.meters.handlerEnded();
        }
        if (!mine) {
            return; // taken over by the watchdog or the drain, which settle it
        }
        Outcome outcome;
        if (worker.error != null) {
            reg.meters.failed("handler_error");
            log.warn(
                    "handler for topic '{}' failed on message {} (retryCount {}); retrying",
                    reg.topic.name(),
                    job.messageId(),
                    job.retryCount,
                    worker.error);
            outcome = Outcome.retry();
        } else if (worker.result instanceof Outcome o) {
            outcome = o;
        } else {
            reg.meters.failed("handler_error");
            log.warn(
                    "handler for topic '{}' returned null for message {}; treating it as retry",
                    reg.topic.name(),
                    job.messageId());
            outcome = Outcome.retry();
        }
        reg.meters.consumed(outcome.kind(), worker.nanos);
        finish(
                engine,
                job,
                reg.policy.decide(outcome, job.retryCount),
                outcome.continuation().orElse(null),
                worker);
    }

    @Override
    public void timedOut(ConsumerEngine engine, Job job) {
        Outcome outcome = reg.timeoutOutcome;
        reg.meters.failed("timeout");
        reg.meters.consumed(outcome.kind(), reg.timeoutNanos);
        log.warn(
                "handler for topic '{}' exceeded its timeout of {} on message {}; interrupted, treated as {}",
                reg.topic.name(),
                Duration.ofNanos(reg.timeoutNanos),
                job.messageId(),
                outcome);
        finish(engine, job, reg.policy.decide(outcome, job.retryCount), null, null);
    }

    private @Nullable Decision beforeHandler(Job job, byte[] payload) {
        String notBefore = job.delivery.headers().get(ShoveHeaders.NOT_BEFORE);
        if (notBefore != null) {
            long remaining = parseLong(notBefore) - System.currentTimeMillis();
            if (remaining > NOT_BEFORE_TOLERANCE_MS) {
                return reg.policy.notYetDue(Duration.ofMillis(remaining), job.retryCount);
            }
        }
        if (reg.failAll && reg.poisoned.contains(laneKey(job))) {
            return reg.policy.poisoned(job.retryCount);
        }
        if (job.retryCount > reg.policy.maxRetries()) {
            return reg.policy.overBudget(job.retryCount);
        }
        int limit = reg.maxMessageSize;
        if (limit > 0 && payload.length > limit) {
            reg.meters.failed("oversize");
            return reg.policy.oversize(payload.length, limit, job.retryCount);
        }
        return null;
    }

    private void finish(
            ConsumerEngine engine,
            Job job,
            Decision decision,
            @Nullable Runnable continuation,
            ConsumerEngine.@Nullable Worker worker) {
        switch (decision) {
            case DeadLetter d -> {
                reg.meters.deadLettered(d.metricReason());
                log.warn(
                        "message {} of topic '{}' goes to dead-letter queue '{}': {} (retryCount {})",
                        job.messageId(),
                        reg.topic.name(),
                        reg.topic.dlq().orElseThrow(),
                        d.reason(),
                        d.retryCount());
                poisonIfFailAll(job);
            }
            case Discard d -> {
                reg.meters.discarded(d.metricReason());
                log.warn(
                        "message {} of topic '{}' is discarded: {}; the topic has no dead-letter queue",
                        job.messageId(),
                        reg.topic.name(),
                        d.reason());
                poisonIfFailAll(job);
            }
            default -> {}
        }
        engine.apply(job, decision, continuation, worker);
    }

    private void poisonIfFailAll(Job job) {
        if (reg.failAll && reg.poisoned.add(laneKey(job))) {
            log.warn(
                    "key '{}' of sequenced topic '{}' is poisoned (FAIL_ALL): its later messages go to the"
                            + " dead-letter queue unhandled until this consumer group stops",
                    laneKey(job),
                    reg.topic.name());
        }
    }

    private MessageMetadata metadata(Job job) {
        Delivery d = job.delivery;
        int count = d.deliveryCount();
        return new MessageMetadata(
                reg.topic.name(),
                job.retryCount,
                d.deliveryId(),
                d.redelivered(),
                count > 0 ? OptionalInt.of(count + job.runs) : OptionalInt.empty(),
                d.headers(),
                d.partition() >= 0 ? OptionalInt.of(d.partition()) : OptionalInt.empty(),
                d.offset() >= 0 ? OptionalLong.of(d.offset()) : OptionalLong.empty(),
                d.timestampMs() >= 0 ? OptionalLong.of(d.timestampMs()) : OptionalLong.empty());
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

    private static long parseLong(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
