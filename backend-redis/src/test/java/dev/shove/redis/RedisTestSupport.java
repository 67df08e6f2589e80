package dev.shove.redis;

import dev.shove.BrokerConfig;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import dev.shove.spi.Capabilities;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.Transport;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.net.URI;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What the integration tests need beside shove: the Redis URI (env {@code SHOVE_REDIS_URI}, default {@code
 * redis://127.0.0.1:6379}), a check that Redis answers (failing with {@code SHOVE_IT_REQUIRED=true}, skipping
 * otherwise), a plain lettuce connection to look into keys, unique names, and the deletion of every key of every topic
 * a test declared (names are unique per run, so tests never see each other's entries).
 */
final class RedisTestSupport implements AutoCloseable {
    private final AutoCloseable client;
    private final StatefulConnection<String, String> connection;
    private final RedisClusterCommands<String, String> commands;
    private final Set<String> topics = ConcurrentHashMap.newKeySet();
    private final String prefix;

    private RedisTestSupport(String uri, String prefix) {
        RedisClient c = RedisClient.create(RedisURI.create(uri));
        StatefulRedisConnection<String, String> conn = c.connect();
        this.client = c::close;
        this.connection = conn;
        this.commands = conn.sync();
        this.prefix = prefix;
    }

    private RedisTestSupport(List<String> seeds) {
        RedisClusterClient c =
                RedisClusterClient.create(seeds.stream().map(RedisURI::create).toList());
        StatefulRedisClusterConnection<String, String> conn = c.connect();
        this.client = c::close;
        this.connection = conn;
        this.commands = conn.sync();
        this.prefix = RedisConfig.DEFAULT_KEY_PREFIX;
    }

    /** The seed URIs of the Redis Cluster (env {@code SHOVE_REDIS_CLUSTER}, comma-separated). */
    static List<String> clusterUris() {
        return List.of(BrokerAvailability.env(
                        "SHOVE_REDIS_CLUSTER", "redis://127.0.0.1:7001,redis://127.0.0.1:7002,redis://127.0.0.1:7003")
                .split(","));
    }

    /** Checks that the Redis Cluster answers and connects to it. */
    static RedisTestSupport connectCluster() {
        List<String> seeds = clusterUris();
        BrokerAvailability.require("the Redis Cluster", "redis-cluster", URI.create(seeds.getFirst()), 7001);
        return new RedisTestSupport(seeds);
    }

    static String uri() {
        return BrokerAvailability.env("SHOVE_REDIS_URI", "redis://127.0.0.1:6379");
    }

    /** Checks that Redis answers at {@link #uri()} and connects to it. */
    static RedisTestSupport connect() {
        return connect(uri(), RedisConfig.DEFAULT_KEY_PREFIX);
    }

    static RedisTestSupport connect(String uri, String keyPrefix) {
        BrokerAvailability.require("Redis", "redis", URI.create(uri), RedisConfig.DEFAULT_PORT);
        return new RedisTestSupport(uri, keyPrefix);
    }

    RedisClusterCommands<String, String> redis() {
        return commands;
    }

    /** A name unique to this run: {@code prefix-<random>}. */
    static String unique(String prefix) {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return prefix + "-" + HexFormat.of().formatHex(random);
    }

    /** Deletes the keys of {@code topic} when this support closes. */
    void forget(Topic<?> topic) {
        topics.add(topic.name());
    }

    /** Deletes the keys of the topic named {@code topic} when this support closes. */
    void forget(String topic) {
        topics.add(topic);
    }

    /** {@code config} with every declared topic remembered, so that its keys are deleted at the end. */
    BrokerConfig<Redis> recording(RedisConfig config) {
        return context -> new Recording(config.open(context), this);
    }

    /** Deletes every key of the remembered topics. */
    void deleteKeys() {
        for (String topic : topics) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis().scan(
                                cursor,
                                ScanArgs.Builder.matches(prefix + "{" + topic + "}*")
                                        .limit(1000));
                List<String> keys = page.getKeys();
                for (String key : keys) {
                    redis().del(key);
                }
                cursor = page;
            } while (!cursor.isFinished());
        }
        topics.clear();
    }

    @Override
    public void close() {
        try {
            deleteKeys();
        } finally {
            connection.close();
            try {
                client.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The Redis transport, remembering every topic declared so that its keys can be deleted afterwards. */
    private record Recording(Transport delegate, RedisTestSupport support) implements Transport {
        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public Capabilities capabilities() {
            return delegate.capabilities();
        }

        @Override
        public Map<String, String> objectNames(Topic<?> topic) {
            return delegate.objectNames(topic);
        }

        @Override
        public void declare(Topic<?> topic) {
            support.forget(topic);
            delegate.declare(topic);
        }

        @Override
        public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
            return delegate.publish(topic, message);
        }

        @Override
        public List<CompletableFuture<Void>> publishAll(Topic<?> topic, List<OutboundMessage> messages) {
            return delegate.publishAll(topic, messages);
        }

        @Override
        public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
            return delegate.subscribe(request, sink);
        }

        @Override
        public QueueStats stats(Topic<?> topic) {
            return delegate.stats(topic);
        }

        @Override
        public QueueStats stats(Topic<?> topic, String group) {
            return delegate.stats(topic, group);
        }

        @Override
        public DeadLetterStore deadLetters(Topic<?> topic, String group) {
            return delegate.deadLetters(topic, group);
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return type.isInstance(this) ? Optional.of(type.cast(this)) : delegate.unwrap(type);
        }

        @Override
        public void ping(Duration timeout) {
            delegate.ping(timeout);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
