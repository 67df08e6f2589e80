package dev.shove.internal;

import dev.shove.Position;
import dev.shove.internal.DeliveryPolicy.Decision;
import dev.shove.spi.Settlement;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a flow concluded about one job, for the engine to carry out: the policy's decision, and what travels with it.
 * Flows return verdicts; only the engine acts on them.
 *
 * @param job the job concluded; null only in {@link #ACKED}
 * @param decision what happens to the message
 * @param replies replies that commit with the acknowledgement (transactional backends only; else empty: the flow
 *     published them before concluding)
 * @param continuation runs after the settlement was confirmed, or null
 * @param seek where the handler asked the subscription to move, or null
 * @param failure what the handler threw, for the dead letter's {@code shove-exception-*} headers; or null
 */
record Verdict(
        @Nullable Job job,
        Decision decision,
        List<Settlement.Copy.ToTopic> replies,
        @Nullable Runnable continuation,
        @Nullable Position seek,
        @Nullable Throwable failure) {

    /**
     * A plain ack (no replies, continuation, seek or failure) of the job a {@link Flow#run} ran, which is the job it
     * concerns: one shared verdict instead of one per message, the most common verdict by far. Only {@link
     * Flow#run} returns it; wherever verdicts travel without their job (lists of them), each names its job.
     */
    static final Verdict ACKED = new Verdict(null, DeliveryPolicy.ACK, List.of(), null, null, null);

    /** A decision without replies, seek or failure. */
    static Verdict of(Job job, Decision decision, @Nullable Runnable continuation) {
        return new Verdict(job, decision, List.of(), continuation, null, null);
    }

    /** The same verdict, moving the subscription to {@code position} afterwards (none when null). */
    Verdict seeking(@Nullable Position position) {
        return position == null ? this : new Verdict(job, decision, replies, continuation, position, failure);
    }

    /** The same verdict, caused by what the handler threw (none when null). */
    Verdict failedWith(@Nullable Throwable error) {
        return error == null ? this : new Verdict(job, decision, replies, continuation, seek, error);
    }
}
