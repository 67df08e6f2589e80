package dev.shove.internal;

import dev.shove.DeadMessageMetadata;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flow of a topic's dead letters: decode, call {@code handleDead}, and settle whatever happens. A dead letter is
 * never retried. One larger than the registration's size limit is not decoded (decoding it could exhaust the heap):
 * like one that cannot be decoded, it goes to {@code handleUnreadableDead} as bytes.
 *
 * <p>It reads either the registration's own dead letters as they are stored ({@link DeadLetterFeed}, {@code keeps}):
 * settling them leaves them in the queue; or the queue itself, and then settling removes them, and an unreadable one
 * whose {@code handleUnreadableDead} is the default is gone, counted in {@code shove.messages.discarded}.
 */
final class DeadLetterFlow<T, C> implements Flow {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterFlow.class);

    /** The dead-letter methods of a single-message or batch handler. */
    interface DeadHandler<T, C> {
        void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception;

        void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception;
    }

    private final DeliveryPipeline<T, C> pipeline;
    private final DeadHandler<T, ? super C> handler;
    private final boolean keeps;

    /** {@code keeps}: the dead letters stay in the queue after the call (the flow reads a {@link DeadLetterFeed}). */
    DeadLetterFlow(DeliveryPipeline<T, C> pipeline, DeadHandler<T, ? super C> handler, boolean keeps) {
        this.pipeline = pipeline;
        this.handler = handler;
        this.keeps = keeps;
    }

    @Override
    public @Nullable Verdict run(Worker worker, Job job) {
        byte[] payload = job.delivery.payload();
        T message = null;
        String unreadable = pipeline.oversize(payload.length);
        if (unreadable == null) {
            try {
                message = pipeline.topic.codec().decode(payload, job.delivery.headers());
            } catch (StackOverflowError e) {
                unreadable = DeliveryPipeline.firstLine(e);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                unreadable = DeliveryPipeline.firstLine(e);
            }
        }
        DeadMessageMetadata metadata = metadata(job);
        C context = pipeline.context;
        job.runs++;
        T decoded = message;
        boolean mine;
        if (decoded != null) {
            mine = worker.invoke(job, () -> {
                handler.handleDead(decoded, metadata, context);
                return null;
            });
        } else {
            log.debug(
                    "dead letter {} in '{}' cannot be decoded: {}", job.messageId(), job.delivery.queue(), unreadable);
            UnreadableDrops.take();
            mine = worker.invoke(job, () -> {
                handler.handleUnreadableDead(payload, metadata, context);
                return null;
            });
            if (UnreadableDrops.take() && !keeps) {
                log.warn(
                        "dead letter {} of topic '{}' cannot be decoded and is removed from '{}' ({}); implement"
                                + " handleUnreadableDead to keep its bytes, or keep dead letters in the queue"
                                + " (DeadLetterHandling.KEEP)",
                        job.messageId(),
                        pipeline.topic.name(),
                        job.delivery.queue(),
                        unreadable);
                pipeline.deadMeters.discarded(unreadable.startsWith("oversize") ? "oversize" : "decode");
            }
        }
        if (!mine) {
            return null;
        }
        if (worker.error != null) {
            log.error(
                    "handleDead for topic '{}' failed on dead letter {}; it is {} all the same",
                    pipeline.topic.name(),
                    job.messageId(),
                    keeps ? "kept in the dead-letter queue" : "removed from the dead-letter queue",
                    worker.error);
        }
        pipeline.deadMeters.consumed(Outcome.Kind.ACK, worker.nanos);
        return Verdict.of(job, DeliveryPolicy.ACK, null);
    }

    @Override
    public List<Verdict> timedOut(Object token) {
        Job job = (Job) token;
        log.warn(
                "handleDead for topic '{}' exceeded its timeout on dead letter {}; interrupted, and the dead letter is {}",
                pipeline.topic.name(),
                job.messageId(),
                keeps ? "kept" : "removed");
        return List.of(Verdict.of(job, DeliveryPolicy.ACK, null));
    }

    /** A dead letter is never retried: one that crashed the flow is acknowledged, as if handleDead had thrown. */
    @Override
    public List<Verdict> crashed(List<Job> jobs, Throwable error) {
        List<Verdict> verdicts = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            log.error(
                    "dead letter {} of topic '{}' is {} unhandled",
                    job.messageId(),
                    pipeline.topic.name(),
                    keeps ? "kept" : "removed");
            verdicts.add(Verdict.of(job, DeliveryPolicy.ACK, null));
        }
        return verdicts;
    }

    private DeadMessageMetadata metadata(Job job) {
        Map<String, String> h = job.delivery.headers();
        MessageMetadata message = pipeline.metadata(job);
        String reason = Failures.oneLine(h.getOrDefault(ShoveHeaders.DEATH_REASON, "unknown"), Failures.MAX_REASON);
        String original =
                Failures.oneLine(h.getOrDefault(ShoveHeaders.ORIGINAL_QUEUE, pipeline.topic.name()), Failures.MAX_ID);
        int deaths = Math.max(1, pipeline.deathCount(h));
        return new DeadMessageMetadata(message, reason, original, deaths);
    }
}
