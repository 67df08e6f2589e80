package dev.shove.internal;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a consumer runs its jobs with: the main flow (the handler), the batch flow, or the dead-letter flow ({@code
 * handleDead}). A flow takes a started job, runs it through the registration's {@link DeliveryPipeline} and the
 * handler, and returns its {@link Verdict}; it never settles anything itself: the engine carries out what it returns.
 * One flow per consumer (it holds that consumer's handler instance), called from many workers at once.
 */
interface Flow {

    /**
     * Runs a started job on {@code worker}; null when the handler call was taken over (the taker settles it). A plain
     * ack may come back as {@link Verdict#ACKED}, which names no job: the job is {@code job}.
     */
    @Nullable
    Verdict run(Worker worker, Job job);

    /** Runs a batch of started jobs on {@code worker} (batch flows only); empty when the call was taken over. */
    default List<Verdict> runBatch(Worker worker, List<Job> batch) {
        throw new UnsupportedOperationException("not a batch flow");
    }

    /**
     * The handler passed its deadline and the watchdog took it over: the verdicts for the jobs of {@code token}, what
     * was handed to {@link Worker#invoke}: a job, or the list of jobs of a batch.
     */
    List<Verdict> timedOut(Object token);

    /**
     * Something other than the handler threw while these jobs ran (a virtual machine error, a shove bug): their
     * verdicts, such that no message is lost and none loops hot.
     */
    List<Verdict> crashed(List<Job> jobs, Throwable error);

    /** The lane of {@code key} drained: no message of that key is left in the consumer. */
    default void laneDrained(String key) {}

    /** The jobs behind a watchdog token: one job, or a batch. */
    static List<Job> jobsOf(@Nullable Object token) {
        if (token instanceof Job job) {
            return List.of(job);
        }
        if (token instanceof List<?> list) {
            List<Job> jobs = new ArrayList<>(list.size());
            for (Object o : list) {
                jobs.add((Job) o);
            }
            return jobs;
        }
        return List.of();
    }
}
