package dev.shove.internal;

import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.spi.Delivery;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of a topic's dead-letter queue: decode, call {@link MessageHandler#handleDead}, and acknowledge
 * whatever happens. A dead letter is never retried; one that cannot be read is logged and acknowledged.
 */
final class DeadLetterFlow<T, C> implements ConsumerEngine.Flow {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterFlow.class);

    private final Registration<T, C> reg;
    private final MessageHandler<T, ? super C> handler;

    DeadLetterFlow(Registration<T, C> reg, MessageHandler<T, ? super C> handler) {
        this.reg = reg;
        this.handler = handler;
    }

    @Override
    public void run(ConsumerEngine engine, ConsumerEngine.Worker worker, Job job) {
        byte[] payload = job.delivery.payload();
        String dlq = job.delivery.queue();
        int limit = reg.maxMessageSize;
        if (limit > 0 && payload.length > limit) {
            log.warn(
                    "dead letter {} in '{}' is {} bytes, over maxMessageSize {}; acknowledged without handleDead",
                    job.messageId(),
                    dlq,
                    payload.length,
                    limit);
            engine.apply(job, DeliveryPolicy.ACK, null, worker);
            return;
        }
        T message;
        try {
            message = reg.topic.codec().decode(payload);
        } catch (Exception | StackOverflowError e) {
            log.warn(
                    "dead letter {} in '{}' cannot be decoded ({}); acknowledged without handleDead",
                    job.messageId(),
                    dlq,
                    MainFlow.firstLine(e));
            engine.apply(job, DeliveryPolicy.ACK, null, worker);
            return;
        }
        DeadMessageMetadata metadata = metadata(job);
        C context = reg.context;
        boolean mine;
        reg.deadMeters.handlerStarted();
        try {
            mine = engine.invoke(worker, job, () -> {
                handler.handleDead(message, metadata, context);
                return null;
            });
        } finally {
            reg.deadMeters.handlerEnded();
        }
        if (!mine) {
            return;
        }
        if (worker.error != null) {
            log.error(
                    "handleDead for topic '{}' failed on dead letter {}; it is acknowledged anyway",
                    reg.topic.name(),
                    job.messageId(),
                    worker.error);
        }
        reg.deadMeters.consumed(Outcome.Kind.ACK, worker.nanos);
        engine.apply(job, DeliveryPolicy.ACK, null, worker);
    }

    @Override
    public void timedOut(ConsumerEngine engine, Job job) {
        log.warn(
                "handleDead for topic '{}' exceeded its timeout on dead letter {}; interrupted and acknowledged",
                reg.topic.name(),
                job.messageId());
        engine.apply(job, DeliveryPolicy.ACK, null, null);
    }

    private DeadMessageMetadata metadata(Job job) {
        Delivery d = job.delivery;
        Map<String, String> h = d.headers();
        int count = d.deliveryCount();
        MessageMetadata message = new MessageMetadata(
                reg.topic.name(),
                job.retryCount,
                d.deliveryId(),
                d.redelivered(),
                count > 0 ? OptionalInt.of(count) : OptionalInt.empty(),
                h,
                d.partition() >= 0 ? OptionalInt.of(d.partition()) : OptionalInt.empty(),
                d.offset() >= 0 ? OptionalLong.of(d.offset()) : OptionalLong.empty(),
                d.timestampMs() >= 0 ? OptionalLong.of(d.timestampMs()) : OptionalLong.empty());
        String reason = h.getOrDefault(ShoveHeaders.DEATH_REASON, "unknown");
        String original = h.getOrDefault(ShoveHeaders.ORIGINAL_QUEUE, reg.topic.name());
        int deaths = Math.max(1, ConsumerEngine.parseInt(h.get(ShoveHeaders.DEATH_COUNT)));
        return new DeadMessageMetadata(message, reason, original, deaths);
    }
}
