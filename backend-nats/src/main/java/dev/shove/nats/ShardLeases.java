package dev.shove.nats;

import dev.shove.spi.DurationText;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.impl.NatsKeyValueWatchSubscription;
import java.io.IOException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which consumer of a group owns which shard of a sequenced topic, across every process: leases in a JetStream
 * key-value bucket whose {@code max_age} is the lease time, so that an owner that stops renewing loses its shards
 * on the server's clock, without anyone's help.
 *
 * <p>Why leases: NATS 2.9 has no exclusive consumer, and per-key order needs exactly one reader per shard at a time.
 * Each consumer of the group is a member: it puts {@code {stream}.{group}.m.{member}} every tick and watches the
 * members' keys, whose server timestamps tell who is alive (a key the server expired is older than the lease
 * relative to the newest put seen). The live members, sorted, deal the shards round-robin; each member claims its
 * share with a create (which fails while another owner's lease lives), renews with an update on the revision it
 * holds (which fails once the lease was lost), and releases what is no longer its share gracefully: it stops reading
 * the shard, lets what is in flight settle, then deletes the lease, and the next member claims it at its next tick.
 *
 * <p>Thread-safety: {@link #tick()} runs on the transport's timer, one at a time; the listener's methods are called
 * from there.
 */
final class ShardLeases implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ShardLeases.class);

    /** What the subscription does when a shard comes and goes. */
    interface Listener {
        /** This member now owns {@code shard}; false if it could not start reading it (the lease is dropped). */
        boolean claimed(int shard);

        /** The lease of {@code shard} was lost (not renewed in time): stop reading it at once. */
        void lost(int shard);

        /** {@code shard} is no longer this member's share: stop reading it, settle what is in flight, then run. */
        void release(int shard, Runnable released);

        /** A tick is over: what it claimed may start reading now. */
        void dealt();
    }

    private final KeyValue kv;
    private final String prefix;
    private final String memberId;
    private final int shards;
    private final Duration lease;
    private final Listener listener;
    private final String what;

    private final Map<Integer, Long> owned = new ConcurrentHashMap<>();
    private final Set<Integer> releasing = ConcurrentHashMap.newKeySet();
    private final Map<String, ZonedDateTime> members = new ConcurrentHashMap<>();
    private volatile @Nullable ZonedDateTime newestSeen;
    private volatile @Nullable NatsKeyValueWatchSubscription watch;
    private volatile @Nullable Thread ticker;
    private volatile boolean closed;

    ShardLeases(
            KeyValue kv,
            String stream,
            String groupToken,
            String memberId,
            int shards,
            Duration lease,
            Listener listener,
            String what) {
        this.kv = kv;
        this.prefix = stream + "." + groupToken;
        this.memberId = memberId;
        this.shards = shards;
        this.lease = lease;
        this.listener = listener;
        this.what = what;
    }

    /** The interval between ticks: a fifth of the lease, so that a renewal can miss a few times. */
    Duration tickInterval() {
        return lease.dividedBy(5);
    }

    /**
     * Starts watching the members and ticking on a virtual thread of its own ({@code shove-nats-leases-...}: a tick
     * waits for the server, and must hold up nobody else); the first tick runs now.
     */
    void start(String name) {
        try {
            watch = kv.watch(prefix + ".m.*", new Watcher());
        } catch (IOException | JetStreamApiException e) {
            throw NatsTopology.unavailable("watching the members of " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while watching the members of " + what, e);
        }
        tick();
        ticker = Thread.ofVirtual().name("shove-nats-leases-" + name).start(() -> {
            while (!closed) {
                try {
                    Thread.sleep(tickInterval());
                    tick();
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    log.warn("{}: a lease tick failed: {}", what, e.toString());
                }
            }
        });
    }

    synchronized void tick() {
        if (closed) {
            return;
        }
        try {
            kv.put(prefix + ".m." + memberId, NatsTransport.utf8(memberId));
        } catch (IOException | JetStreamApiException e) {
            log.debug("renewing membership of {} failed: {}", what, e.toString());
        }
        List<String> alive = aliveMembers();
        if (!alive.contains(memberId)) {
            alive.add(memberId); // our own put may not have come back through the watch yet
            alive.sort(null);
        }
        int index = alive.indexOf(memberId);
        Set<Integer> share = new HashSet<>();
        for (int i = 0; i < shards; i++) {
            if (i % alive.size() == index) {
                share.add(i);
            }
        }
        for (Integer shard : List.copyOf(owned.keySet())) {
            if (releasing.contains(shard)) {
                continue;
            }
            if (!renew(shard)) {
                continue;
            }
            if (!share.contains(shard)) {
                releasing.add(shard);
                log.info("{}: shard {} goes to another of {} consumers", what, shard, alive.size());
                listener.release(shard, () -> dropLease(shard));
            }
        }
        for (int shard : share) {
            if (!owned.containsKey(shard) && !releasing.contains(shard)) {
                claim(shard);
            }
        }
        listener.dealt();
    }

    private List<String> aliveMembers() {
        ZonedDateTime newest = newestSeen;
        List<String> alive = new ArrayList<>();
        for (Map.Entry<String, ZonedDateTime> e : members.entrySet()) {
            if (newest == null || !e.getValue().plus(lease).isBefore(newest)) {
                alive.add(e.getKey());
            }
        }
        alive.sort(null);
        return alive;
    }

    private boolean renew(int shard) {
        Long revision = owned.get(shard);
        if (revision == null) {
            return false;
        }
        try {
            owned.put(shard, kv.update(key(shard), NatsTransport.utf8(memberId), revision));
            return true;
        } catch (JetStreamApiException e) {
            owned.remove(shard);
            log.warn(
                    "{}: the lease of shard {} was lost (not renewed within {}); it stops reading it",
                    what,
                    shard,
                    DurationText.of(lease));
            listener.lost(shard);
            return false;
        } catch (IOException e) {
            log.debug("{}: renewing the lease of shard {} failed: {}", what, shard, e.toString());
            return true; // not lost yet: the server did not answer; the next tick tries again
        }
    }

    private void claim(int shard) {
        long revision;
        try {
            revision = kv.create(key(shard), NatsTransport.utf8(memberId));
        } catch (JetStreamApiException e) {
            return; // another member's lease still lives
        } catch (IOException e) {
            log.debug("{}: claiming shard {} failed: {}", what, shard, e.toString());
            return;
        }
        owned.put(shard, revision);
        boolean started;
        try {
            started = listener.claimed(shard);
        } catch (RuntimeException e) {
            log.warn("{}: cannot start reading shard {}: {}; trying again later", what, shard, e.getMessage());
            started = false;
        }
        if (!started) {
            dropLease(shard);
        }
    }

    /** This member cannot read {@code shard} any more (its consumer is gone): its lease goes back, to be claimed anew. */
    synchronized void giveUp(int shard) {
        dropLease(shard);
    }

    /** Gives a shard's lease back at once, so that the next member need not wait for it to expire. */
    private void dropLease(int shard) {
        Long revision = owned.remove(shard);
        releasing.remove(shard);
        if (revision == null) {
            return;
        }
        try {
            kv.delete(key(shard), revision);
        } catch (IOException | JetStreamApiException e) {
            log.debug(
                    "{}: deleting the lease of shard {} failed ({}); it expires by itself", what, shard, e.toString());
        }
    }

    private String key(int shard) {
        return prefix + ".s." + shard;
    }

    /** Stops ticking and gives every lease and the membership back. The subscription has stopped reading. */
    @Override
    public void close() {
        closed = true;
        Thread t = ticker;
        if (t != null) {
            t.interrupt();
        }
        giveBack();
    }

    private synchronized void giveBack() {
        if (owned.isEmpty() && members.isEmpty() && watch == null) {
            return;
        }
        NatsKeyValueWatchSubscription w = watch;
        watch = null;
        members.clear();
        if (w != null) {
            try {
                w.unsubscribe();
            } catch (RuntimeException e) {
                log.debug("unwatching the members of {} failed: {}", what, e.toString());
            }
        }
        for (Integer shard : List.copyOf(owned.keySet())) {
            dropLease(shard);
        }
        try {
            kv.delete(prefix + ".m." + memberId);
        } catch (IOException | JetStreamApiException | RuntimeException e) {
            log.debug("leaving the members of {} failed: {}", what, e.toString());
        }
    }

    /** Keeps {@link #members} and {@link #newestSeen} from the bucket's updates. */
    private final class Watcher implements KeyValueWatcher {
        @Override
        public void watch(KeyValueEntry entry) {
            String member = entry.getKey().substring(entry.getKey().lastIndexOf('.') + 1);
            if (entry.getOperation() != KeyValueOperation.PUT) {
                members.remove(member);
                return;
            }
            ZonedDateTime created = entry.getCreated();
            members.put(member, created);
            ZonedDateTime newest = newestSeen;
            if (newest == null || created.isAfter(newest)) {
                newestSeen = created;
            }
        }

        @Override
        public void endOfData() {}
    }
}
