package dev.shove.redis;

import dev.shove.AuthenticationException;
import dev.shove.BrokerUnavailableException;
import dev.shove.spi.ConnectErrors;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.UnblockType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.metrics.MicrometerCommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's connections: one shared, multiplexed connection (standalone or cluster) for publishing, settling
 * and everything else that does not block, and one dedicated connection per subscription for its blocking reads
 * ({@code XREADGROUP ... BLOCK} holds a connection until it returns). On a cluster, a reader connects straight to the
 * master serving its topic's slot. Thread-safe.
 */
final class RedisConnector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);

    /** Keys and field names as UTF-8 strings; values (payloads, header values, script arguments) as bytes. */
    static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    private final RedisConfig config;
    private final String clientName;
    private final ClientResources resources;
    private final @Nullable RedisClient client;
    private final @Nullable RedisClusterClient clusterClient;
    private final @Nullable RedisClient nodeClient;
    private final StatefulConnection<String, byte[]> shared;
    private final RedisClusterAsyncCommands<String, byte[]> async;

    /**
     * Connects; with {@code clientMeters}, lettuce's command latencies ({@code lettuce.command.completion} and {@code
     * lettuce.command.firstresponse} timers, by command and server) are recorded there.
     */
    RedisConnector(RedisConfig config, String clientName, @Nullable MeterRegistry clientMeters) {
        this.config = config;
        this.clientName = clientName;
        DefaultClientResources.Builder resourceSettings =
                DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2);
        if (clientMeters != null) {
            resourceSettings.commandLatencyRecorder(
                    new MicrometerCommandLatencyRecorder(clientMeters, MicrometerOptions.create()));
        }
        this.resources = resourceSettings.build();
        RedisClient standalone = null;
        RedisClusterClient cluster = null;
        RedisClient nodes = null;
        StatefulConnection<String, byte[]> connection = null;
        try {
            if (config.isCluster()) {
                List<RedisURI> seeds = new ArrayList<>();
                for (RedisConfig.Endpoint e : config.endpoints()) {
                    seeds.add(uri(e.host(), e.port()));
                }
                cluster = RedisClusterClient.create(resources, seeds);
                cluster.setOptions(ClusterClientOptions.builder(clientOptions()).build());
                StatefulRedisClusterConnection<String, byte[]> c = cluster.connect(CODEC);
                connection = c;
                this.async = c.async();
                nodes = RedisClient.create(resources);
                nodes.setOptions(clientOptions());
            } else {
                RedisConfig.Endpoint e = config.endpoints().getFirst();
                standalone = RedisClient.create(resources, uri(e.host(), e.port()));
                standalone.setOptions(clientOptions());
                StatefulRedisConnection<String, byte[]> c = standalone.connect(CODEC);
                connection = c;
                this.async = c.async();
            }
        } catch (RuntimeException e) {
            if (connection != null) {
                connection.close();
            }
            shutdown(standalone, cluster, nodes, resources);
            AuthenticationException refused = refused(config, e);
            if (refused != null) {
                throw refused;
            }
            throw ConnectErrors.cannotConnect("Redis", config.redactedUri(), config.connectTimeout(), e, "redis");
        }
        this.client = standalone;
        this.clusterClient = cluster;
        this.nodeClient = nodes;
        this.shared = connection;
    }

    /**
     * Redis refused the login ({@code WRONGPASS}, {@code NOAUTH}) or the TLS handshake failed on the server's
     * certificate (not trusted, or not naming the host), somewhere in {@code failure}'s causes: an {@link
     * AuthenticationException} saying what to check. Null when {@code failure} is no such refusal. Redis's and JSSE's
     * messages name no password.
     */
    static @Nullable AuthenticationException refused(RedisConfig config, Throwable failure) {
        @Nullable String login = null;
        boolean certificate = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (login == null && (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH"))) {
                login = message;
            } else if (t instanceof CertificateException
                    || t instanceof CertPathBuilderException
                    || t instanceof CertPathValidatorException) {
                certificate = true;
            }
        }
        if (login != null) {
            return new AuthenticationException(
                    "Redis at " + config.redactedUri() + " refused "
                            + config.username().map(u -> "user '" + u + "'").orElse("the login") + " (" + login
                            + "); check the user name and password (RedisConfig.Builder.credentials, or the URI's"
                            + " user-info or password_file) and that the ACL user is on",
                    failure);
        }
        if (certificate) {
            return new AuthenticationException(
                    "the TLS handshake with Redis at " + config.redactedUri() + " failed ("
                            + RedisTransport.rootMessage(failure) + "); check that the trusted certificates"
                            + " (RedisConfig.Builder.tlsTrustedCertificates, or tls.trustedCertificates in the URI;"
                            + " else the JVM's trust store) hold the authority that signed the server's certificate,"
                            + " and that the certificate names the host connected to",
                    failure);
        }
        return null;
    }

    private ClientOptions clientOptions() {
        ClientOptions.Builder b = ClientOptions.builder()
                .autoReconnect(true)
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(config.connectTimeout())
                        .keepAlive(true)
                        .build())
                .timeoutOptions(TimeoutOptions.enabled(config.responseTimeout()));
        if (config.isTls()) {
            SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
            config.trustedCertificates().ifPresent(p -> ssl.trustManager(p.toFile()));
            if (config.clientCertificate().isPresent() && config.clientKey().isPresent()) {
                ssl.keyManager(
                        config.clientCertificate().orElseThrow().toFile(),
                        config.clientKey().orElseThrow().toFile(),
                        null);
            }
            b.sslOptions(ssl.build());
        }
        return b.build();
    }

    /** The URI of one server with the config's credentials, TLS, database, timeouts and client name. */
    private RedisURI uri(String host, int port) {
        RedisURI.Builder b = RedisURI.builder()
                .withHost(host)
                .withPort(port)
                .withTimeout(config.responseTimeout())
                .withDatabase(config.database())
                .withClientName(config.clientName().orElse(clientName));
        if (config.isTls()) {
            b.withSsl(true).withVerifyPeer(config.isTlsHostnameVerification() ? SslVerifyMode.FULL : SslVerifyMode.CA);
        }
        String password = config.password().orElse(null);
        if (password != null) {
            String user = config.username().orElse(null);
            if (user != null) {
                b.withAuthentication(user, password.toCharArray());
            } else {
                b.withPassword(password.toCharArray());
            }
        }
        return b.build();
    }

    /** The shared connection's commands: thread-safe, pipelined. */
    RedisClusterAsyncCommands<String, byte[]> async() {
        return async;
    }

    boolean isCluster() {
        return clusterClient != null;
    }

    /**
     * A connection of its own for the blocking reads of one subscription, to the server holding {@code key} (the
     * master of its slot, on a cluster).
     */
    Reader openReader(String key) {
        StatefulRedisConnection<String, byte[]> c;
        String host;
        int port;
        if (clusterClient != null) {
            RedisClusterNode node = ((StatefulRedisClusterConnection<String, byte[]>) shared)
                    .getPartitions()
                    .getMasterBySlot(SlotHash.getSlot(key));
            if (node == null) {
                clusterClient.refreshPartitions();
                node = ((StatefulRedisClusterConnection<String, byte[]>) shared)
                        .getPartitions()
                        .getMasterBySlot(SlotHash.getSlot(key));
            }
            if (node == null) {
                throw new BrokerUnavailableException("no Redis Cluster master serves the slot of '" + key + "'");
            }
            host = node.getUri().getHost();
            port = node.getUri().getPort();
            c = nodeClient().connect(CODEC, uri(host, port));
        } else {
            RedisConfig.Endpoint e = config.endpoints().getFirst();
            host = e.host();
            port = e.port();
            c = standaloneClient().connect(CODEC);
        }
        long id;
        try {
            id = c.sync().clientId();
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        return new Reader(c, id, host, port);
    }

    private RedisClient nodeClient() {
        RedisClient c = nodeClient;
        if (c == null) {
            throw new IllegalStateException("not a cluster");
        }
        return c;
    }

    private RedisClient standaloneClient() {
        RedisClient c = client;
        if (c == null) {
            throw new IllegalStateException("a cluster");
        }
        return c;
    }

    /** After a cluster answered MOVED: learn the new slot owners. */
    void refreshTopology() {
        if (clusterClient != null) {
            clusterClient.refreshPartitions();
        }
    }

    /** A subscription's connection for blocking reads, and its client id on the server. */
    record Reader(StatefulRedisConnection<String, byte[]> connection, long clientId, String host, int port)
            implements AutoCloseable {
        @Override
        public void close() {
            connection.closeAsync();
        }
    }

    /**
     * Ends a blocking read of {@code reader} at once ({@code CLIENT UNBLOCK}), so that a pause, a seek or a close does
     * not wait out the block. Best effort: the read returns within its block timeout anyway.
     */
    void unblock(Reader reader) {
        try {
            if (clusterClient != null) {
                ((StatefulRedisClusterConnection<String, byte[]>) shared)
                        .getConnection(reader.host(), reader.port())
                        .async()
                        .clientUnblock(reader.clientId(), UnblockType.TIMEOUT);
            } else {
                async.clientUnblock(reader.clientId(), UnblockType.TIMEOUT);
            }
        } catch (RuntimeException e) {
            log.debug("CLIENT UNBLOCK {} failed: {}", reader.clientId(), e.toString());
        }
    }

    /** The server's version ({@code INFO server}), e.g. {@code 7.0.15}. */
    String serverVersion(Duration timeout) throws Exception {
        String info = async.info("server").get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "unknown";
    }

    @Override
    public void close() {
        try {
            shared.close();
        } catch (RuntimeException e) {
            log.debug("closing the shared Redis connection: {}", e.toString());
        }
        shutdown(client, clusterClient, nodeClient, resources);
    }

    private static void shutdown(
            @Nullable RedisClient client,
            @Nullable RedisClusterClient cluster,
            @Nullable RedisClient nodes,
            ClientResources resources) {
        try {
            if (client != null) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            if (cluster != null) {
                cluster.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            if (nodes != null) {
                nodes.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        } catch (RuntimeException e) {
            log.debug("shutting the Redis clients down: {}", e.toString());
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
