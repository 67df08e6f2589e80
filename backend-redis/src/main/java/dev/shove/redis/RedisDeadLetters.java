package dev.shove.redis;

import dev.shove.ShoveException;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.models.stream.PendingMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A topic's dead-letter stream ({@code shove:{orders}:orders-dlq}) as one consumer group sees it, for the dead-letter
 * tools. The dead letters are the entries the group has not consumed: those it was handed and has not acknowledged
 * (its pending entries) and those past its last-delivered id; every entry of the stream when the group does not exist
 * on it yet (a dead-letter consumer creates it at the stream's start).
 *
 * <p>Reading is in place: a {@link Pass} reads the pending entries by id and then the rest with {@code XRANGE}, up to
 * the last entry present when it began, and claims nothing, so a running dead-letter consumer of the group still sees
 * them. Removing deletes the entries ({@code XDEL}) and acknowledges them for the group in one script, so a removed
 * letter is neither read again nor left pending to a consumer that would find it empty.
 *
 * <p>Every key of a topic shares its hash tag, so on a Redis Cluster all of this runs on the stream's own node.
 * Thread-safe; a pass is used by one thread at a time.
 */
final class RedisDeadLetters implements DeadLetterStore {
    /** Entries asked for per command while counting or reading. */
    private static final int CHUNK = 1_000;

    private final RedisTransport transport;
    private final RedisClusterAsyncCommands<String, byte[]> redis;
    private final Topic<?> topic;
    private final String queue;
    private final String stream;
    private final String group;

    RedisDeadLetters(RedisTransport transport, Topic<?> topic, String queue, String group) {
        this.transport = transport;
        this.redis = transport.redis();
        this.topic = topic;
        this.queue = queue;
        this.stream = transport.keys().deadLetters(topic, queue);
        this.group = group;
    }

    @Override
    public String queue() {
        return queue;
    }

    /**
     * The group's pending entries plus its lag; where Redis cannot tell the lag (before 7.0, or after an entry past
     * the group's position was deleted) the entries past its position are counted with {@code XRANGE}.
     */
    @Override
    public long count() {
        GroupState state = state();
        if (state == null) {
            return await(redis.xlen(stream).toCompletableFuture(), "count the dead letters");
        }
        if (state.lag >= 0) {
            return state.pending + state.lag;
        }
        long after = 0;
        String from = state.lastDelivered;
        while (true) {
            List<StreamMessage<String, byte[]>> page = await(
                    redis.xrange(stream, Range.create(from, "+").gt(from), Limit.from(CHUNK))
                            .toCompletableFuture(),
                    "count the dead letters");
            after += page.size();
            if (page.size() < CHUNK) {
                return state.pending + after;
            }
            from = page.getLast().getId();
        }
    }

    @Override
    public boolean readsInPlace() {
        return true;
    }

    @Override
    public Scan scan() {
        GroupState state = state();
        List<StreamMessage<String, byte[]>> last = await(
                redis.xrevrange(stream, Range.create("-", "+"), Limit.from(1)).toCompletableFuture(),
                "find the last dead letter");
        String end = last.isEmpty() ? null : last.getFirst().getId();
        return state == null ? new Pass("0-0", false, end) : new Pass(state.lastDelivered, state.pending > 0, end);
    }

    /** What Redis says of the group on the dead-letter stream, or null when it has no such group. */
    private @Nullable GroupState state() {
        List<Object> groups;
        try {
            groups = await(redis.xinfoGroups(stream).toCompletableFuture(), "read the consumer groups");
        } catch (ShoveException e) {
            if (String.valueOf(e.getMessage()).contains("no such key")) {
                throw new TopologyException("topic '" + topic.name() + "' has no dead-letter stream " + stream
                        + " on Redis; declare the topic first (broker.topology().declare(topic))");
            }
            throw e;
        }
        for (Object g : groups) {
            Map<String, Object> fields = RedisInfo.fields(g);
            if (group.equals(RedisInfo.string(fields.get("name")))) {
                Object lag = fields.get("lag");
                return new GroupState(
                        RedisInfo.string(fields.get("last-delivered-id")),
                        RedisInfo.number(fields.get("pending")),
                        lag == null ? -1 : RedisInfo.number(lag));
            }
        }
        return null;
    }

    /** A group's position, pending count and lag (-1: unknown) on the dead-letter stream. */
    private record GroupState(String lastDelivered, long pending, long lag) {}

    private <T> T await(CompletableFuture<T> future, String what) {
        return transport.await(
                future,
                what + " of topic '" + topic.name() + "' in dead-letter stream " + stream + " (group '" + group + "')");
    }

    /**
     * One pass: first the group's pending entries (those up to its last-delivered id), then the entries after that
     * id up to the last one present when the pass began. Both in id order, so the pass is in the stream's order.
     */
    final class Pass implements Scan {
        private final String lastDelivered;
        private final @Nullable String end;
        /** The last pending id read (exclusive start of the next XPENDING); null while none was. */
        private @Nullable String pendingFrom;

        private boolean pendingDone;
        /** The last entry id read past the group's position (exclusive start of the next XRANGE). */
        private String from;

        private boolean done;
        private boolean closed;

        Pass(String lastDelivered, boolean hasPending, @Nullable String end) {
            this.lastDelivered = lastDelivered;
            this.pendingDone = !hasPending;
            this.from = lastDelivered;
            this.end = end;
            this.done = end == null || RedisEntries.compare(end, lastDelivered) <= 0;
        }

        @Override
        public List<Delivery> next(int max) {
            checkOpen();
            if (max < 1) {
                throw new IllegalArgumentException("max must be at least 1, was " + max);
            }
            List<Delivery> page = new ArrayList<>(Math.min(max, CHUNK));
            while (page.size() < max && !pendingDone) {
                readPending(page, max - page.size());
            }
            String last = end;
            while (page.size() < max && !done && last != null) {
                int n = Math.min(CHUNK, max - page.size());
                List<StreamMessage<String, byte[]>> entries = await(
                        redis.xrange(stream, Range.create(from, last).gt(from).lte(last), Limit.from(n))
                                .toCompletableFuture(),
                        "read dead letters");
                for (StreamMessage<String, byte[]> m : entries) {
                    page.add(letter(m.getId(), m.getBody()));
                    from = m.getId();
                }
                done = entries.size() < n || from.equals(last);
            }
            return page;
        }

        /**
         * Reads up to {@code n} of the group's pending entries: their ids from {@code XPENDING}, then each entry by
         * id (one pipelined {@code XRANGE id id} each). A pending entry deleted meanwhile is skipped.
         */
        private void readPending(List<Delivery> page, int n) {
            int ask = Math.min(CHUNK, n);
            Range<String> range = pendingFrom == null
                    ? Range.create("-", lastDelivered).lte(lastDelivered)
                    : Range.create(pendingFrom, lastDelivered).gt(pendingFrom).lte(lastDelivered);
            List<PendingMessage> pending = await(
                    redis.xpending(stream, group, range, Limit.from(ask)).toCompletableFuture(),
                    "list pending dead letters");
            List<CompletableFuture<List<StreamMessage<String, byte[]>>>> reads = new ArrayList<>(pending.size());
            for (PendingMessage p : pending) {
                reads.add(redis.xrange(stream, Range.create(p.getId(), p.getId()), Limit.from(1))
                        .toCompletableFuture());
            }
            for (CompletableFuture<List<StreamMessage<String, byte[]>>> read : reads) {
                List<StreamMessage<String, byte[]>> entry = await(read, "read a pending dead letter");
                if (!entry.isEmpty()) {
                    page.add(letter(entry.getFirst().getId(), entry.getFirst().getBody()));
                }
            }
            if (!pending.isEmpty()) {
                pendingFrom = pending.getLast().getId();
            }
            pendingDone = pending.size() < ask;
        }

        private RedisDelivery letter(String id, Map<String, byte[]> body) {
            RedisEntries.Message message = RedisEntries.read(body);
            // no delivery count: what the dead-letter consumer was handed says nothing of the message's deliveries
            return new RedisDelivery(this, stream, queue, id, message.payload(), message.headers(), 0, false);
        }

        @Override
        public void remove(List<Delivery> letters) {
            checkOpen();
            List<String> ids = new ArrayList<>(letters.size());
            for (Delivery d : letters) {
                if (!(d instanceof RedisDelivery r) || r.owner != this) {
                    throw new IllegalArgumentException("dead letter " + d.deliveryId()
                            + " was not read by this pass over dead-letter stream " + stream);
                }
                ids.add(r.id);
            }
            List<CompletableFuture<Long>> calls = new ArrayList<>();
            for (int from = 0; from < ids.size(); from += CHUNK) {
                List<String> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
                byte[][] args = new byte[chunk.size() + 1][];
                args[0] = group.getBytes(StandardCharsets.UTF_8);
                for (int i = 0; i < chunk.size(); i++) {
                    args[i + 1] = chunk.get(i).getBytes(StandardCharsets.UTF_8);
                }
                calls.add(RedisScripts.REMOVE_DEAD_LETTERS.run(
                        redis, ScriptOutputType.INTEGER, new String[] {stream}, args));
            }
            RuntimeException failure = null;
            for (CompletableFuture<Long> call : calls) {
                try {
                    await(call, "remove dead letters");
                } catch (RuntimeException e) {
                    failure = failure != null ? failure : e;
                }
            }
            if (failure != null) {
                throw failure;
            }
        }

        /** Nothing to give back: a pass holds nothing on Redis. */
        @Override
        public void close() {
            closed = true;
        }

        private void checkOpen() {
            if (closed) {
                throw new IllegalStateException("this pass over dead-letter stream " + stream + " is closed");
            }
        }
    }

    @Override
    public String toString() {
        return "RedisDeadLetters[" + stream + ", group=" + group + "]";
    }
}
