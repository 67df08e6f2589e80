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
 * @param job the job concluded
 * @param decision what happens to the message
 * @param replies replies that commit with the acknowledgement (transactional backends only; else empty: the flow
 *     published them before concluding)
 * @param continuation runs after the settlement was confirmed, or null
 * @param seek where the handler asked the subscription to move, or null
 * @param failure what the handler threw, for the dead letter's {@code shove-exception-*} headers; or null
 */
record Verdict(
        Job job,
        Decision decision,
        List<Settlement.Copy.ToTopic> replies,
        @Nullable Runnable continuation,
        @Nullable Position seek,
        @Nullable Throwable failure) {

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
