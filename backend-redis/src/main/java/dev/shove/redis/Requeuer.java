package dev.shove.redis;

import dev.shove.HoldTier;
import dev.shove.Topic;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings held copies back to their stream when they are due: one thread per transport ({@code
 * shove-redis-requeue-...}) looking at the hold tiers of every unsequenced topic consumed in this process.
 *
 * <p>Why it is safe with any number of processes: a tier is a sorted set scored by due time, and each due member is
 * moved by the {@link RedisScripts#REQUEUE} script, which removes it and appends it to the stream in one atomic step;
 * the removal decides, so of several requeuers looking at the same member exactly one appends it, and a crash
 * between the two steps cannot happen. A copy is never moved before its score (its due time).
 */
final class Requeuer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Requeuer.class);
    private static final int BATCH = 100;

    private final RedisTransport transport;
    private final Map<String, Topic<?>> topics = new HashMap<>();
    private final Map<String, Integer> users = new HashMap<>();
    private final Thread thread;
    private volatile boolean closing;
    private long moved;

    Requeuer(RedisTransport transport) {
        this.transport = transport;
        this.thread = Thread.ofPlatform()
                .name("shove-redis-requeue-" + transport.context().clientName())
                .daemon()
                .unstarted(this::run);
    }

    /** A consumer of {@code topic}'s main stream opened: look after its tiers. */
    synchronized void acquire(Topic<?> topic) {
        if (topic.isSequenced() || topic.isBroadcast()) {
            return; // sequenced retries wait in place; broadcasts never retry
        }
        topics.putIfAbsent(topic.name(), topic);
        users.merge(topic.name(), 1, Integer::sum);
        if (!thread.isAlive() && !closing) {
            thread.start();
        }
        LockSupport.unpark(thread);
    }

    synchronized void release(Topic<?> topic) {
        if (!users.containsKey(topic.name())) {
            return; // never acquired (its subscription failed to start)
        }
        Integer left = users.computeIfPresent(topic.name(), (k, n) -> n <= 1 ? null : n - 1);
        if (left == null) {
            topics.remove(topic.name());
        }
    }

    private synchronized List<Topic<?>> active() {
        return new ArrayList<>(topics.values());
    }

    private void run() {
        long poll = transport.config().holdPoll().toNanos();
        while (!closing) {
            boolean more = false;
            for (Topic<?> topic : active()) {
                for (HoldTier tier : topic.holdTiers()) {
                    try {
                        more |= moveDue(topic, tier);
                    } catch (RuntimeException e) {
                        if (!closing) {
                            log.warn(
                                    "cannot move due retries of topic '{}' back from its hold tier {}: {}; trying"
                                            + " again",
                                    topic.name(),
                                    tier.queue(),
                                    RedisTransport.rootMessage(e));
                            transport.context().backendError("redis", "requeue");
                        }
                    }
                }
            }
            if (!more && !closing) {
                LockSupport.parkNanos(this, poll);
            }
        }
        log.debug("the Redis requeuer stopped after moving {} held copies back", moved);
    }

    /** Moves the due copies of one tier; true when there may be more due right now. */
    private boolean moveDue(Topic<?> topic, HoldTier tier) {
        String zset = transport.keys().hold(topic, tier);
        String stream = transport.keys().main(topic);
        long now = System.currentTimeMillis();
        List<byte[]> due = transport.await(
                transport
                        .redis()
                        .zrangebyscore(
                                zset, Range.create(Double.NEGATIVE_INFINITY, (double) now), Limit.create(0, BATCH))
                        .toCompletableFuture(),
                "read hold tier " + zset);
        if (due.isEmpty()) {
            return false;
        }
        byte[][] trim = transport.trimArgs(topic);
        List<CompletableFuture<Long>> results = new ArrayList<>(due.size());
        for (byte[] member : due) {
            List<byte[]> args = new ArrayList<>();
            args.add(member);
            args.add(trim[0]);
            args.add(trim[1]);
            try {
                args.addAll(RedisEntries.flatten(RedisEntries.fieldsOf(member)));
            } catch (IllegalArgumentException e) {
                log.warn("hold tier {} holds a member that is not a shove copy; removing it: {}", zset, e.getMessage());
                transport.redis().zrem(zset, member);
                continue;
            }
            results.add(RedisScripts.REQUEUE.run(
                    transport.redis(),
                    ScriptOutputType.INTEGER,
                    new String[] {zset, stream},
                    args.toArray(byte[][]::new)));
        }
        for (CompletableFuture<Long> r : results) {
            try {
                Long outcome = r.get(transport.config().responseTimeout().toMillis(), TimeUnit.MILLISECONDS);
                if (outcome != null && outcome == 1) {
                    moved++;
                } else if (outcome != null && outcome == -1) {
                    log.warn(
                            "topic '{}' has no stream {} any more; its held retries stay in {}",
                            topic.name(),
                            stream,
                            new String(zset.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (Exception e) {
                throw new IllegalStateException(RedisTransport.rootMessage(e), e);
            }
        }
        return due.size() == BATCH;
    }

    @Override
    public void close() {
        closing = true;
        LockSupport.unpark(thread);
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join(transport.config().responseTimeout().toMillis() + 2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
