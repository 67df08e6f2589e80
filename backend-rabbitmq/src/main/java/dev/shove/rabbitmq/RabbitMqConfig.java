package dev.shove.rabbitmq;

import dev.shove.BrokerConfig;
import dev.shove.spi.Bounds;
import dev.shove.spi.DurationText;
import dev.shove.spi.TlsStores;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * How to reach a RabbitMQ broker, and how the backend behaves on it. Immutable and thread-safe; take {@link
 * #of(String)} for a URI with every default, or start a {@link #builder(String)} from one; {@code toString()} never
 * shows a password.
 *
 * <pre>{@code
 * Broker<RabbitMq> broker = Broker.connect(RabbitMqConfig.of("amqp://app:secret@rabbit.internal:5672/orders"));
 *
 * RabbitMqConfig config = RabbitMqConfig.builder("amqps://app:secret@rabbit.internal/orders")
 *         .connectionName("orders-service")
 *         .publishChannels(8)
 *         .build();
 * }</pre>
 *
 * <p>The URI follows the AMQP URI scheme: {@code amqp://user:password@host:port/vhost} (user, password and vhost
 * percent-encoded; no path or {@code /} means the default vhost {@code /}; query parameters are not accepted, use the
 * builder's methods). {@code amqps://} connects over TLS, verifying the server's certificate against the JVM's
 * trust store and its host name, unless {@link Builder#tls(SSLContext)} gives another context. Defaults:
 *
 * <ul>
 *   <li>connection name: the broker's client name ({@code shove-<pid>}), shown in the management UI;
 *   <li>management API (queue depth for the autoscaler): {@code http://host:15672} ({@code https://host:15671} when
 *       the AMQP connection uses TLS), with its own credentials when given ({@link Builder#managementCredentials},
 *       or the user-info of {@link Builder#managementApi}'s URI), else with the AMQP ones (never sent in clear text
 *       over {@code http} when the AMQP connection uses TLS); without it, depth comes from a passive queue declare;
 *   <li>{@value #DEFAULT_PUBLISH_CHANNELS} confirm-mode publishing channels; {@value #DEFAULT_PUBLISH_ATTEMPTS}
 *       attempts per publish with jittered backoff when the connection fails under it; a confirm awaited at most
 *       {@link #DEFAULT_CONFIRM_TIMEOUT};
 *   <li>automatic connection recovery every {@link #DEFAULT_RECOVERY_INTERVAL}; connect timeout {@link
 *       #DEFAULT_CONNECT_TIMEOUT};
 *   <li>settlement with publisher confirms (not {@link Builder#transactionalSettlement() transactional});
 *   <li>classic durable queues (not {@link Builder#quorumQueues() quorum queues}).
 * </ul>
 *
 * @since 0.1.0
 */
public final class RabbitMqConfig implements BrokerConfig<RabbitMq> {
    /** The URI of {@link #ofDefaults()}: a local broker with RabbitMQ's default user. */
    public static final String DEFAULT_URI = "amqp://guest:guest@localhost:5672";

    /** The AMQP port when an {@code amqp://} URI names none. */
    public static final int DEFAULT_PORT = 5672;

    /** The AMQP port when an {@code amqps://} URI names none. */
    public static final int DEFAULT_TLS_PORT = 5671;

    /** The management API's port on the broker's host, over HTTP. */
    public static final int DEFAULT_MANAGEMENT_PORT = 15672;

    /** The management API's port on the broker's host, over HTTPS (when the connection uses TLS). */
    public static final int DEFAULT_MANAGEMENT_TLS_PORT = 15671;

    /** The default number of confirm-mode channels publishers share. */
    public static final int DEFAULT_PUBLISH_CHANNELS = 4;

    /** The default number of tries of a publish whose connection or channel fails under it. */
    public static final int DEFAULT_PUBLISH_ATTEMPTS = 3;

    /** The default longest wait for the broker's confirm of one publish attempt. */
    public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(30);

    /** The default longest wait for the TCP connection and AMQP handshake. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    /** The default time between two dials of a lost connection. */
    public static final Duration DEFAULT_RECOVERY_INTERVAL = Duration.ofSeconds(2);

    private static final String DEFAULT_USER = "guest";
    private static final String DEFAULT_VHOST = "/";

    /** Every setting; mutated only by a {@link Builder}, which hands a copy to each config it builds. */
    private static final class Values implements Cloneable {
        boolean tls;
        String host = "localhost";
        int port = DEFAULT_PORT;
        String username = DEFAULT_USER;
        String password = DEFAULT_USER;
        String virtualHost = DEFAULT_VHOST;

        @Nullable
        SSLContext sslContext;

        boolean hostnameVerification = true;

        @Nullable
        String connectionName;

        boolean managementEnabled = true;

        @Nullable
        URI managementUri;

        @Nullable
        String managementUsername;

        @Nullable
        String managementPassword;

        int publishChannels = DEFAULT_PUBLISH_CHANNELS;
        int publishAttempts = DEFAULT_PUBLISH_ATTEMPTS;
        Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;
        Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        Duration recoveryInterval = DEFAULT_RECOVERY_INTERVAL;
        boolean transactional;
        boolean quorum;

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

    private RabbitMqConfig(Values values) {
        this.v = values;
    }

    /** {@return a local broker with the default user: {@value #DEFAULT_URI}} */
    public static RabbitMqConfig ofDefaults() {
        return of(DEFAULT_URI);
    }

    /**
     * A broker at an {@code amqp://} or {@code amqps://} URI (see the class comment).
     *
     * @param uri e.g. {@code amqp://user:password@rabbit:5672/vhost}
     * @return the config, every other setting at its default
     * @throws IllegalArgumentException when the URI is not a usable AMQP URI; the message never shows its password
     */
    public static RabbitMqConfig of(String uri) {
        return builder(uri).build();
    }

    /**
     * A builder starting from an {@code amqp://} or {@code amqps://} URI (see the class comment) and every default.
     *
     * @param uri e.g. {@code amqp://user:password@rabbit:5672/vhost}
     * @return the builder
     * @throws IllegalArgumentException when the URI is not a usable AMQP URI; the message never shows its password
     */
    public static Builder builder(String uri) {
        Objects.requireNonNull(uri, "uri");
        Values values = new Values();
        parseUri(uri, values);
        return new Builder(values);
    }

    /** {@return a builder starting from this config} */
    public Builder toBuilder() {
        return new Builder(v.clone());
    }

    private static void parseUri(String text, Values values) {
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("RabbitMQ URI '" + redact(text) + "' is not a valid URI: "
                    + e.getReason() + "; expected amqp://user:password@host:port/vhost");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("amqp") && !scheme.equals("amqps")) {
            throw new IllegalArgumentException("RabbitMQ URI '" + redact(text)
                    + "' must start with amqp:// or amqps:// (expected amqp://user:password@host:port/vhost)");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            throw new IllegalArgumentException("RabbitMQ URI '" + redact(text)
                    + "' names no host (expected amqp://user:password@host:port/vhost)");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("RabbitMQ URI '" + redact(text)
                    + "' has query parameters or a fragment, which are not supported; set timeouts and TLS with"
                    + " RabbitMqConfig's with... methods");
        }
        values.tls = scheme.equals("amqps");
        values.host = uri.getHost();
        values.port = uri.getPort() > 0 ? uri.getPort() : values.tls ? DEFAULT_TLS_PORT : DEFAULT_PORT;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            if (user.isEmpty()) {
                throw new IllegalArgumentException("RabbitMQ URI '" + redact(text) + "' has an empty user name");
            }
            values.username = user;
            values.password = colon < 0 ? "" : decode(userInfo.substring(colon + 1));
        }
        String path = uri.getRawPath();
        if (path != null && path.length() > 1) {
            String raw = path.substring(1);
            if (raw.contains("/")) {
                throw new IllegalArgumentException("RabbitMQ URI '" + redact(text)
                        + "' has a path with several segments; the vhost is one segment, percent-encoded (vhost '/'"
                        + " is %2F)");
            }
            values.virtualHost = decode(raw);
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** Replaces the password of an AMQP URI with {@code ****}, for messages about a URI that may not parse. */
    static String redact(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (scheme < 0 || at < scheme) {
            return uri;
        }
        int colon = uri.indexOf(':', scheme + 3);
        if (colon < 0 || colon > at) {
            return uri;
        }
        return uri.substring(0, colon + 1) + "****" + uri.substring(at);
    }

    private static void requirePositive(Duration d, String name) {
        Bounds.positive("RabbitMQ " + name, d);
    }

    /** {@return the broker's host name or address} */
    public String host() {
        return v.host;
    }

    /** {@return the broker's AMQP port} */
    public int port() {
        return v.port;
    }

    /** {@return the AMQP user name (the password is never shown)} */
    public String username() {
        return v.username;
    }

    String password() {
        return v.password;
    }

    /** {@return the virtual host, {@code /} unless the URI or the builder names another} */
    public String virtualHost() {
        return v.virtualHost;
    }

    /** {@return whether the connection uses TLS ({@code amqps://} or {@link Builder#tls(SSLContext)})} */
    public boolean isTls() {
        return v.tls;
    }

    Optional<SSLContext> sslContext() {
        return Optional.ofNullable(v.sslContext);
    }

    /** {@return whether a TLS connection checks that the server certificate names the host; true unless turned off} */
    public boolean isTlsHostnameVerification() {
        return v.hostnameVerification;
    }

    /** {@return the connection name set with {@link Builder#connectionName}; empty means the broker's client name} */
    public Optional<String> connectionName() {
        return Optional.ofNullable(v.connectionName);
    }

    /** {@return the management API's base URI, or empty when {@link Builder#noManagementApi() disabled}} */
    public Optional<URI> managementApi() {
        if (!v.managementEnabled) {
            return Optional.empty();
        }
        if (v.managementUri != null) {
            return Optional.of(v.managementUri);
        }
        String scheme = v.tls ? "https" : "http";
        int port = v.tls ? DEFAULT_MANAGEMENT_TLS_PORT : DEFAULT_MANAGEMENT_PORT;
        try {
            return Optional.of(new URI(scheme, null, v.host, port, null, null, null));
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot derive the management API address from host " + v.host, e);
        }
    }

    /**
     * The management API's user: the one given by {@link Builder#managementCredentials} or by the user-info of {@link
     * Builder#managementApi}'s URI, else the AMQP user.
     *
     * @return the user name
     */
    public String managementUsername() {
        return v.managementUsername != null ? v.managementUsername : v.username;
    }

    String managementPassword() {
        return v.managementPassword != null ? v.managementPassword : v.password;
    }

    /** {@return how many confirm-mode channels publishers share} */
    public int publishChannels() {
        return v.publishChannels;
    }

    /** {@return how many times a publish is tried when the connection or channel fails under it} */
    public int publishAttempts() {
        return v.publishAttempts;
    }

    /** {@return the longest wait for the broker's confirm of one publish attempt} */
    public Duration confirmTimeout() {
        return v.confirmTimeout;
    }

    /** {@return the longest wait for the TCP connection and AMQP handshake} */
    public Duration connectTimeout() {
        return v.connectTimeout;
    }

    /** {@return how often a lost connection is re-dialled until it is back} */
    public Duration recoveryInterval() {
        return v.recoveryInterval;
    }

    /** {@return whether settlements commit their copy and the acknowledgement in one AMQP transaction} */
    public boolean isTransactionalSettlement() {
        return v.transactional;
    }

    /** {@return whether topics are declared as quorum queues ({@link Builder#quorumQueues()}) rather than classic ones} */
    public boolean isQuorumQueues() {
        return v.quorum;
    }

    /** {@code uri} without its user-info ({@code user:password@}), for addresses that go into messages and logs. */
    static URI withoutUserInfo(URI uri) {
        if (uri.getRawUserInfo() == null) {
            return uri;
        }
        try {
            return new URI(
                    uri.getScheme(),
                    null,
                    uri.getHost(),
                    uri.getPort(),
                    uri.getPath(),
                    uri.getQuery(),
                    uri.getFragment());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("RabbitMQ management API URI cannot be read: " + e.getReason(), e);
        }
    }

    /** Replaces the user-info of an http(s) URI with {@code ****}, for messages about a URI that may not parse. */
    static String redactUserInfo(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        return scheme < 0 || at < scheme ? uri : uri.substring(0, scheme + 3) + "****" + uri.substring(at);
    }

    /** {@return the broker's address as a URI with the password masked, for messages and logs} */
    public String redactedUri() {
        return (v.tls ? "amqps" : "amqp") + "://" + encode(v.username) + ":****@"
                + (v.host.contains(":") && !v.host.startsWith("[") ? "[" + v.host + "]" : v.host) + ":" + v.port
                + "/" + encode(v.virtualHost);
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * Builds a {@link RabbitMqConfig}, starting from a URI's host, port, user, password and virtual host (or from
     * another config). Each setter checks its value at once. Not thread-safe.
     */
    public static final class Builder {
        private final Values values;

        private Builder(Values values) {
            this.values = values;
        }

        /**
         * Another user and password (instead of the URI's).
         *
         * @param username not empty
         * @param password the password
         * @return this builder
         * @throws IllegalArgumentException when {@code username} is empty
         */
        public Builder credentials(String username, String password) {
            Objects.requireNonNull(username, "username");
            Objects.requireNonNull(password, "password");
            if (username.isEmpty()) {
                throw new IllegalArgumentException("RabbitMQ user name must not be empty");
            }
            values.username = username;
            values.password = password;
            return this;
        }

        /**
         * Another virtual host (instead of the URI's).
         *
         * @param virtualHost not empty; the default one is {@code /}
         * @return this builder
         * @throws IllegalArgumentException when {@code virtualHost} is empty
         */
        public Builder virtualHost(String virtualHost) {
            Objects.requireNonNull(virtualHost, "virtualHost");
            if (virtualHost.isEmpty()) {
                throw new IllegalArgumentException(
                        "RabbitMQ virtual host must not be empty (the default one is \"/\")");
            }
            values.virtualHost = virtualHost;
            return this;
        }

        /**
         * Connects over TLS with this context (its trust managers decide which server certificates are trusted; its key
         * managers present a client certificate). Turns TLS on for an {@code amqp://} URI too.
         *
         * @param context the TLS context
         * @return this builder
         */
        public Builder tls(SSLContext context) {
            Objects.requireNonNull(context, "context");
            values.tls = true;
            values.sslContext = context;
            return this;
        }

        /**
         * Connects over TLS trusting the certificates in a trust store file (PKCS12, or JKS for a {@code .jks} file)
         * instead of the JVM's default trust: the usual way to trust a private certificate authority. Loaded at once;
         * a shorthand for {@link #tls(SSLContext)} with a context made from the file.
         *
         * @param file the trust store
         * @param password its password
         * @return this builder
         * @throws IllegalArgumentException when the file cannot be read or the password is wrong (the message names
         *     the file, never the password)
         */
        public Builder trustStore(Path file, String password) {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(password, "password");
            try {
                return tls(TlsStores.context(file, password, null, null));
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalArgumentException(
                        "RabbitMQ TLS: cannot load the trust store " + file + " (" + e.getMessage()
                                + "); check the file and its password",
                        e);
            }
        }

        /**
         * Skips the check that the server certificate names the host connected to. Only for test brokers with
         * self-signed certificates: it allows a man in the middle.
         *
         * @return this builder
         */
        public Builder noTlsHostnameVerification() {
            values.hostnameVerification = false;
            return this;
        }

        /**
         * The name of the AMQP connection, shown in the management UI and in the broker's logs.
         *
         * @param name not blank
         * @return this builder
         * @throws IllegalArgumentException when {@code name} is blank
         */
        public Builder connectionName(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("RabbitMQ connection name must not be blank");
            }
            values.connectionName = name;
            return this;
        }

        /**
         * Where the management API answers, e.g. {@code http://rabbit.internal:15672}; it gives the queue depth the
         * autoscaler reads ({@code messages_ready}, {@code messages_unacknowledged}). A user-info in the URI ({@code
         * https://monitor:secret@rabbit.internal:15671}, percent-encoded) sets the management credentials as {@link
         * #managementCredentials} does (the later call wins) and is kept out of the address shown in {@code toString}
         * and error messages.
         *
         * @param baseUri an {@code http://} or {@code https://} URI
         * @return this builder
         * @throws IllegalArgumentException when {@code baseUri} is not a usable HTTP URI
         */
        public Builder managementApi(String baseUri) {
            Objects.requireNonNull(baseUri, "baseUri");
            URI uri;
            try {
                uri = new URI(baseUri.endsWith("/") ? baseUri.substring(0, baseUri.length() - 1) : baseUri);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException(
                        "RabbitMQ management API URI '" + redactUserInfo(baseUri) + "' is not valid: " + e.getReason());
            }
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
                throw new IllegalArgumentException("RabbitMQ management API URI '" + redactUserInfo(baseUri)
                        + "' must be an http:// or https:// address such as http://localhost:15672");
            }
            String userInfo = uri.getRawUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
                if (user.isEmpty()) {
                    throw new IllegalArgumentException(
                            "RabbitMQ management API URI '" + redactUserInfo(baseUri) + "' has an empty user name");
                }
                managementCredentials(user, colon < 0 ? "" : decode(userInfo.substring(colon + 1)));
            }
            values.managementEnabled = true;
            values.managementUri = withoutUserInfo(uri);
            return this;
        }

        /**
         * Credentials for the management API (the user needs the {@code monitoring} tag). Without them the management
         * API gets the AMQP credentials.
         *
         * @param username the management user name
         * @param password its password
         * @return this builder
         */
        public Builder managementCredentials(String username, String password) {
            Objects.requireNonNull(username, "username");
            Objects.requireNonNull(password, "password");
            if (username.isEmpty()) {
                throw new IllegalArgumentException("RabbitMQ management user name must not be empty");
            }
            values.managementUsername = username;
            values.managementPassword = password;
            return this;
        }

        /**
         * Never calls the management API: queue depth then comes from a passive {@code queue.declare} (ready messages
         * only; unacknowledged ones are not counted).
         *
         * @return this builder
         */
        public Builder noManagementApi() {
            values.managementEnabled = false;
            return this;
        }

        /**
         * How many confirm-mode channels publishers share (default {@value #DEFAULT_PUBLISH_CHANNELS}). Each queue is
         * published on one of them, which keeps its publish order; more channels spread more queues.
         *
         * @param channels 1 to 64
         * @return this builder
         * @throws IllegalArgumentException when {@code channels} is out of range
         */
        public Builder publishChannels(int channels) {
            if (channels < 1 || channels > 64) {
                throw new IllegalArgumentException(
                        "RabbitMQ publishChannels must be between 1 and 64, was " + channels);
            }
            values.publishChannels = channels;
            return this;
        }

        /**
         * How many times a publish is tried when the connection or channel fails under it, with jittered exponential
         * backoff (100 ms doubling, at most 2 s) between attempts (default {@value #DEFAULT_PUBLISH_ATTEMPTS}). A
         * message the broker refuses ({@code basic.nack}, or a channel error such as 406 PRECONDITION_FAILED for a
         * message over its {@code max_message_size}) or cannot route is never retried.
         *
         * @param attempts 1 to 100
         * @return this builder
         * @throws IllegalArgumentException when {@code attempts} is out of range
         */
        public Builder publishAttempts(int attempts) {
            if (attempts < 1 || attempts > 100) {
                throw new IllegalArgumentException(
                        "RabbitMQ publishAttempts must be between 1 and 100, was " + attempts);
            }
            values.publishAttempts = attempts;
            return this;
        }

        /**
         * The longest wait for the broker's confirm of one publish attempt (default 30 s).
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder confirmTimeout(Duration timeout) {
            requirePositive(timeout, "confirmTimeout");
            values.confirmTimeout = timeout;
            return this;
        }

        /**
         * The longest wait for the TCP connection and AMQP handshake when connecting (default 10 s).
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            requirePositive(timeout, "connectTimeout");
            if (timeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("RabbitMQ connectTimeout is too long: " + DurationText.of(timeout));
            }
            values.connectTimeout = timeout;
            return this;
        }

        /**
         * How often a lost connection is re-dialled until it is back (default 2 s).
         *
         * @param interval positive
         * @return this builder
         */
        public Builder recoveryInterval(Duration interval) {
            requirePositive(interval, "recoveryInterval");
            values.recoveryInterval = interval;
            return this;
        }

        /**
         * Settles through AMQP transactions: the copy a settlement publishes (to a hold queue or the DLQ) and the
         * acknowledgement of the original commit together, so a crash between the two can neither lose the message nor
         * duplicate it. Costs a broker round trip with an fsync per commit on each consumer channel (settlements that
         * complete together share one commit); see {@code docs/backends/rabbitmq.md}. Does not make the handler's own
         * side effects atomic.
         *
         * @return this builder
         */
        public Builder transactionalSettlement() {
            values.transactional = true;
            return this;
        }

        /**
         * Declares every queue of a topic as a quorum queue ({@code x-queue-type = quorum}): the main queue or the
         * shards, the hold tiers and the dead-letter queue. Quorum queues are replicated, durable queues and the type
         * RabbitMQ recommends where data safety matters; they need RabbitMQ 3.10 or newer (hold tiers use their
         * message TTL and at-least-once dead-lettering). What changes for the application:
         *
         * <ul>
         *   <li>{@link dev.shove.MessageMetadata#deliveryCount()} is known: 1 on a first delivery, one more for each time
         *       the broker got the message back (a crash, a drain, an abandoned handler), from the queue's {@code
         *       x-delivery-count} header;
         *   <li>a sequenced topic's consumer splits its window evenly between the shards (quorum queues refuse the
         *       shared {@code basic.qos global} a classic consumer uses), so its window (prefetch plus lane buffer)
         *       must be at least the topic's {@code routingShards};
         *   <li>a sequenced retry waiting in place still restarts from its published retry count after a crash
         *       (capability {@code durableSequencedRetries} stays off): the delivery count counts returns, not
         *       retries, carries no due time, and AMQP cannot rewrite the headers of a queued message;
         *   <li>queues that exist as classic queues cannot become quorum queues in place (nor the reverse): declaring
         *       fails with a {@link dev.shove.TopologyException} naming the queue.
         * </ul>
         *
         * A broadcast subscription's own queue stays a classic, exclusive queue (quorum queues cannot be exclusive).
         * See {@code docs/backends/rabbitmq.md}.
         *
         * @return this builder
         */
        public Builder quorumQueues() {
            values.quorum = true;
            return this;
        }

        /**
         * The config as set.
         *
         * @return the config
         * @throws IllegalArgumentException when the AMQP connection uses TLS and the AMQP password would go to a
         *     plain {@code http://} management API in clear text
         */
        public RabbitMqConfig build() {
            RabbitMqConfig config = new RabbitMqConfig(values.clone());
            URI management = config.managementApi().orElse(null);
            if (values.tls
                    && values.managementUsername == null
                    && management != null
                    && "http".equalsIgnoreCase(management.getScheme())) {
                throw new IllegalArgumentException("RabbitMQ management API " + management
                        + " is plain http while the AMQP connection uses TLS: shove would send the AMQP password to"
                        + " it in clear text. Give it an https:// address, its own credentials with"
                        + " managementCredentials(user, password), or noManagementApi()");
            }
            return config;
        }
    }

    @Override
    public Transport open(TransportContext context) {
        return new RabbitMqTransport(this, context);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("RabbitMqConfig[uri=").append(redactedUri());
        connectionName().ifPresent(n -> b.append(", connectionName=").append(n));
        if (v.sslContext != null) {
            b.append(", tls=custom context");
        }
        if (!v.hostnameVerification) {
            b.append(", tlsHostnameVerification=off");
        }
        b.append(", management=").append(managementApi().map(URI::toString).orElse("off"));
        b.append(", publishChannels=").append(v.publishChannels);
        b.append(", publishAttempts=").append(v.publishAttempts);
        b.append(", confirmTimeout=").append(v.confirmTimeout);
        b.append(", recoveryInterval=").append(v.recoveryInterval);
        b.append(", settlement=").append(v.transactional ? "transactional" : "confirms");
        b.append(", queues=").append(v.quorum ? "quorum" : "classic");
        return b.append(']').toString();
    }
}
