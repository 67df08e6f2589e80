package dev.shove.nats;

import dev.shove.BrokerConfig;
import dev.shove.spi.Bounds;
import dev.shove.spi.DurationText;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * How to reach a NATS server with JetStream, and how the backend uses it. Immutable and thread-safe; take {@link
 * #of(String)} for a server list with every default, or start a {@link #builder(String)}; {@code toString()} never
 * shows a password, token, NKey seed or key-store password.
 *
 * <pre>{@code
 * Broker<Nats> broker = Broker.connect(NatsConfig.of("nats://localhost:4222"));
 *
 * NatsConfig config = NatsConfig.builder("tls://nats-1.internal:4222,tls://nats-2.internal:4222")
 *         .credentials("orders", password)
 *         .trustStore(Path.of("/etc/shove/ca.p12"), storePassword)
 *         .connectionName("orders-service")
 *         .build();
 * }</pre>
 *
 * <p>Servers are {@code nats://host:port} (or {@code tls://host:port}, which turns TLS on), separated by commas; a bare
 * {@code host:port} means {@code nats://}. Authentication is at most one of user and password, a token, an NKey seed,
 * or a {@code .creds} file. TLS verifies the server's certificate against the JVM's trust store (or {@link
 * Builder#trustStore}) and its host name, unless {@link Builder#noTlsHostnameVerification()}. Defaults:
 *
 * <ul>
 *   <li>connection name: the broker's client name ({@code shove-<pid>}), shown by the server's monitoring;
 *   <li>connect timeout {@link #DEFAULT_CONNECT_TIMEOUT}; reconnecting for ever, every {@link
 *       #DEFAULT_RECONNECT_WAIT}; JetStream API and publish acknowledgements awaited at most {@link
 *       #DEFAULT_API_TIMEOUT};
 *   <li>streams on file storage with {@value #DEFAULT_REPLICAS} replica, keeping messages {@link
 *       #DEFAULT_STREAM_MAX_AGE} (limits retention: see {@code docs/backends/nats.md}), publishes deduplicated by
 *       {@code Nats-Msg-Id} within {@link #DEFAULT_DUPLICATE_WINDOW};
 *   <li>consumers with {@code ack_wait} {@link #DEFAULT_ACK_WAIT} (deliveries held longer are kept with {@code
 *       +WPI}), {@code max_ack_pending} {@value #DEFAULT_MAX_ACK_PENDING};
 *   <li>shards of sequenced topics leased for {@link #DEFAULT_SHARD_LEASE} at a time.
 * </ul>
 *
 * @since 0.1.0
 */
public final class NatsConfig implements BrokerConfig<Nats> {
    /** The server of {@link #ofDefaults()}. */
    public static final String DEFAULT_SERVER = "nats://localhost:4222";

    /** The port of a server address that names none. */
    public static final int DEFAULT_PORT = 4222;

    /** The default of {@link Builder#connectTimeout}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

    /** The default of {@link Builder#reconnectWait}. */
    public static final Duration DEFAULT_RECONNECT_WAIT = Duration.ofSeconds(1);

    /** The default of {@link Builder#apiTimeout}. */
    public static final Duration DEFAULT_API_TIMEOUT = Duration.ofSeconds(10);

    /** The default of {@link Builder#ackWait}. */
    public static final Duration DEFAULT_ACK_WAIT = Duration.ofSeconds(10);

    /** The default of {@link Builder#maxAckPending}. */
    public static final int DEFAULT_MAX_ACK_PENDING = 10_000;

    /** The default of {@link Builder#replicas}. */
    public static final int DEFAULT_REPLICAS = 1;

    /** The default of {@link Builder#streamMaxAge}. */
    public static final Duration DEFAULT_STREAM_MAX_AGE = Duration.ofDays(7);

    /** The default of {@link Builder#duplicateWindow}. */
    public static final Duration DEFAULT_DUPLICATE_WINDOW = Duration.ofMinutes(2);

    /** The default of {@link Builder#shardLease}. */
    public static final Duration DEFAULT_SHARD_LEASE = Duration.ofSeconds(10);

    /** The shortest {@code ack_wait}: keep-alives go out every third of it. */
    public static final Duration MIN_ACK_WAIT = Duration.ofMillis(300);

    /** The shortest shard lease: renewals go out every fifth of it. */
    public static final Duration MIN_SHARD_LEASE = Duration.ofSeconds(1);

    /** Where JetStream keeps a topic's messages. */
    public enum Storage {
        /** On disk: survives a server restart. */
        FILE,
        /** In memory: lost when the server stops. */
        MEMORY
    }

    /** Every setting; mutated only by a {@link Builder}, which hands a copy to each config it builds. */
    private static final class Values implements Cloneable {
        List<String> servers = List.of(DEFAULT_SERVER);
        boolean tls;

        @Nullable
        String connectionName;

        @Nullable
        String username;

        @Nullable
        String password;

        @Nullable
        String token;

        @Nullable
        String nkeySeed;

        @Nullable
        Path credentialsFile;

        @Nullable
        SSLContext sslContext;

        @Nullable
        Path trustStore;

        @Nullable
        String trustStorePassword;

        @Nullable
        Path keyStore;

        @Nullable
        String keyStorePassword;

        boolean hostnameVerification = true;
        Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        Duration reconnectWait = DEFAULT_RECONNECT_WAIT;
        Duration apiTimeout = DEFAULT_API_TIMEOUT;
        Duration ackWait = DEFAULT_ACK_WAIT;
        int maxAckPending = DEFAULT_MAX_ACK_PENDING;
        Storage storage = Storage.FILE;
        int replicas = DEFAULT_REPLICAS;

        @Nullable
        Duration streamMaxAge = DEFAULT_STREAM_MAX_AGE;

        long streamMaxMessages = -1;

        @Nullable
        Duration deadLetterMaxAge;

        Duration duplicateWindow = DEFAULT_DUPLICATE_WINDOW;
        Duration shardLease = DEFAULT_SHARD_LEASE;

        @Override
        protected Values clone() {
            try {
                return (Values) super.clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Values v;

    private NatsConfig(Values values) {
        this.v = values;
    }

    /** {@return a local server without authentication, {@value #DEFAULT_SERVER}, every other default} */
    public static NatsConfig ofDefaults() {
        return of(DEFAULT_SERVER);
    }

    /**
     * Servers given as {@code nats://host:port[,nats://host:port...]} (see the class comment), every default.
     *
     * @param servers the servers, separated by commas; {@code tls://} turns TLS on
     * @return the config
     * @throws IllegalArgumentException when a server is not a usable address; the message never shows a password
     */
    public static NatsConfig of(String servers) {
        return builder(servers).build();
    }

    /**
     * A builder starting from a server list (see the class comment) and every default.
     *
     * @param servers the servers, separated by commas; {@code tls://} turns TLS on
     * @return a builder with every other default
     * @throws IllegalArgumentException when a server is not a usable address; the message never shows a password
     */
    public static Builder builder(String servers) {
        Objects.requireNonNull(servers, "servers");
        Values values = new Values();
        parseServers(servers, values);
        return new Builder(values);
    }

    /** {@return a builder starting from this config's settings; changing it leaves this config as it is} */
    public Builder toBuilder() {
        return new Builder(v.clone());
    }

    private static void parseServers(String text, Values values) {
        List<String> servers = new ArrayList<>();
        boolean tls = false;
        for (String raw : text.split(",")) {
            String server = raw.trim();
            if (server.isEmpty()) {
                continue;
            }
            if (!server.contains("://")) {
                server = "nats://" + server;
            }
            URI uri;
            try {
                uri = new URI(server);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("NATS server '" + redact(server) + "' is not a valid address: "
                        + e.getReason() + "; expected nats://host:port");
            }
            String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("nats") && !scheme.equals("tls")) {
                throw new IllegalArgumentException("NATS server '" + redact(server)
                        + "' must start with nats:// or tls:// (expected nats://host:port)");
            }
            if (uri.getHost() == null || uri.getHost().isBlank()) {
                throw new IllegalArgumentException(
                        "NATS server '" + redact(server) + "' names no host (expected nats://host:port)");
            }
            if (uri.getRawUserInfo() != null) {
                throw new IllegalArgumentException("NATS server '" + redact(server)
                        + "' carries credentials; give them with NatsConfig.builder(...).credentials(user, password)"
                        + " or token(...) so that they stay out of logs");
            }
            tls |= scheme.equals("tls");
            int port = uri.getPort() > 0 ? uri.getPort() : DEFAULT_PORT;
            servers.add(scheme + "://" + uri.getHost() + ":" + port);
        }
        if (servers.isEmpty()) {
            throw new IllegalArgumentException(
                    "NATS servers must name at least one server, e.g. nats://localhost:4222");
        }
        values.servers = List.copyOf(servers);
        values.tls = tls;
    }

    /** Replaces the user info of an address with {@code ****}, for messages about an address that may not parse. */
    private static String redact(String server) {
        int scheme = server.indexOf("://");
        int at = server.lastIndexOf('@');
        if (scheme < 0 || at < scheme) {
            return server;
        }
        return server.substring(0, scheme + 3) + "****" + server.substring(at);
    }

    /** {@return the servers, each as {@code scheme://host:port}} */
    public List<String> servers() {
        return v.servers;
    }

    /** {@return whether the connection uses TLS ({@code tls://}, a trust or key store, or an {@link SSLContext})} */
    public boolean isTls() {
        return v.tls;
    }

    /** {@return whether the server certificate must name the host connected to (default true)} */
    public boolean isTlsHostnameVerification() {
        return v.hostnameVerification;
    }

    /** {@return the connection name set with {@link Builder#connectionName}; empty means the broker's client name} */
    public Optional<String> connectionName() {
        return Optional.ofNullable(v.connectionName);
    }

    /** {@return the user name when authenticating with user and password, otherwise empty} */
    public Optional<String> username() {
        return Optional.ofNullable(v.username);
    }

    @Nullable
    String password() {
        return v.password;
    }

    @Nullable
    String token() {
        return v.token;
    }

    @Nullable
    String nkeySeed() {
        return v.nkeySeed;
    }

    /** {@return the {@code .creds} file when authenticating with one, otherwise empty} */
    public Optional<Path> credentialsFile() {
        return Optional.ofNullable(v.credentialsFile);
    }

    @Nullable
    SSLContext sslContext() {
        return v.sslContext;
    }

    @Nullable
    Path trustStore() {
        return v.trustStore;
    }

    @Nullable
    String trustStorePassword() {
        return v.trustStorePassword;
    }

    @Nullable
    Path keyStore() {
        return v.keyStore;
    }

    @Nullable
    String keyStorePassword() {
        return v.keyStorePassword;
    }

    /** {@return the longest wait for the TCP connection and the NATS handshake} */
    public Duration connectTimeout() {
        return v.connectTimeout;
    }

    /** {@return the wait between attempts to reconnect a lost connection} */
    public Duration reconnectWait() {
        return v.reconnectWait;
    }

    /** {@return how long a JetStream API request or a publish acknowledgement is awaited} */
    public Duration apiTimeout() {
        return v.apiTimeout;
    }

    /** {@return the consumers' {@code ack_wait}: how long the server waits for a settlement before it delivers again} */
    public Duration ackWait() {
        return v.ackWait;
    }

    /** {@return the consumers' {@code max_ack_pending}, shared by every consumer of a group} */
    public int maxAckPending() {
        return v.maxAckPending;
    }

    /** {@return where new streams keep their messages} */
    public Storage storage() {
        return v.storage;
    }

    /** {@return the replicas of new streams in a JetStream cluster} */
    public int replicas() {
        return v.replicas;
    }

    /** {@return how long streams keep messages; empty when they keep them until removed by hand} */
    public Optional<Duration> streamMaxAge() {
        return Optional.ofNullable(v.streamMaxAge);
    }

    /**
     * {@return how long new dead-letter streams keep dead letters; empty (the default) when they keep them until
     * replayed or purged}
     */
    public Optional<Duration> deadLetterMaxAge() {
        return Optional.ofNullable(v.deadLetterMaxAge);
    }

    /**
     * {@return how many messages new topic streams keep at most (the oldest go first); empty when the count is
     * unlimited}
     */
    public java.util.OptionalLong streamMaxMessages() {
        return v.streamMaxMessages < 0
                ? java.util.OptionalLong.empty()
                : java.util.OptionalLong.of(v.streamMaxMessages);
    }

    /** {@return the streams' {@code duplicate_window}, within which a {@code Nats-Msg-Id} is published once} */
    public Duration duplicateWindow() {
        return v.duplicateWindow;
    }

    /** {@return how long a consumer owns a shard of a sequenced topic without renewing its lease} */
    public Duration shardLease() {
        return v.shardLease;
    }

    /**
     * Builds a {@link NatsConfig}, starting from a server list (or from another config). Each setter checks its value
     * at once; a later call replaces an earlier one. Not thread-safe.
     */
    public static final class Builder {
        private final Values values;

        private Builder(Values values) {
            this.values = values;
        }

        private void noAuth() {
            values.username = null;
            values.password = null;
            values.token = null;
            values.nkeySeed = null;
            values.credentialsFile = null;
        }

        /**
         * Authenticates with a user and password (replacing any other authentication).
         *
         * @param username the user name, not empty
         * @param password the password; never shown by {@code toString()}
         * @return this builder
         * @throws IllegalArgumentException when {@code username} is empty
         */
        public Builder credentials(String username, String password) {
            Objects.requireNonNull(username, "username");
            Objects.requireNonNull(password, "password");
            if (username.isEmpty()) {
                throw new IllegalArgumentException("NATS user name must not be empty");
            }
            noAuth();
            values.username = username;
            values.password = password;
            return this;
        }

        /**
         * Authenticates with a token (replacing any other authentication).
         *
         * @param token the token, not empty; never shown by {@code toString()}
         * @return this builder
         * @throws IllegalArgumentException when {@code token} is empty
         */
        public Builder token(String token) {
            Objects.requireNonNull(token, "token");
            if (token.isEmpty()) {
                throw new IllegalArgumentException("NATS token must not be empty");
            }
            noAuth();
            values.token = token;
            return this;
        }

        /**
         * Authenticates with an NKey: the user's seed ({@code SU...}), whose public key the server knows (replacing any
         * other authentication).
         *
         * @param seed the user seed; never shown by {@code toString()}
         * @return this builder
         * @throws IllegalArgumentException when {@code seed} is not a user seed ({@code SU...})
         */
        public Builder nkeySeed(String seed) {
            Objects.requireNonNull(seed, "seed");
            if (!seed.startsWith("SU") || seed.length() < 50) {
                throw new IllegalArgumentException(
                        "NATS nkeySeed must be a user seed starting with SU (as printed by nk -gen user)");
            }
            noAuth();
            values.nkeySeed = seed;
            return this;
        }

        /**
         * Authenticates with a {@code .creds} file (a user JWT and its NKey seed, as written by {@code nsc}), read at
         * every connect (replacing any other authentication).
         *
         * @param file the {@code .creds} file
         * @return this builder
         * @throws IllegalArgumentException when {@code file} is not readable
         */
        public Builder credentialsFile(Path file) {
            Objects.requireNonNull(file, "file");
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("NATS credentialsFile " + file + " is not a readable file");
            }
            noAuth();
            values.credentialsFile = file;
            return this;
        }

        /**
         * Connects over TLS with this context (its trust managers decide which server certificates are trusted; its
         * key managers present a client certificate). Replaces {@link #trustStore} and {@link #keyStore}.
         *
         * @param context the TLS context
         * @return this builder
         */
        public Builder tls(SSLContext context) {
            values.sslContext = Objects.requireNonNull(context, "context");
            values.trustStore = null;
            values.trustStorePassword = null;
            values.keyStore = null;
            values.keyStorePassword = null;
            values.tls = true;
            return this;
        }

        /**
         * Connects over TLS, trusting the server certificates of this key store (PKCS #12 or JKS). Replaces {@link
         * #tls(SSLContext)}.
         *
         * @param file the trust store
         * @param password the trust store's password; never shown by {@code toString()}
         * @return this builder
         * @throws IllegalArgumentException when {@code file} is not readable
         */
        public Builder trustStore(Path file, String password) {
            Objects.requireNonNull(password, "password");
            values.trustStore = readable(file, "trustStore");
            values.trustStorePassword = password;
            values.sslContext = null;
            values.tls = true;
            return this;
        }

        /**
         * Connects over TLS, presenting the client certificate of this key store (PKCS #12 or JKS). Replaces {@link
         * #tls(SSLContext)}.
         *
         * @param file the key store
         * @param password the key store's password; never shown by {@code toString()}
         * @return this builder
         * @throws IllegalArgumentException when {@code file} is not readable
         */
        public Builder keyStore(Path file, String password) {
            Objects.requireNonNull(password, "password");
            values.keyStore = readable(file, "keyStore");
            values.keyStorePassword = password;
            values.sslContext = null;
            values.tls = true;
            return this;
        }

        private static Path readable(Path file, String setting) {
            Objects.requireNonNull(file, setting);
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("NATS " + setting + " " + file + " is not a readable file");
            }
            return file;
        }

        /**
         * Skips the check that the server certificate names the host connected to. Only for test servers with
         * self-signed certificates: it allows a man in the middle.
         *
         * @return this builder
         */
        public Builder noTlsHostnameVerification() {
            values.hostnameVerification = false;
            return this;
        }

        /**
         * The connection's name, shown by the server's monitoring ({@code /connz}) and in its logs.
         *
         * @param name not blank; default the broker's client name ({@code shove-<pid>})
         * @return this builder
         * @throws IllegalArgumentException when {@code name} is blank
         */
        public Builder connectionName(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("NATS connectionName must not be blank");
            }
            values.connectionName = name;
            return this;
        }

        /**
         * The longest wait for the TCP connection and the NATS handshake.
         *
         * @param timeout positive, at most 1 day; default 5 s
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is out of range
         */
        public Builder connectTimeout(Duration timeout) {
            values.connectTimeout = Bounds.positive("NATS connectTimeout", timeout);
            return this;
        }

        /**
         * How long to wait between attempts to reconnect a lost connection; it reconnects for ever.
         *
         * @param wait positive, at most 1 day; default 1 s
         * @return this builder
         * @throws IllegalArgumentException when {@code wait} is out of range
         */
        public Builder reconnectWait(Duration wait) {
            values.reconnectWait = Bounds.positive("NATS reconnectWait", wait);
            return this;
        }

        /**
         * The longest wait for a JetStream API answer or a publish acknowledgement.
         *
         * @param timeout positive, at most 1 day; default 10 s
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is out of range
         */
        public Builder apiTimeout(Duration timeout) {
            values.apiTimeout = Bounds.positive("NATS apiTimeout", timeout);
            return this;
        }

        /**
         * The consumers' {@code ack_wait} (default 10 s, at least 300 ms): a delivery unsettled this long after its
         * consumer died is delivered again. A live consumer keeps its unsettled deliveries with {@code +WPI} every
         * third of it, so handlers may run longer.
         *
         * @param ackWait at least {@link #MIN_ACK_WAIT}, at most 1 day
         * @return this builder
         * @throws IllegalArgumentException when {@code ackWait} is out of range
         */
        public Builder ackWait(Duration ackWait) {
            Bounds.positive("NATS ackWait", ackWait);
            if (ackWait.compareTo(MIN_ACK_WAIT) < 0) {
                throw new IllegalArgumentException("NATS ackWait must be at least " + DurationText.of(MIN_ACK_WAIT)
                        + " and at most 1 day, was " + DurationText.of(ackWait));
            }
            values.ackWait = ackWait;
            return this;
        }

        /**
         * The consumers' {@code max_ack_pending} (default {@value #DEFAULT_MAX_ACK_PENDING}): how many deliveries a
         * group may have unsettled at once, all its consumers together. At least the consumers times their prefetch.
         *
         * @param maxAckPending between 1 and 10,000,000
         * @return this builder
         * @throws IllegalArgumentException when {@code maxAckPending} is out of range
         */
        public Builder maxAckPending(int maxAckPending) {
            if (maxAckPending < 1 || maxAckPending > 10_000_000) {
                throw new IllegalArgumentException(
                        "NATS maxAckPending must be between 1 and 10000000, was " + maxAckPending);
            }
            values.maxAckPending = maxAckPending;
            return this;
        }

        /**
         * Where new streams keep messages; streams that exist already keep theirs.
         *
         * @param storage default {@link Storage#FILE}
         * @return this builder
         */
        public Builder storage(Storage storage) {
            values.storage = Objects.requireNonNull(storage, "storage");
            return this;
        }

        /**
         * Replicas of new streams in a JetStream cluster.
         *
         * @param replicas between 1 and 5; default 1
         * @return this builder
         * @throws IllegalArgumentException when {@code replicas} is out of range
         */
        public Builder replicas(int replicas) {
            if (replicas < 1 || replicas > 5) {
                throw new IllegalArgumentException("NATS replicas must be between 1 and 5, was " + replicas);
            }
            values.replicas = replicas;
            return this;
        }

        /**
         * How long new topic streams keep messages (default 7 days, at most 365 days): acknowledged messages stay
         * until then, so that groups can start at or seek to any of them. A topic's retry copies wait in its stream,
         * so declaring a topic whose longest hold tier could outlast this is refused (the stream must keep messages
         * for at least twice the longest tier). Dead-letter streams do not use
         * it ({@link #deadLetterMaxAge}). At least the {@link #duplicateWindow}.
         *
         * @param maxAge positive, at most 365 days
         * @return this builder
         * @throws IllegalArgumentException when {@code maxAge} is out of range
         */
        public Builder streamMaxAge(Duration maxAge) {
            values.streamMaxAge = Bounds.within("NATS streamMaxAge", maxAge, false, Duration.ofDays(365));
            return this;
        }

        /**
         * New streams keep messages until they are removed by hand (or by the server's other limits).
         *
         * @return this builder
         */
        public Builder noStreamMaxAge() {
            values.streamMaxAge = null;
            return this;
        }

        /**
         * How many messages new topic streams keep at most (default unlimited): past it the oldest are removed, read
         * or not, retry copies waiting in the stream included, so set it well above any backlog a group may build up
         * (declaring a topic with retries logs a WARN saying so). Dead-letter streams do not use it: dead letters are
         * never removed to make room.
         *
         * @param maxMessages at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code maxMessages} is less than 1
         */
        public Builder streamMaxMessages(long maxMessages) {
            if (maxMessages < 1) {
                throw new IllegalArgumentException("NATS streamMaxMessages must be at least 1, was " + maxMessages);
            }
            values.streamMaxMessages = maxMessages;
            return this;
        }

        /**
         * How long new dead-letter streams keep dead letters (default: until replayed or purged).
         *
         * @param maxAge positive, at most 365 days
         * @return this builder
         * @throws IllegalArgumentException when {@code maxAge} is out of range
         */
        public Builder deadLetterMaxAge(Duration maxAge) {
            values.deadLetterMaxAge = Bounds.within("NATS deadLetterMaxAge", maxAge, false, Duration.ofDays(365));
            return this;
        }

        /**
         * Dead-letter streams keep dead letters until they are replayed or purged (the default).
         *
         * @return this builder
         */
        public Builder noDeadLetterMaxAge() {
            values.deadLetterMaxAge = null;
            return this;
        }

        /**
         * The {@code duplicate_window} of new streams: a publish retried within it with the same {@code Nats-Msg-Id}
         * is stored once.
         *
         * @param window positive, at most 1 day; default 2 min
         * @return this builder
         * @throws IllegalArgumentException when {@code window} is out of range
         */
        public Builder duplicateWindow(Duration window) {
            values.duplicateWindow = Bounds.positive("NATS duplicateWindow", window);
            return this;
        }

        /**
         * How long a consumer owns a shard of a sequenced topic without renewing (default 10 s, at least 1 s): when a
         * consumer dies, another takes its shards over after this. Every process of a deployment must use the same
         * value (it is the lease bucket's {@code max_age}).
         *
         * @param lease whole milliseconds, at least {@link #MIN_SHARD_LEASE}, at most 1 day
         * @return this builder
         * @throws IllegalArgumentException when {@code lease} is out of range or not whole milliseconds
         */
        public Builder shardLease(Duration lease) {
            Bounds.positive("NATS shardLease", lease);
            if (lease.compareTo(MIN_SHARD_LEASE) < 0 || lease.toNanos() % 1_000_000 != 0) {
                throw new IllegalArgumentException(
                        "NATS shardLease must be whole milliseconds, at least 1 s and at most 1 day, was "
                                + DurationText.of(lease));
            }
            values.shardLease = lease;
            return this;
        }

        /** {@return the config as set; the builder may be changed and built again without affecting it} */
        public NatsConfig build() {
            int auths = (values.username != null ? 1 : 0)
                    + (values.token != null ? 1 : 0)
                    + (values.nkeySeed != null ? 1 : 0)
                    + (values.credentialsFile != null ? 1 : 0);
            if (auths > 1) {
                throw new IllegalStateException("NATS authentication is set more than once"); // setters prevent it
            }
            checkAgainstDuplicateWindow("streamMaxAge", values.streamMaxAge, values.duplicateWindow);
            checkAgainstDuplicateWindow("deadLetterMaxAge", values.deadLetterMaxAge, values.duplicateWindow);
            return new NatsConfig(values.clone());
        }
    }

    private static void checkAgainstDuplicateWindow(String setting, @Nullable Duration maxAge, Duration window) {
        if (maxAge != null && maxAge.compareTo(window) < 0) {
            throw new IllegalArgumentException(
                    ("NATS %s %s is shorter than duplicateWindow %s: JetStream refuses such a"
                                    + " stream. Raise %s, or lower duplicateWindow to at most %s")
                            .formatted(
                                    setting,
                                    DurationText.of(maxAge),
                                    DurationText.of(window),
                                    setting,
                                    DurationText.of(maxAge)));
        }
    }

    @Override
    public Transport open(TransportContext context) {
        return new NatsTransport(this, context);
    }

    /** How the connection authenticates, for messages: never a secret. */
    String authentication() {
        if (v.username != null) {
            return "user '" + v.username + "'";
        }
        if (v.token != null) {
            return "token";
        }
        if (v.nkeySeed != null) {
            return "nkey";
        }
        if (v.credentialsFile != null) {
            return "credentials file " + v.credentialsFile;
        }
        return "none";
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("NatsConfig[servers=").append(String.join(",", v.servers));
        connectionName().ifPresent(n -> b.append(", connectionName=").append(n));
        b.append(", auth=").append(authentication());
        if (v.tls) {
            b.append(", tls=")
                    .append(
                            v.sslContext != null
                                    ? "custom context"
                                    : v.trustStore != null ? "trustStore " + v.trustStore : "JVM trust store");
            if (v.keyStore != null) {
                b.append(", keyStore=").append(v.keyStore);
            }
            if (!v.hostnameVerification) {
                b.append(", tlsHostnameVerification=off");
            }
        }
        b.append(", ackWait=").append(v.ackWait);
        b.append(", maxAckPending=").append(v.maxAckPending);
        b.append(", storage=").append(v.storage);
        b.append(", replicas=").append(v.replicas);
        b.append(", streamMaxAge=").append(v.streamMaxAge == null ? "none" : v.streamMaxAge);
        if (v.streamMaxMessages > 0) {
            b.append(", streamMaxMessages=").append(v.streamMaxMessages);
        }
        if (v.deadLetterMaxAge != null) {
            b.append(", deadLetterMaxAge=").append(v.deadLetterMaxAge);
        }
        b.append(", duplicateWindow=").append(v.duplicateWindow);
        b.append(", shardLease=").append(v.shardLease);
        b.append(", apiTimeout=").append(v.apiTimeout);
        return b.append(']').toString();
    }
}
