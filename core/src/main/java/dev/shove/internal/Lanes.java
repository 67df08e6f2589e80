package dev.shove.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Per-key lanes of a sequenced consumer: at most one job of a key is active (running, or waiting out a retry in
 * place); later jobs of that key queue behind it in arrival order, while other keys flow. Guarded by its own monitor;
 * every operation is O(1) apart from withdrawals.
 */
final class Lanes {
    private static final class Lane {
        Job active;
        final ArrayDeque<Job> queued = new ArrayDeque<>(2);

        Lane(Job active) {
            this.active = active;
        }
    }

    private final Map<String, Lane> lanes = new HashMap<>();
    private int queued;

    /** Takes a new job: true when its key was free (the job is now active and may run), false when it queued. */
    synchronized boolean admit(Job job) {
        Lane lane = lanes.get(laneKey(job));
        if (lane == null) {
            lanes.put(laneKey(job), new Lane(job));
            return true;
        }
        lane.queued.add(job);
        queued++;
        return false;
    }

    /** The active job of its key is done: returns the key's next job (now active), or null when the key is free. */
    synchronized @Nullable Job release(Job job) {
        String key = laneKey(job);
        Lane lane = lanes.get(key);
        if (lane == null || lane.active != job) {
            return null;
        }
        Job next = lane.queued.poll();
        if (next == null) {
            lanes.remove(key);
            return null;
        }
        queued--;
        lane.active = next;
        return next;
    }

    /** Removes every queued (not active) job, for a drain. Lanes with an active job stay until it is released. */
    synchronized List<Job> takeQueued() {
        List<Job> out = new ArrayList<>(queued);
        for (Lane lane : lanes.values()) {
            out.addAll(lane.queued);
            lane.queued.clear();
        }
        queued = 0;
        return out;
    }

    /**
     * Withdraws the queued jobs matching {@code which} (those whose {@link Job#withdraw()} succeeds), and, for lanes
     * whose active job was withdrawn by the caller already, promotes the next remaining job. Returns the withdrawn
     * jobs; {@code promoted} receives the jobs that became active and must be dispatched.
     */
    synchronized List<Job> withdraw(Predicate<Job> which, List<Job> promoted) {
        List<Job> out = new ArrayList<>();
        Iterator<Map.Entry<String, Lane>> it = lanes.entrySet().iterator();
        while (it.hasNext()) {
            Lane lane = it.next().getValue();
            Iterator<Job> q = lane.queued.iterator();
            while (q.hasNext()) {
                Job j = q.next();
                if (which.test(j) && j.withdraw()) {
                    q.remove();
                    queued--;
                    out.add(j);
                }
            }
            if (lane.active.isWithdrawn()) {
                Job next = lane.queued.poll();
                if (next == null) {
                    it.remove();
                } else {
                    queued--;
                    lane.active = next;
                    promoted.add(next);
                }
            }
        }
        return out;
    }

    synchronized int queued() {
        return queued;
    }

    synchronized boolean isEmpty() {
        return lanes.isEmpty();
    }

    private static String laneKey(Job job) {
        return job.key == null ? "" : job.key;
    }
}
