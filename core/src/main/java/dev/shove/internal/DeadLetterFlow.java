package dev.shove.internal;

import dev.shove.DeadMessageMetadata;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of a topic's dead-letter queue: decode, call {@code handleDead}, and acknowledge whatever happens. A
 * dead letter is never retried. Size limits do not apply (an oversize message was dead-lettered for its size, and
 * handleDead should see it); one that cannot be decoded is acknowledged without handleDead: a discard, so it is logged
 * and counted in {@code shove.messages.discarded}.
 */
final class DeadLetterFlow<T, C> implements ConsumerEngine.Flow {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterFlow.class);

    /** The dead-letter methods of a single-message or batch handler. */
    interface DeadHandler<T, C> {
        void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception;

        void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception;

        /** Whether handleUnreadableDead is the library's default (which drops the bytes). */
        boolean dropsUnreadable();
    }

    private final Registration<T, C> reg;
    private final DeadHandler<T, ? super C> handler;

    DeadLetterFlow(Registration<T, C> reg, DeadHandler<T, ? super C> handler) {
        this.reg = reg;
        this.handler = handler;
    }

    @Override
    public void run(ConsumerEngine engine, ConsumerEngine.Worker worker, Job job) {
        byte[] payload = job.delivery.payload();
        // No size limit here: an oversize message was dead-lettered for its size, and handleDead must see it.
        T message = null;
        String unreadable = null;
        try {
            message = reg.topic.codec().decode(payload);
        } catch (Exception | StackOverflowError e) {
            unreadable = MainFlow.firstLine(e);
        }
        DeadMessageMetadata metadata = metadata(job);
        C context = reg.context;
        job.runs++;
        T decoded = message;
        boolean mine;
        if (decoded != null) {
            mine = engine.invoke(worker, job, () -> {
                handler.handleDead(decoded, metadata, context);
                return null;
            });
        } else {
            log.debug(
                    "dead letter {} in '{}' cannot be decoded: {}", job.messageId(), job.delivery.queue(), unreadable);
            if (handler.dropsUnreadable()) {
                reg.deadMeters.discarded("decode");
            }
            mine = engine.invoke(worker, job, () -> {
                handler.handleUnreadableDead(payload, metadata, context);
                return null;
            });
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
    public void timedOut(ConsumerEngine engine, Object token) {
        Job job = (Job) token;
        log.warn(
                "handleDead for topic '{}' exceeded its timeout on dead letter {}; interrupted and acknowledged",
                reg.topic.name(),
                job.messageId());
        engine.apply(job, DeliveryPolicy.ACK, null, null);
    }

    private DeadMessageMetadata metadata(Job job) {
        Map<String, String> h = job.delivery.headers();
        MessageMetadata message = MainFlow.metadata(reg.topic.name(), job);
        String reason = h.getOrDefault(ShoveHeaders.DEATH_REASON, "unknown");
        String original = h.getOrDefault(ShoveHeaders.ORIGINAL_QUEUE, reg.topic.name());
        int deaths = Math.max(1, ConsumerEngine.parseInt(h.get(ShoveHeaders.DEATH_COUNT)));
        return new DeadMessageMetadata(message, reason, original, deaths);
    }
}
