package dev.shove.redis;

import dev.shove.BrokerConfig;
import dev.shove.spi.Bounds;
import dev.shove.spi.DurationText;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * How to reach Redis (one server, or a Redis Cluster through seed nodes), and how the backend behaves on it.
 * Immutable and thread-safe; {@code toString()} never shows a password.
 *
 * <pre>{@code
 * Broker<Redis> broker = Broker.connect(RedisConfig.of("redis://localhost:6379"));
 *
 * RedisConfig config = RedisConfig.builder("rediss://redis.internal:6380")
 *         .credentials("orders-svc", password)            // an ACL user
 *         .tlsTrustedCertificates(Path.of("/etc/redis/ca.pem"))
 *         .trim(RedisTrim.maxLen(1_000_000))
 *         .build();
 *
 * RedisConfig cluster = RedisConfig.clusterBuilder("redis://node-1:7000", "redis://node-2:7000").build();
 * }</pre>
 *
 * <p>A URI is {@code redis://[[user]:password@]host[:port][/database]}, or {@code rediss://} for TLS (user, password
 * percent-encoded; port 6379 by default; a database only without cluster). Defaults:
 *
 * <ul>
 *   <li>keys start with {@value #DEFAULT_KEY_PREFIX} and carry the topic's name as their hash tag ({@code
 *       shove:{orders}}, {@code shove:{orders}:orders-hold-5s}), so that every key of a topic lives in one slot of a
 *       cluster;
 *   <li>a consumer group is named like the registration's group (the topic's name unless the registration names
 *       one), or {@link Builder#consumerGroup(String)} for registrations that keep the default;
 *   <li>{@code XREADGROUP ... BLOCK} {@link #DEFAULT_BLOCK_TIMEOUT}; each command answered within {@link
 *       #DEFAULT_RESPONSE_TIMEOUT} (which must exceed the block); connecting within {@link #DEFAULT_CONNECT_TIMEOUT};
 *   <li>acknowledgements coalesced: one {@code XACK} per {@value #DEFAULT_ACK_BATCH} completed entries or after
 *       {@link #DEFAULT_ACK_LINGER}, whichever comes first;
 *   <li>entries a consumer holds are renewed every {@link #DEFAULT_LEASE_RENEWAL}; entries of a consumer that stopped
 *       renewing are reclaimed ({@code XAUTOCLAIM}) after the handler timeout, and never before three renewals were
 *       missed ({@link Builder#claimIdle(Duration)} sets the idle time instead);
 *   <li>a sequenced topic's shards are shared between the group's consumers with leases of {@link
 *       #DEFAULT_SHARD_LEASE};
 *   <li>hold tiers are polled at least every {@link #DEFAULT_HOLD_POLL}; no trimming, except broadcast streams, which
 *       keep about {@value #DEFAULT_BROADCAST_MAX_LEN} entries.
 * </ul>
 *
 * @since 0.1.0
 */
public final class RedisConfig implements BrokerConfig<Redis> {
    /** The URI of {@link #ofDefaults()}. */
    public static final String DEFAULT_URI = "redis://localhost:6379";

    /** The port of a URI that names none. */
    public static final int DEFAULT_PORT = 6379;

    /** The default of {@link Builder#keyPrefix}. */
    public static final String DEFAULT_KEY_PREFIX = "shove:";

    /** The default of {@link Builder#connectTimeout}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    /** The default of {@link Builder#responseTimeout}. */
    public static final Duration DEFAULT_RESPONSE_TIMEOUT = Duration.ofSeconds(10);

    /** The default of {@link Builder#blockTimeout}. */
    public static final Duration DEFAULT_BLOCK_TIMEOUT = Duration.ofSeconds(2);

    /** The default of {@link Builder#ackBatch}. */
    public static final int DEFAULT_ACK_BATCH = 100;

    /** The default of {@link Builder#ackLinger}. */
    public static final Duration DEFAULT_ACK_LINGER = Duration.ofMillis(5);

    /** The default of {@link Builder#leaseRenewal}. */
    public static final Duration DEFAULT_LEASE_RENEWAL = Duration.ofSeconds(5);

    /** The default of {@link Builder#shardLease}. */
    public static final Duration DEFAULT_SHARD_LEASE = Duration.ofSeconds(10);

    /** The default of {@link Builder#holdPoll}. */
    public static final Duration DEFAULT_HOLD_POLL = Duration.ofMillis(100);

    /** The default of {@link Builder#broadcastMaxLen}. */
    public static final long DEFAULT_BROADCAST_MAX_LEN = 10_000;

    /** The oldest Redis the backend accepts: {@code XAUTOCLAIM}, {@code XADD NOMKSTREAM} and {@code MINID}. */
    static final int[] MIN_VERSION = {6, 2};

    /** One server of a URI. */
    record Endpoint(String host, int port) {}

    /** Every setting; mutated only by a {@link Builder}, which hands a copy to each config it builds. */
    private static final class Values implements Cloneable {
        boolean cluster;
        List<Endpoint> endpoints = new ArrayList<>();
        int database;
        boolean tls;

        @Nullable
        String username;

        @Nullable
        String password;

        @Nullable
        Path trustedCertificates;

        @Nullable
        Path clientCertificate;

        @Nullable
        Path clientKey;

        boolean hostnameVerification = true;

        @Nullable
        String clientName;

        String keyPrefix = DEFAULT_KEY_PREFIX;

        @Nullable
        String consumerGroup;

        Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        Duration responseTimeout = DEFAULT_RESPONSE_TIMEOUT;
        Duration blockTimeout = DEFAULT_BLOCK_TIMEOUT;
        int ackBatch = DEFAULT_ACK_BATCH;
        Duration ackLinger = DEFAULT_ACK_LINGER;
        Duration leaseRenewal = DEFAULT_LEASE_RENEWAL;

        @Nullable
        Duration claimIdle;

        Duration shardLease = DEFAULT_SHARD_LEASE;
        Duration holdPoll = DEFAULT_HOLD_POLL;

        @Nullable
        RedisTrim trim;

        Map<String, RedisTrim> topicTrims = new HashMap<>();
        long broadcastMaxLen = DEFAULT_BROADCAST_MAX_LEN;

        @Override
        protected Values clone() {
            try {
                Values v = (Values) super.clone();
                v.endpoints = new ArrayList<>(endpoints);
                v.topicTrims = new HashMap<>(topicTrims);
                return v;
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Values v;

    private RedisConfig(Values values) {
        this.v = values;
    }

    /** {@return a local Redis, {@value #DEFAULT_URI}, every other default} */
    public static RedisConfig ofDefaults() {
        return of(DEFAULT_URI);
    }

    /**
     * One Redis server at a {@code redis://} or {@code rediss://} URI (see the class comment), every other default.
     *
     * @param uri {@code redis://[[user]:password@]host[:port][/database]}, or {@code rediss://} for TLS
     * @return the config
     * @throws IllegalArgumentException when the URI is not usable; the message never shows its password
     */
    public static RedisConfig of(String uri) {
        return builder(uri).build();
    }

    /**
     * A Redis Cluster reached through these seed nodes' URIs, every other default (see {@link
     * #clusterBuilder(String...)}).
     *
     * @param seedUris at least one node's URI; the credentials and TLS of the first apply to every node
     * @return the config
     * @throws IllegalArgumentException when no URI is given, a URI is not usable or names a database other than 0;
     *     the message never shows a password
     */
    public static RedisConfig ofCluster(String... seedUris) {
        return clusterBuilder(seedUris).build();
    }

    /**
     * A builder for one Redis server at {@code uri}.
     *
     * @param uri {@code redis://[[user]:password@]host[:port][/database]}, or {@code rediss://} for TLS
     * @return a builder with every other default
     * @throws IllegalArgumentException when the URI is not usable; the message never shows its password
     */
    public static Builder builder(String uri) {
        Objects.requireNonNull(uri, "uri");
        Values values = new Values();
        parseUri(uri, values, true);
        return new Builder(values);
    }

    /**
     * A builder for a Redis Cluster reached through these seed nodes (any reachable node will do; the backend learns
     * the rest). The credentials and TLS of the first URI apply to every node.
     *
     * @param seedUris at least one node's URI, without a database (a cluster has only database 0)
     * @return a builder with every other default
     * @throws IllegalArgumentException when no URI is given, a URI is not usable or names a database other than 0;
     *     the message never shows a password
     */
    public static Builder clusterBuilder(String... seedUris) {
        Objects.requireNonNull(seedUris, "seedUris");
        if (seedUris.length == 0) {
            throw new IllegalArgumentException("a Redis Cluster needs at least one seed URI, e.g. redis://node-1:7000");
        }
        Values values = new Values();
        values.cluster = true;
        for (int i = 0; i < seedUris.length; i++) {
            parseUri(Objects.requireNonNull(seedUris[i], "seed URI"), values, i == 0);
        }
        if (values.database != 0) {
            throw new IllegalArgumentException(
                    "a Redis Cluster has only database 0; remove the /" + values.database + " from the seed URI");
        }
        return new Builder(values);
    }

    /** {@return a builder starting from this config's settings; changing it leaves this config as it is} */
    public Builder toBuilder() {
        return new Builder(v.clone());
    }

    private static void parseUri(String text, Values values, boolean first) {
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("Redis URI '" + redact(text) + "' is not a valid URI: " + e.getReason()
                    + "; expected redis://[user:password@]host[:port][/database]");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalArgumentException("Redis URI '" + redact(text)
                    + "' must start with redis:// or rediss:// (expected redis://[user:password@]host[:port])");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            throw new IllegalArgumentException(
                    "Redis URI '" + redact(text) + "' names no host (expected redis://[user:password@]host[:port])");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("Redis URI '" + redact(text)
                    + "' has query parameters or a fragment, which are not supported; use RedisConfig's builder");
        }
        values.endpoints.add(new Endpoint(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : DEFAULT_PORT));
        if (!first) {
            return;
        }
        values.tls = scheme.equals("rediss");
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            String password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
            if (password == null) {
                // redis://secret@host is how clients write a password without a user
                values.password = user;
            } else {
                values.username = user.isEmpty() ? null : user;
                values.password = password;
            }
        }
        String path = uri.getRawPath();
        if (path != null && path.length() > 1) {
            try {
                values.database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                values.database = -1;
            }
            if (values.database < 0 || values.database > 15_999) {
                throw new IllegalArgumentException(
                        "Redis URI '" + redact(text) + "' has a path that is not a database number (e.g. /0)");
            }
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** Replaces the password of a Redis URI with {@code ****}, for messages about a URI that may not parse. */
    static String redact(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (scheme < 0 || at < scheme) {
            return uri;
        }
        int colon = uri.indexOf(':', scheme + 3);
        if (colon < 0 || colon > at) {
            return uri.substring(0, scheme + 3) + "****" + uri.substring(at);
        }
        return uri.substring(0, colon + 1) + "****" + uri.substring(at);
    }

    // ---------------------------------------------------------------- settings

    /** {@return whether the backend talks to a Redis Cluster} */
    public boolean isCluster() {
        return v.cluster;
    }

    List<Endpoint> endpoints() {
        return List.copyOf(v.endpoints);
    }

    /** {@return the database number (0 on a cluster)} */
    public int database() {
        return v.database;
    }

    /** {@return whether connections use TLS ({@code rediss://}, or {@link Builder#tls()})} */
    public boolean isTls() {
        return v.tls;
    }

    /** {@return the ACL user, if one is set; empty means the default user} */
    public Optional<String> username() {
        return Optional.ofNullable(v.username);
    }

    Optional<String> password() {
        return Optional.ofNullable(v.password);
    }

    Optional<Path> trustedCertificates() {
        return Optional.ofNullable(v.trustedCertificates);
    }

    Optional<Path> clientCertificate() {
        return Optional.ofNullable(v.clientCertificate);
    }

    Optional<Path> clientKey() {
        return Optional.ofNullable(v.clientKey);
    }

    /** {@return whether the server certificate must name the host connected to (default true)} */
    public boolean isTlsHostnameVerification() {
        return v.hostnameVerification;
    }

    /** {@return the connection name set with {@link Builder#clientName}; empty means the broker's client name} */
    public Optional<String> clientName() {
        return Optional.ofNullable(v.clientName);
    }

    /** {@return the prefix of every key shove creates; may be empty} */
    public String keyPrefix() {
        return v.keyPrefix;
    }

    /** {@return the consumer group of registrations that keep the default group name, if one is set} */
    public Optional<String> consumerGroup() {
        return Optional.ofNullable(v.consumerGroup);
    }

    /** {@return the longest wait for a connection} */
    public Duration connectTimeout() {
        return v.connectTimeout;
    }

    /** {@return the longest wait for the answer to one command} */
    public Duration responseTimeout() {
        return v.responseTimeout;
    }

    /** {@return how long one {@code XREADGROUP ... BLOCK} waits for new entries} */
    public Duration blockTimeout() {
        return v.blockTimeout;
    }

    /** {@return how many completed entries trigger their {@code XACK} before the linger is up} */
    public int ackBatch() {
        return v.ackBatch;
    }

    /** {@return the longest a completed entry waits for its {@code XACK}} */
    public Duration ackLinger() {
        return v.ackLinger;
    }

    /** {@return how often a consumer renews the entries it holds} */
    public Duration leaseRenewal() {
        return v.leaseRenewal;
    }

    /**
     * {@return the idle time after which another consumer reclaims an entry, if set; when empty it is derived per
     * subscription from the handler timeout}
     */
    public Optional<Duration> claimIdle() {
        return Optional.ofNullable(v.claimIdle);
    }

    /** {@return how long a consumer's claim on a shard of a sequenced topic lasts without renewal} */
    public Duration shardLease() {
        return v.shardLease;
    }

    /** {@return the longest the hold-tier requeuer sleeps between looks at its tiers} */
    public Duration holdPoll() {
        return v.holdPoll;
    }

    /**
     * How the streams of {@code topic} are trimmed: its own trim if it has one, else the one for every topic.
     *
     * @param topic the topic's name
     * @return the trim; empty when the topic's streams are not trimmed
     */
    public Optional<RedisTrim> trim(String topic) {
        RedisTrim t = v.topicTrims.get(topic);
        return Optional.ofNullable(t != null ? t : v.trim);
    }

    /** {@return about how many entries a broadcast topic's stream keeps} */
    public long broadcastMaxLen() {
        return v.broadcastMaxLen;
    }

    /**
     * The idle time after which the entries of a consumer that stopped renewing them are reclaimed: the configured
     * {@link Builder#claimIdle}, else the handler timeout (30 s without one), and never less than three renewal
     * intervals, so that a live consumer's entries are never taken from under it.
     */
    Duration claimIdleFor(@Nullable Duration handlerTimeout) {
        if (v.claimIdle != null) {
            return v.claimIdle;
        }
        Duration base = handlerTimeout == null ? Duration.ofSeconds(30) : handlerTimeout;
        Duration floor = v.leaseRenewal.multipliedBy(3);
        return base.compareTo(floor) < 0 ? floor : base;
    }

    /**
     * {@return the servers as {@code redis://} or {@code rediss://} URIs separated by commas, the password replaced
     * with {@code ****}, for messages and logs}
     */
    public String redactedUri() {
        StringBuilder b = new StringBuilder();
        for (Endpoint e : v.endpoints) {
            if (!b.isEmpty()) {
                b.append(',');
            }
            b.append(v.tls ? "rediss://" : "redis://");
            if (v.username != null) {
                b.append(v.username).append(":****@");
            } else if (v.password != null) {
                b.append("****@");
            }
            b.append(e.host().contains(":") ? "[" + e.host() + "]" : e.host())
                    .append(':')
                    .append(e.port());
            if (v.database != 0) {
                b.append('/').append(v.database);
            }
        }
        return b.toString();
    }

    @Override
    public Transport open(TransportContext context) {
        return new RedisTransport(this, context);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("RedisConfig[")
                .append(v.cluster ? "cluster=" : "uri=")
                .append(redactedUri());
        clientName().ifPresent(n -> b.append(", clientName=").append(n));
        if (v.trustedCertificates != null) {
            b.append(", tlsTrustedCertificates=").append(v.trustedCertificates);
        }
        if (v.clientCertificate != null) {
            b.append(", tlsClientCertificate=").append(v.clientCertificate);
        }
        if (!v.hostnameVerification) {
            b.append(", tlsHostnameVerification=off");
        }
        b.append(", keyPrefix=").append(v.keyPrefix);
        consumerGroup().ifPresent(g -> b.append(", consumerGroup=").append(g));
        b.append(", blockTimeout=").append(v.blockTimeout);
        b.append(", responseTimeout=").append(v.responseTimeout);
        b.append(", ackBatch=").append(v.ackBatch).append(", ackLinger=").append(v.ackLinger);
        b.append(", leaseRenewal=").append(v.leaseRenewal);
        if (v.claimIdle != null) {
            b.append(", claimIdle=").append(v.claimIdle);
        }
        if (v.trim != null) {
            b.append(", trim=").append(v.trim);
        }
        if (!v.topicTrims.isEmpty()) {
            b.append(", topicTrims=").append(new TreeMap<>(v.topicTrims));
        }
        return b.append(']').toString();
    }

    /**
     * Builds a {@link RedisConfig} from a URI's servers, credentials and TLS (or from another config). Each setter checks
     * its value at once; a later call replaces an earlier one. Not thread-safe.
     */
    public static final class Builder {
        private final Values values;

        private Builder(Values values) {
            this.values = values;
        }

        /**
         * An ACL user and its password (instead of the URI's).
         *
         * @param username the ACL user, not blank
         * @param password its password; never shown by {@code toString()}
         * @return this builder
         * @throws IllegalArgumentException when {@code username} is blank
         */
        public Builder credentials(String username, String password) {
            Objects.requireNonNull(username, "username");
            Objects.requireNonNull(password, "password");
            if (username.isBlank()) {
                throw new IllegalArgumentException("Redis username must not be blank");
            }
            values.username = username;
            values.password = password;
            return this;
        }

        /**
         * A password for the default user ({@code requirepass}), instead of the URI's user and password.
         *
         * @param password the password; never shown by {@code toString()}
         * @return this builder
         */
        public Builder password(String password) {
            values.password = Objects.requireNonNull(password, "password");
            values.username = null;
            return this;
        }

        /**
         * Connects over TLS (as {@code rediss://} does), verifying the server against the JVM's trust store.
         *
         * @return this builder
         */
        public Builder tls() {
            values.tls = true;
            return this;
        }

        /**
         * Connects over TLS, trusting the certificates (PEM) in this file, e.g. the CA that signed the server's.
         *
         * @param pemFile the trusted certificates, PEM
         * @return this builder
         */
        public Builder tlsTrustedCertificates(Path pemFile) {
            values.trustedCertificates = Objects.requireNonNull(pemFile, "pemFile");
            values.tls = true;
            return this;
        }

        /**
         * Presents this client certificate chain and its unencrypted private key (PEM files) for mutual TLS; turns TLS
         * on.
         *
         * @param certificateChainPem the client's certificate chain, PEM
         * @param privateKeyPem its private key, PEM, unencrypted
         * @return this builder
         */
        public Builder tlsClientCertificate(Path certificateChainPem, Path privateKeyPem) {
            values.clientCertificate = Objects.requireNonNull(certificateChainPem, "certificateChainPem");
            values.clientKey = Objects.requireNonNull(privateKeyPem, "privateKeyPem");
            values.tls = true;
            return this;
        }

        /**
         * Skips the check that the server certificate names the host connected to (the certificate is still checked
         * against the trusted ones). Only for test servers: it allows a man in the middle.
         *
         * @return this builder
         */
        public Builder noTlsHostnameVerification() {
            values.hostnameVerification = false;
            return this;
        }

        /**
         * The name of the connections ({@code CLIENT SETNAME}), shown by {@code CLIENT LIST}.
         *
         * @param name not blank, without spaces; default the broker's client name
         * @return this builder
         * @throws IllegalArgumentException when {@code name} is blank or contains a space or control character
         */
        public Builder clientName(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank() || name.chars().anyMatch(c -> c <= ' ')) {
                throw new IllegalArgumentException(
                        "Redis clientName must be non-blank without spaces, was '" + name + "'");
            }
            values.clientName = name;
            return this;
        }

        /**
         * The prefix of every key shove creates (default {@value #DEFAULT_KEY_PREFIX}); may be empty. Applications
         * sharing a Redis keep their topics apart with different prefixes.
         *
         * @param prefix at most 100 characters, without {@code '{'} or {@code '}'} (the hash tag is shove's)
         * @return this builder
         * @throws IllegalArgumentException when {@code prefix} is longer or contains a brace
         */
        public Builder keyPrefix(String prefix) {
            Objects.requireNonNull(prefix, "prefix");
            if (prefix.length() > 100 || prefix.contains("{") || prefix.contains("}")) {
                throw new IllegalArgumentException(
                        "Redis keyPrefix must be at most 100 characters without '{' or '}', was '" + prefix + "'");
            }
            values.keyPrefix = prefix;
            return this;
        }

        /**
         * The Redis consumer group of registrations that keep the default group name (their topic's name). A
         * registration that names its group ({@code ConsumerGroupConfig.groupName}) keeps its own.
         *
         * @param name 1 to 200 characters, not blank
         * @return this builder
         * @throws IllegalArgumentException when {@code name} is blank or longer
         */
        public Builder consumerGroup(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank() || name.length() > 200) {
                throw new IllegalArgumentException(
                        "Redis consumerGroup must be 1 to 200 characters, not blank, was '" + name + "'");
            }
            values.consumerGroup = name;
            return this;
        }

        /**
         * The longest wait for a connection.
         *
         * @param timeout positive, at most 1 day; default 10 s
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is out of range
         */
        public Builder connectTimeout(Duration timeout) {
            values.connectTimeout = Bounds.positive("Redis connectTimeout", timeout);
            return this;
        }

        /**
         * The longest wait for the answer to one command (default 10 s). Must exceed {@link #blockTimeout}, or every
         * blocking read of an idle stream would time out.
         *
         * @param timeout positive, at most 1 day; default 10 s; at least 1 s more than the block timeout, checked by
         *     {@link #build()}
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is out of range
         */
        public Builder responseTimeout(Duration timeout) {
            values.responseTimeout = Bounds.positive("Redis responseTimeout", timeout);
            return this;
        }

        /**
         * How long one {@code XREADGROUP ... BLOCK} waits for new entries (default 2 s). Shorter makes an idle consumer
         * cost more round trips; it never delays a delivery.
         *
         * @param timeout at least 1 ms, at most 10 min
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is out of range
         */
        public Builder blockTimeout(Duration timeout) {
            Bounds.within("Redis blockTimeout", timeout, false, Duration.ofMinutes(10));
            if (timeout.toMillis() < 1) {
                throw new IllegalArgumentException(
                        "Redis blockTimeout must be at least 1 ms, was " + DurationText.of(timeout));
            }
            values.blockTimeout = timeout;
            return this;
        }

        /**
         * Completed entries after which their {@code XACK} is sent without waiting for the linger.
         *
         * @param entries between 1 and 10,000; default 100
         * @return this builder
         * @throws IllegalArgumentException when {@code entries} is out of range
         */
        public Builder ackBatch(int entries) {
            if (entries < 1 || entries > 10_000) {
                throw new IllegalArgumentException("Redis ackBatch must be between 1 and 10000, was " + entries);
            }
            values.ackBatch = entries;
            return this;
        }

        /**
         * The longest a completed entry waits for its {@code XACK}.
         *
         * @param linger positive, at most 10 s; default 5 ms
         * @return this builder
         * @throws IllegalArgumentException when {@code linger} is out of range
         */
        public Builder ackLinger(Duration linger) {
            values.ackLinger = Bounds.within("Redis ackLinger", linger, false, Duration.ofSeconds(10));
            return this;
        }

        /**
         * How often a consumer renews the entries it holds (delivered, waiting for a handler, or waiting out a retry in
         * place), so that no other consumer reclaims them.
         *
         * @param interval positive, at most 10 min; default 5 s
         * @return this builder
         * @throws IllegalArgumentException when {@code interval} is out of range
         */
        public Builder leaseRenewal(Duration interval) {
            values.leaseRenewal = Bounds.within("Redis leaseRenewal", interval, false, Duration.ofMinutes(10));
            return this;
        }

        /**
         * The idle time after which another consumer reclaims the entries of a consumer that stopped renewing them
         * (crashed or cut off), instead of the handler timeout. At least three {@link #leaseRenewal} intervals.
         *
         * @param idle positive, at most 1 day; at least three lease renewal intervals, checked by {@link #build()}
         * @return this builder
         * @throws IllegalArgumentException when {@code idle} is out of range
         */
        public Builder claimIdle(Duration idle) {
            values.claimIdle = Bounds.positive("Redis claimIdle", idle);
            return this;
        }

        /**
         * How long a consumer's claim on a shard of a sequenced topic lasts without renewal (default 10 s); renewed
         * every third of it. A consumer that dies releases its shards to the others after this.
         *
         * @param lease at least 300 ms, at most 1 hour
         * @return this builder
         * @throws IllegalArgumentException when {@code lease} is out of range
         */
        public Builder shardLease(Duration lease) {
            Bounds.within("Redis shardLease", lease, false, Duration.ofHours(1));
            if (lease.toMillis() < 300) {
                throw new IllegalArgumentException(
                        "Redis shardLease must be at least 300 ms, was " + DurationText.of(lease));
            }
            values.shardLease = lease;
            return this;
        }

        /**
         * The longest the hold-tier requeuer sleeps between looks at its tiers.
         *
         * @param interval positive, at most 10 s; default 100 ms
         * @return this builder
         * @throws IllegalArgumentException when {@code interval} is out of range
         */
        public Builder holdPoll(Duration interval) {
            values.holdPoll = Bounds.within("Redis holdPoll", interval, false, Duration.ofSeconds(10));
            return this;
        }

        /**
         * How every topic's streams are trimmed, unless {@link #trim(String, RedisTrim)}.
         *
         * @param trim by length or by age; default: not at all
         * @return this builder
         */
        public Builder trim(RedisTrim trim) {
            values.trim = Objects.requireNonNull(trim, "trim");
            return this;
        }

        /**
         * How one topic's streams (main or shards, and its dead-letter stream) are trimmed, instead of {@link
         * #trim(RedisTrim)}.
         *
         * @param topic the topic's name
         * @param trim by length or by age
         * @return this builder
         */
        public Builder trim(String topic, RedisTrim trim) {
            Objects.requireNonNull(topic, "topic");
            values.topicTrims.put(topic, Objects.requireNonNull(trim, "trim"));
            return this;
        }

        /**
         * Turns trimming off for every topic without a trim of its own.
         *
         * @return this builder
         */
        public Builder noTrim() {
            values.trim = null;
            return this;
        }

        /**
         * About how many entries a broadcast topic's stream keeps.
         *
         * @param entries between 1 and {@link RedisTrim#MAX_LENGTH}; default 10,000
         * @return this builder
         * @throws IllegalArgumentException when {@code entries} is out of range
         */
        public Builder broadcastMaxLen(long entries) {
            if (entries < 1 || entries > RedisTrim.MAX_LENGTH) {
                throw new IllegalArgumentException(
                        "Redis broadcastMaxLen must be between 1 and " + RedisTrim.MAX_LENGTH + ", was " + entries);
            }
            values.broadcastMaxLen = entries;
            return this;
        }

        /**
         * The config as set: the response timeout must exceed the block timeout by at least 1 s, a claim idle time must
         * be at least three lease renewal intervals, and a client certificate needs TLS.
         *
         * @return the config; the builder may be changed and built again without affecting it
         * @throws IllegalArgumentException when settings contradict each other (the message says which)
         */
        public RedisConfig build() {
            if (values.responseTimeout.compareTo(values.blockTimeout.plusSeconds(1)) < 0) {
                throw new IllegalArgumentException("Redis responseTimeout (" + values.responseTimeout
                        + ") must exceed blockTimeout (" + values.blockTimeout
                        + ") by at least 1 s, or blocking reads of idle streams would time out");
            }
            if (values.claimIdle != null && values.claimIdle.compareTo(values.leaseRenewal.multipliedBy(3)) < 0) {
                throw new IllegalArgumentException("Redis claimIdle (" + values.claimIdle
                        + ") must be at least three leaseRenewal intervals (" + values.leaseRenewal.multipliedBy(3)
                        + "), or live consumers would lose entries they hold");
            }
            if (values.clientCertificate != null && !values.tls) {
                throw new IllegalArgumentException("Redis tlsClientCertificate needs TLS");
            }
            return new RedisConfig(values.clone());
        }
    }
}
