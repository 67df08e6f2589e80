package dev.shove.redis;

import dev.shove.AuthenticationException;
import dev.shove.BrokerUnavailableException;
import dev.shove.HoldTier;
import dev.shove.PublishException;
import dev.shove.ShoveException;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.Bounds;
import dev.shove.spi.Capabilities;
import dev.shove.spi.ConnectErrors;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.DurationText;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis transport: one {@link RedisConnector} (a shared connection, and one blocking-read connection per
 * subscription), the topology (streams, consumer groups, the meta hash of each topic), publishing with {@code XADD},
 * one {@link RedisSubscription} per consumer ({@link RedisBroadcast} for broadcast topics) and one {@link Requeuer}
 * for the hold tiers of the topics consumed here. Thread-safe.
 */
final class RedisTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(RedisTransport.class);

    static final Capabilities CAPABILITIES = Capabilities.builder()
            .exactDelays(Bounds.MAX_DELAY)
            .durableRetries()
            .durableSequencedRetries()
            .deliveryCount()
            .redeliveryFlag()
            .timestamps()
            .competingConsumers()
            .nativeBatches()
            .seek()
            .broadcast()
            .build();

    private final RedisConfig config;
    private final TransportContext context;
    private final RedisConnector connector;
    private final RedisKeys keys;
    private final ScheduledExecutorService timer;
    private final Requeuer requeuer;
    private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();
    private final Map<String, Set<String>> groupsByTopic = new ConcurrentHashMap<>();
    private final Map<String, Integer> startUsers = new ConcurrentHashMap<>();
    private volatile boolean closed;

    RedisTransport(RedisConfig config, TransportContext context) {
        this.config = config;
        this.context = context;
        this.connector =
                new RedisConnector(config, context.clientName(), context.observed() ? context.meterRegistry() : null);
        try {
            String version = connector.serverVersion(config.connectTimeout().plus(config.responseTimeout()));
            if (!atLeast(version, RedisConfig.MIN_VERSION)) {
                throw new BrokerUnavailableException("Redis at " + config.redactedUri() + " is version " + version
                        + "; shove's Redis backend needs 6.2 or newer (XAUTOCLAIM, XADD NOMKSTREAM, MINID)");
            }
            log.info(
                    "connected to Redis {} at {} as {}{}",
                    version,
                    config.redactedUri(),
                    context.clientName(),
                    config.isCluster() ? " (cluster)" : "");
        } catch (ShoveException e) {
            connector.close();
            throw e;
        } catch (Exception e) {
            connector.close();
            AuthenticationException refused = RedisConnector.refused(config, e);
            if (refused != null) {
                throw refused;
            }
            throw ConnectErrors.cannotConnect("Redis", config.redactedUri(), config.connectTimeout(), e, "redis");
        }
        this.keys = new RedisKeys(config.keyPrefix());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform()
                .name("shove-redis-timer-" + context.clientName())
                .daemon()
                .unstarted(r));
        this.requeuer = new Requeuer(this);
    }

    static boolean atLeast(String version, int[] min) {
        String[] parts = version.split("\\.");
        for (int i = 0; i < min.length; i++) {
            int v;
            try {
                v = i < parts.length ? Integer.parseInt(parts[i].replaceAll("\\D.*", "")) : 0;
            } catch (NumberFormatException e) {
                return false;
            }
            if (v != min[i]) {
                return v > min[i];
            }
        }
        return true;
    }

    RedisConfig config() {
        return config;
    }

    TransportContext context() {
        return context;
    }

    RedisConnector connector() {
        return connector;
    }

    RedisClusterAsyncCommands<String, byte[]> redis() {
        return connector.async();
    }

    RedisKeys keys() {
        return keys;
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    // ---------------------------------------------------------------- topology

    /** The shape of a topic recorded in its meta hash: what another declaration must agree with. */
    static String shape(Topic<?> topic) {
        if (topic.isBroadcast()) {
            return "broadcast";
        }
        return topic.sequencing().map(s -> "sequenced:" + s.routingShards()).orElse("unsequenced");
    }

    @Override
    public void declare(Topic<?> topic) {
        checkOpen();
        List<String> k = new ArrayList<>();
        k.add(keys.meta(topic));
        k.addAll(keys.streams(topic));
        topic.dlq().ifPresent(d -> k.add(keys.deadLetters(topic, d)));
        String shape = shape(topic);
        Object answer;
        try {
            answer = await(
                    RedisScripts.DECLARE.<Object>run(
                            redis(),
                            ScriptOutputType.VALUE,
                            k.toArray(String[]::new),
                            shape.getBytes(StandardCharsets.UTF_8)),
                    "declare topic '" + topic.name() + "'");
        } catch (ShoveException e) {
            throw new TopologyException("cannot declare topic '" + topic.name() + "' on Redis: " + e.getMessage(), e);
        }
        String result = answer instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(answer);
        if (!result.equals("OK")) {
            throw new TopologyException(("topic '%s' exists on Redis as a %s topic (key %s), not as the %s topic"
                            + " declared now; use another name, or delete its keys (%s*) to redeclare it")
                    .formatted(topic.name(), result, keys.meta(topic), shape, keys.main(topic)));
        }
    }

    /** Creates consumer group {@code group} on {@code stream} at the stream's start, unless it exists. */
    void ensureGroup(Topic<?> topic, String stream, String group) {
        try {
            await(
                    redis().xgroupCreate(XReadArgs.StreamOffset.from(stream, "0"), group, new XGroupCreateArgs())
                            .toCompletableFuture(),
                    "create consumer group '" + group + "'");
        } catch (ShoveException e) {
            Throwable cause = e.getCause();
            String message = String.valueOf(e.getMessage());
            if (cause instanceof RedisBusyException || message.contains("BUSYGROUP")) {
                return;
            }
            if (message.contains("requires the key to exist") || message.contains("no such key")) {
                throw new TopologyException("topic '" + topic.name() + "' has no stream " + stream
                        + " on Redis; declare the topic first (broker.topology().declare(topic))");
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- publishing

    @Override
    public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
        try {
            checkOpen();
            String stream = keys.streamFor(topic, message.shard());
            XAddArgs args = xaddArgs(topic);
            Map<String, byte[]> fields = RedisEntries.fields(message.payload(), message.headers());
            return redis().xadd(stream, args, fields).toCompletableFuture().handle((id, error) -> {
                if (error != null) {
                    throw publishError(topic, error);
                }
                if (id == null) {
                    throw new TopologyException("topic '" + topic.name() + "' is not declared on Redis (no stream "
                            + stream + "); declare it first with broker.topology().declare(topic)");
                }
                return null;
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    e instanceof ShoveException || e instanceof IllegalStateException ? e : publishError(topic, e));
        }
    }

    /** {@code NOMKSTREAM} (an undeclared topic is refused, not created) and the topic's trimming. */
    XAddArgs xaddArgs(Topic<?> topic) {
        XAddArgs args = new XAddArgs().nomkstream();
        if (topic.isBroadcast()) {
            return args.maxlen(config.broadcastMaxLen()).approximateTrimming();
        }
        RedisTrim trim = config.trim(topic.name()).orElse(null);
        if (trim == null) {
            return args;
        }
        if (trim.length() > 0) {
            return args.maxlen(trim.length()).approximateTrimming();
        }
        return args.minId(Math.max(0, System.currentTimeMillis() - trim.age().toMillis()) + "-0")
                .approximateTrimming();
    }

    /** The trim of a topic as Lua script arguments: kind ('' for none) and value. */
    byte[][] trimArgs(Topic<?> topic) {
        RedisTrim trim = config.trim(topic.name()).orElse(null);
        if (trim == null) {
            return new byte[][] {new byte[0], new byte[0]};
        }
        String[] args = trim.xaddArgs(System.currentTimeMillis());
        return new byte[][] {args[0].getBytes(StandardCharsets.UTF_8), args[1].getBytes(StandardCharsets.UTF_8)};
    }

    private static RuntimeException publishError(Topic<?> topic, Throwable error) {
        Throwable cause = error instanceof CompletionException c && c.getCause() != null ? c.getCause() : error;
        if (cause instanceof ShoveException s) {
            return s;
        }
        return new PublishException(
                "Redis did not accept a message for topic '" + topic.name() + "': " + cause.getMessage(), cause, true);
    }

    // ---------------------------------------------------------------- consuming

    /** The Redis consumer group of a request: its own, or the configured one when it kept the default. */
    String groupOf(SubscriptionRequest request) {
        return groupOf(request.topic(), request.group());
    }

    /** The Redis consumer group of engine group {@code group} on {@code topic}. */
    String groupOf(Topic<?> topic, String group) {
        if (group.equals(topic.name())) {
            return config.consumerGroup().orElse(group);
        }
        return group;
    }

    @Override
    public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
        checkOpen();
        Topic<?> topic = request.topic();
        Subscription subscription;
        if (topic.isBroadcast()) {
            RedisBroadcast b = new RedisBroadcast(this, request, sink);
            subscriptions.add(b);
            try {
                b.start();
            } catch (RuntimeException e) {
                subscriptions.remove(b);
                throw e;
            }
            return b;
        }
        String group = groupOf(request);
        boolean main = request.source() == SubscriptionRequest.Source.MAIN;
        if (main) {
            groupsByTopic
                    .computeIfAbsent(topic.name(), t -> ConcurrentHashMap.newKeySet())
                    .add(group);
        }
        RedisSubscription s = new RedisSubscription(this, request, sink, group);
        subscriptions.add(s);
        try {
            s.start();
        } catch (RuntimeException e) {
            subscriptions.remove(s);
            s.close();
            throw e;
        }
        if (main) {
            requeuer.acquire(topic);
        }
        subscription = s;
        return subscription;
    }

    /**
     * Whether the subscription opening now is the first of its group on {@code stream} in this process: the start
     * position of a registration applies once, not again for every consumer added by scaling.
     */
    boolean firstStart(String group, String stream) {
        return startUsers.merge(group + " " + stream, 1, Integer::sum) == 1;
    }

    void startEnded(String group, String stream) {
        startUsers.computeIfPresent(group + " " + stream, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** A subscription has closed. */
    void closed(Subscription subscription, @Nullable Topic<?> mainTopic) {
        if (subscriptions.remove(subscription) && mainTopic != null) {
            requeuer.release(mainTopic);
        }
    }

    /**
     * The topic's dead-letter stream as {@code group} sees it: the group's dead-letter consumer reads that stream in
     * the same Redis consumer group as its main consumers read the topic's streams.
     */
    @Override
    public DeadLetterStore deadLetters(Topic<?> topic, String group) {
        checkOpen();
        String dlq = topic.dlq().orElseThrow(); // the engine refuses a topic without one before asking
        return new RedisDeadLetters(this, topic, dlq, groupOf(topic, group));
    }

    // ---------------------------------------------------------------- stats, ping, close

    /**
     * The lag and pending count of the topic's consumer groups ({@code XINFO GROUPS}, summed over shards): with
     * several groups on the topic in this process, the largest; held is the retry copies in the topic's hold tiers.
     */
    @Override
    public QueueStats stats(Topic<?> topic) {
        checkOpen();
        Set<String> groups = groupsByTopic.getOrDefault(topic.name(), Set.of());
        if (groups.isEmpty()) {
            groups = Set.of(config.consumerGroup().orElse(topic.name()));
        }
        long ready = 0;
        long inFlight = 0;
        for (String group : groups) {
            long[] backlog = backlog(topic, group);
            ready = Math.max(ready, backlog[0]);
            inFlight = Math.max(inFlight, backlog[1]);
        }
        return new QueueStats(ready, inFlight, held(topic));
    }

    /**
     * The lag and pending count of the Redis consumer group of {@code group} ({@code XINFO GROUPS}, summed over
     * shards), and the retry copies in the topic's hold tiers ({@code ZCARD}; the tiers are the topic's, shared by
     * its groups). A broadcast topic answers {@link #stats(Topic)}: each of its consumers reads in a group of its own.
     */
    @Override
    public QueueStats stats(Topic<?> topic, String group) {
        checkOpen();
        if (topic.isBroadcast()) {
            return stats(topic);
        }
        long[] backlog = backlog(topic, groupOf(topic, group));
        return new QueueStats(backlog[0], backlog[1], held(topic));
    }

    /** Lag and pending count of Redis consumer group {@code group}, summed over the topic's streams. */
    private long[] backlog(Topic<?> topic, String group) {
        long lag = 0;
        long pending = 0;
        for (String stream : keys.streams(topic)) {
            List<Object> info = await(redis().xinfoGroups(stream).toCompletableFuture(), "read XINFO GROUPS");
            for (Object g : info) {
                Map<String, Object> fields = RedisInfo.fields(g);
                if (group.equals(RedisInfo.string(fields.get("name")))) {
                    lag += RedisInfo.number(fields.get("lag"));
                    pending += RedisInfo.number(fields.get("pending"));
                }
            }
        }
        return new long[] {lag, pending};
    }

    /** The retry copies waiting in the topic's hold tiers: {@code ZCARD} of each tier's sorted set, summed. */
    private long held(Topic<?> topic) {
        List<CompletableFuture<Long>> counts = new ArrayList<>();
        for (HoldTier tier : topic.holdTiers()) {
            counts.add(redis().zcard(keys.hold(topic, tier)).toCompletableFuture());
        }
        long held = 0;
        for (CompletableFuture<Long> count : counts) {
            Long n = await(count, "count the retries held for topic '" + topic.name() + "'");
            held += n == null ? 0 : n;
        }
        return held;
    }

    @Override
    public void ping(Duration timeout) {
        checkOpen();
        try {
            redis().ping().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while pinging Redis at " + config.redactedUri());
        } catch (ExecutionException | TimeoutException e) {
            throw new BrokerUnavailableException(
                    "Redis at " + config.redactedUri() + " did not answer PING within " + DurationText.of(timeout)
                            + ": " + rootMessage(e),
                    e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Subscription s : List.copyOf(subscriptions)) {
            s.close();
        }
        requeuer.close();
        timer.shutdownNow();
        connector.close();
    }

    boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the Redis transport to " + config.redactedUri() + " is closed");
        }
    }

    /** Waits for a command's answer within the response timeout; failures become a {@link ShoveException}. */
    <T> T await(Future<T> future, String what) {
        try {
            return future.get(config.responseTimeout().toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(false);
            throw new ShoveException("interrupted while waiting for Redis to " + what, e);
        } catch (ExecutionException e) {
            Throwable cause =
                    e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause() : e.getCause();
            throw new BrokerUnavailableException(
                    "Redis at " + config.redactedUri() + " failed to " + what + ": " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new BrokerUnavailableException(
                    "Redis at " + config.redactedUri() + " did not answer within "
                            + DurationText.of(config.responseTimeout()) + " to " + what,
                    e);
        }
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
