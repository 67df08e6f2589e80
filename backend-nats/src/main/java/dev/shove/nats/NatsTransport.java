package dev.shove.nats;

import dev.shove.AuthenticationException;
import dev.shove.BrokerUnavailableException;
import dev.shove.PublishException;
import dev.shove.ShoveException;
import dev.shove.ShoveHeaders;
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
import io.nats.client.AuthHandler;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.NKey;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NATS JetStream transport: one connection (reconnecting for ever), JetStream publishing with the server's
 * acknowledgement and a {@code Nats-Msg-Id} for deduplication, and a {@link NatsSubscription} per consumer. It
 * translates and decides nothing: where a copy goes is the engine's settlement; this class only knows which subject
 * and stream that is (see {@link NatsTopology}).
 */
final class NatsTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(NatsTransport.class);

    /**
     * What JetStream gives: delays are exact (the server redelivers a nak'd copy after the delay asked for), and a
     * stream is a log (start at and seek to a sequence or a time). No partitions, no transactions.
     */
    static final Capabilities CAPABILITIES = Capabilities.builder()
            .exactDelays(Bounds.MAX_DELAY)
            .durableRetries()
            .deliveryCount()
            .redeliveryFlag()
            .timestamps()
            .competingConsumers()
            .nativeBatches()
            .seek()
            .broadcast()
            .durableSequencedRetries()
            .build();

    /** The bucket of sequenced topics' shard leases and group members; its {@code max_age} is the lease. */
    static final String LEASES_BUCKET = "shove_shard_leases";

    /** The bucket of sequenced retries waiting in place. */
    static final String WAITS_BUCKET = "shove_sequenced_waits";

    /** How long a stored wait is kept at most: the longest delay, and a day more. */
    static final Duration WAITS_MAX_AGE = Bounds.MAX_DELAY.plusDays(1);

    private final NatsConfig config;
    private final TransportContext context;
    private final String connectionName;
    private final Connection connection;
    private final JetStream js;
    private final JetStreamManagement jsm;
    private final NatsTopology topology;
    private final ScheduledExecutorService timer;
    private final long maxPayload;
    private final Set<NatsSubscription> subscriptions = ConcurrentHashMap.newKeySet();
    /** The groups consuming each topic in this process, for {@link #stats}. */
    private final Map<String, Set<String>> groupsByTopic = new ConcurrentHashMap<>();
    /** Groups whose start position was applied already (their first consumer in this process did). */
    private final Set<String> startApplied = ConcurrentHashMap.newKeySet();

    private final AtomicLong consumerSeq = new AtomicLong();
    private volatile @Nullable KeyValue leases;
    private volatile @Nullable KeyValue waits;
    private volatile boolean closed;
    /** Whether the first connection was made: before it, a disconnect is part of a failing connect, not an outage. */
    private volatile boolean established;
    /** What the client reported while the first connection was tried, for the error when it fails. */
    private volatile @Nullable Exception connectFailure;

    NatsTransport(NatsConfig config, TransportContext context) {
        this.config = config;
        this.context = context;
        this.connectionName = config.connectionName().orElse(context.clientName());
        this.connection = connect();
        this.established = true;
        try {
            JetStreamOptions jso = JetStreamOptions.builder()
                    .requestTimeout(config.apiTimeout())
                    .build();
            this.js = connection.jetStream(jso);
            this.jsm = connection.jetStreamManagement(jso);
            jsm.getAccountStatistics();
        } catch (IOException | JetStreamApiException e) {
            closeQuietly();
            throw new BrokerUnavailableException(
                    "the NATS server at " + String.join(",", config.servers()) + " does not offer JetStream ("
                            + e.getMessage() + "); start it with -js (scripts/brokers.sh up nats does)",
                    e);
        }
        this.topology = new NatsTopology(jsm, config);
        this.maxPayload = connection.getServerInfo().getMaxPayload();
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .daemon()
                .name("shove-nats-timer-" + connectionName)
                .factory());
        log.info(
                "connected '{}' to NATS at {} (server {}, max_payload {} bytes)",
                connectionName,
                connection.getConnectedUrl(),
                connection.getServerInfo().getVersion(),
                maxPayload);
    }

    private Connection connect() {
        Options.Builder b = Options.builder()
                .servers(config.servers().toArray(String[]::new))
                .connectionName(connectionName)
                .connectionTimeout(config.connectTimeout())
                .reconnectWait(config.reconnectWait())
                .maxReconnects(-1)
                .errorListener(new Errors())
                .connectionListener(this::connectionEvent);
        String user = config.username().orElse(null);
        if (user != null) {
            String password = config.password();
            b.userInfo(user, password == null ? "" : password);
        }
        String token = config.token();
        if (token != null) {
            b.token(token.toCharArray());
        }
        String seed = config.nkeySeed();
        if (seed != null) {
            b.authHandler(new SeedAuth(seed));
        }
        config.credentialsFile().ifPresent(f -> b.credentialPath(f.toString()));
        if (config.isTls()) {
            b.sslContext(NatsTls.context(config));
        }
        try {
            return io.nats.client.Nats.connect(b.build());
        } catch (IOException e) {
            String detail = String.valueOf(e.getMessage());
            boolean auth = detail.toLowerCase(Locale.ROOT).contains("authoriz")
                    || detail.toLowerCase(Locale.ROOT).contains("authentic");
            if (auth) {
                throw new AuthenticationException(
                        "the NATS server at " + String.join(",", config.servers()) + " refused "
                                + config.authentication() + ": " + detail + "; check the credentials in NatsConfig",
                        e);
            }
            Exception reported = connectFailure;
            BrokerUnavailableException failure = ConnectErrors.cannotConnect(
                    "NATS",
                    String.join(",", config.servers()),
                    config.connectTimeout(),
                    reported != null ? reported : e,
                    "nats");
            if (reported != null) {
                failure.addSuppressed(e);
            }
            throw failure;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while connecting to NATS", e);
        }
    }

    private void connectionEvent(Connection conn, ConnectionListener.Events event) {
        switch (event) {
            case DISCONNECTED -> {
                if (!closed && established) {
                    context.backendError(name(), "connection");
                    log.warn(
                            "connection '{}' to NATS was lost; reconnecting every {}",
                            connectionName,
                            DurationText.of(config.reconnectWait()));
                }
            }
            case RECONNECTED ->
                log.info("connection '{}' to NATS is back ({})", connectionName, conn.getConnectedUrl());
            default -> log.debug("connection '{}': {}", connectionName, event);
        }
    }

    @Override
    public String name() {
        return "nats";
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    /** Adds the stream names: a stream's name is its queue's with {@code .} as {@code _}, so {@code a.b} and {@code a_b} meet. */
    @Override
    public Map<String, String> objectNames(Topic<?> topic) {
        Map<String, String> names = new LinkedHashMap<>(Transport.super.objectNames(topic));
        names.putIfAbsent(NatsTopology.stream(topic.name()), "stream");
        topic.dlq().ifPresent(d -> names.putIfAbsent(NatsTopology.stream(d), "dead-letter queue"));
        return names;
    }

    @Override
    public void declare(Topic<?> topic) {
        checkOpen();
        topology.declare(topic);
    }

    // ---------------------------------------------------------------- publishing

    @Override
    public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
        String subject;
        try {
            if (closed) {
                throw new PublishException(
                        "cannot publish to topic '" + topic.name() + "': the NATS connection is closed", null, false);
            }
            subject = subjectOf(topic, message);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return send(
                topic.name(),
                subject,
                NatsTopology.stream(topic.name()),
                message.headers(),
                message.payload(),
                dedupId(message.headers()),
                "a message of topic '" + topic.name() + "'");
    }

    /**
     * The {@code Nats-Msg-Id} of a published message: its shove message id, so that a publish tried again is stored
     * once. A replayed dead letter keeps its message id but is a publish of its own: its replay count makes its id
     * new, or the stream would drop it as a duplicate of the original within the duplicate window.
     */
    static @Nullable String dedupId(Map<String, String> headers) {
        String id = headers.get(ShoveHeaders.MESSAGE_ID);
        String replays = headers.get(ShoveHeaders.REPLAY_COUNT);
        return id != null && replays != null ? id + "-replay-" + replays : id;
    }

    @Override
    public List<CompletableFuture<Void>> publishAll(Topic<?> topic, List<OutboundMessage> messages) {
        List<CompletableFuture<Void>> results = new ArrayList<>(messages.size());
        for (OutboundMessage m : messages) {
            results.add(publish(topic, m));
        }
        return results;
    }

    /** The subject of a message: its shard's for a sequenced topic, else the topic's. */
    static String subjectOf(Topic<?> topic, OutboundMessage message) {
        if (!topic.isSequenced()) {
            return NatsTopology.subject(topic.name());
        }
        int shards = topic.sequencing().orElseThrow().routingShards();
        if (message.shard() < 0 || message.shard() >= shards) {
            throw new IllegalArgumentException("a message for sequenced topic '" + topic.name()
                    + "' must name its shard (0.." + (shards - 1) + "), was " + message.shard());
        }
        return NatsTopology.shardSubject(topic, message.shard());
    }

    /**
     * Publishes to JetStream and completes when the stream acknowledged the message, or with a {@link
     * PublishException} (a {@link TopologyException} when no stream takes the subject).
     *
     * @param queue the topic or dead-letter queue, for messages
     * @param msgId the deduplication id, or null
     */
    CompletableFuture<Void> send(
            String queue,
            String subject,
            String stream,
            Map<String, String> headers,
            byte[] payload,
            @Nullable String msgId,
            String what) {
        Headers natsHeaders = NatsMessages.toNats(headers);
        long size = payload.length + natsHeaders.serializedLength() + subject.length();
        if (size > maxPayload) {
            return CompletableFuture.failedFuture(new PublishException(
                    what + " is " + size + " bytes with its headers, more than the NATS server's max_payload of "
                            + maxPayload + " bytes; send smaller messages, or raise max_payload in the server's"
                            + " configuration (at most 64 MB)",
                    null,
                    false));
        }
        PublishOptions.Builder options = PublishOptions.builder().expectedStream(stream);
        if (msgId != null) {
            options.messageId(msgId);
        }
        CompletableFuture<PublishAck> ack;
        // jnats drops a message queued from an interrupted thread without a word, and its future then only times out:
        // queue it with the flag cleared, and set the flag again for the caller
        boolean interrupted = Thread.interrupted();
        try {
            ack = js.publishAsync(subject, natsHeaders, payload, options.build());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(publishError(queue, what, e));
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return ack.orTimeout(config.apiTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .handle((ok, failure) -> {
                    if (failure != null) {
                        Throwable cause = failure instanceof CompletionException c && c.getCause() != null
                                ? c.getCause()
                                : failure;
                        throw publishError(queue, what, cause);
                    }
                    return null;
                });
    }

    private ShoveException publishError(String queue, String what, Throwable error) {
        String detail = String.valueOf(error.getMessage());
        String lower = detail.toLowerCase(Locale.ROOT);
        if (lower.contains("503") || lower.contains("no responders")) {
            return new TopologyException("no JetStream stream takes " + what + ": topic '" + queue
                    + "' is not declared on the NATS server; declare it first with broker.topology().declare(topic)");
        }
        if (lower.contains("expected stream")) {
            return new TopologyException("another stream than '" + NatsTopology.stream(queue) + "' holds the subject of"
                    + " topic '" + queue + "' (" + detail + "); find it with `nats stream ls` and remove the overlap");
        }
        if (lower.contains("maximum payload") || lower.contains("max payload")) {
            return new PublishException(
                    what + " is larger than the NATS server's max_payload of " + maxPayload + " bytes (" + detail
                            + "); send smaller messages or raise max_payload",
                    error,
                    false);
        }
        boolean retriable = error instanceof TimeoutException
                || error instanceof IOException
                || error instanceof IllegalStateException
                        && !connection.getStatus().equals(Connection.Status.CLOSED);
        return new PublishException(
                "NATS did not accept " + what + " for '" + queue + "': " + detail, error, retriable);
    }

    // ---------------------------------------------------------------- consuming

    @Override
    public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
        checkOpen();
        groupsByTopic
                .computeIfAbsent(request.topic().name(), t -> ConcurrentHashMap.newKeySet())
                .add(request.group());
        // unique across processes: it names the consumer in shard leases and broadcast readers
        String memberId = request.consumerId() + "-" + consumerSeq.incrementAndGet() + "-"
                + java.util.UUID.randomUUID().toString().substring(0, 8);
        NatsSubscription subscription = new NatsSubscription(this, request, sink, memberId);
        subscriptions.add(subscription);
        try {
            subscription.start();
        } catch (RuntimeException e) {
            subscriptions.remove(subscription);
            subscription.close();
            throw e;
        }
        return subscription;
    }

    void closed(NatsSubscription subscription) {
        subscriptions.remove(subscription);
    }

    /**
     * Whether the subscription asking is the first of its group (and source) to start in this process: only that one
     * moves the group's consumer to the start position, so that its siblings do not move it again.
     */
    boolean firstStart(SubscriptionRequest request) {
        return startApplied.add(request.queue() + "/" + request.group() + "/" + request.startAt());
    }

    @Override
    public QueueStats stats(Topic<?> topic) {
        checkOpen();
        if (topic.isBroadcast()) {
            return new QueueStats(0, 0); // each subscriber reads on its own: nothing waits for a group
        }
        Set<String> groups = groupsByTopic.getOrDefault(topic.name(), Set.of());
        if (groups.isEmpty()) {
            groups = Set.of(topic.name());
        }
        long ready = 0;
        long inFlight = 0;
        String what = "topic '" + topic.name() + "'";
        for (String group : groups) {
            List<String> consumers = new ArrayList<>();
            if (topic.isSequenced()) {
                int shards = topic.sequencing().orElseThrow().routingShards();
                List<String> names = topology.consumerNames(topic.name(), what);
                for (int i = 0; i < shards; i++) {
                    String prefix = NatsTopology.shardConsumerPrefix(group, i);
                    names.stream()
                            .filter(n -> n.startsWith(prefix))
                            .max(NatsSubscription.BY_GENERATION)
                            .ifPresent(consumers::add);
                }
            } else {
                consumers.add(NatsTopology.mainConsumer(group));
            }
            long groupReady = 0;
            long groupInFlight = 0;
            for (String name : consumers) {
                ConsumerInfo info = topology.consumerInfo(NatsTopology.stream(topic.name()), name, what);
                if (info != null) {
                    groupReady += info.getNumPending();
                    groupInFlight += info.getNumAckPending();
                }
            }
            ready = Math.max(ready, groupReady);
            inFlight = Math.max(inFlight, groupInFlight);
        }
        return new QueueStats(ready, inFlight);
    }

    @Override
    public DeadLetterStore deadLetters(Topic<?> topic, String group) {
        checkOpen();
        String dlq = topic.dlq().orElseThrow(); // the engine refuses a topic without one before asking
        return new NatsDeadLetters(jsm, topology, topic.name(), dlq, group);
    }

    @Override
    public void ping(Duration timeout) {
        checkOpen();
        if (connection.getStatus() != Connection.Status.CONNECTED) {
            throw new BrokerUnavailableException(
                    "the connection to NATS is " + connection.getStatus() + " (reconnecting)");
        }
        try {
            connection.flush(timeout);
        } catch (TimeoutException e) {
            throw new BrokerUnavailableException("NATS did not answer a ping within " + DurationText.of(timeout), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while pinging NATS", e);
        } catch (IllegalStateException e) {
            throw new BrokerUnavailableException("NATS did not answer a ping: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- buckets

    /** The shard leases bucket, created on first use; its {@code max_age} must be this config's lease. */
    KeyValue leases() {
        KeyValue kv = leases;
        if (kv == null) {
            synchronized (this) {
                kv = leases;
                if (kv == null) {
                    kv = bucket(LEASES_BUCKET, config.shardLease(), "shard leases of sequenced topics");
                    leases = kv;
                }
            }
        }
        return kv;
    }

    /** The sequenced waits bucket, created on first use. */
    KeyValue waits() {
        KeyValue kv = waits;
        if (kv == null) {
            synchronized (this) {
                kv = waits;
                if (kv == null) {
                    kv = bucket(WAITS_BUCKET, WAITS_MAX_AGE, "sequenced retries waiting in place");
                    waits = kv;
                }
            }
        }
        return kv;
    }

    private KeyValue bucket(String name, Duration maxAge, String what) {
        try {
            KeyValueManagement kvm = connection.keyValueManagement();
            KeyValueStatus status;
            try {
                status = kvm.getStatus(name);
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != NatsTopology.STREAM_NOT_FOUND) {
                    throw e;
                }
                try {
                    status = kvm.create(KeyValueConfiguration.builder()
                            .name(name)
                            .description("shove: " + what)
                            .maxHistoryPerKey(1)
                            .ttl(maxAge)
                            .storageType(
                                    config.storage() == NatsConfig.Storage.FILE ? StorageType.File : StorageType.Memory)
                            .replicas(config.replicas())
                            .build());
                    log.info("created key-value bucket '{}' ({}), entries kept {}", name, what, maxAge);
                } catch (JetStreamApiException raced) {
                    status = kvm.getStatus(name);
                }
            }
            if (!status.getTtl().equals(maxAge)) {
                throw new TopologyException(("key-value bucket '%s' (%s) keeps entries %s, but this process needs %s"
                                + " (NatsConfig shardLease): every process must use the same shardLease. Use %s, or"
                                + " delete the bucket while no sequenced consumer runs (`nats kv rm %s`)")
                        .formatted(name, what, status.getTtl(), maxAge, status.getTtl(), name));
            }
            return connection.keyValue(name);
        } catch (JetStreamApiException e) {
            throw new TopologyException("cannot use key-value bucket '" + name + "' (" + what + "): " + e.getMessage());
        } catch (IOException e) {
            throw NatsTopology.unavailable("opening key-value bucket '" + name + "'", e);
        }
    }

    // ---------------------------------------------------------------- for subscriptions

    NatsConfig config() {
        return config;
    }

    TransportContext context() {
        return context;
    }

    NatsTopology topology() {
        return topology;
    }

    Connection connection() {
        return connection;
    }

    JetStream jetStream() {
        return js;
    }

    String connectionName() {
        return connectionName;
    }

    /** Runs {@code task} every {@code period} on the transport's timer until the returned handle is cancelled. */
    java.util.concurrent.ScheduledFuture<?> every(Duration period, Runnable task) {
        return timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        log.warn("a periodic task of the NATS transport failed: {}", e.toString());
                    }
                },
                period.toNanos(),
                period.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /** Runs {@code task} once after {@code delay} on the transport's timer. */
    void later(Duration delay, Runnable task) {
        try {
            timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            log.debug("not scheduling a task on a closed transport: {}", e.toString());
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the NATS transport '" + connectionName + "' is closed");
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (NatsSubscription s : List.copyOf(subscriptions)) {
            s.close();
        }
        closeQuietly();
        timer.shutdownNow();
        log.info("closed connection '{}' to NATS", connectionName);
    }

    private void closeQuietly() {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Signs the server's nonce with an NKey seed. */
    private static final class SeedAuth implements AuthHandler {
        private final NKey key;

        SeedAuth(String seed) {
            this.key = NKey.fromSeed(seed.toCharArray());
        }

        @Override
        public byte[] sign(byte[] nonce) {
            try {
                return key.sign(nonce);
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException("cannot sign with the NKey seed: " + e.getMessage(), e);
            }
        }

        @Override
        public char[] getID() {
            try {
                return key.getPublicKey();
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException("cannot derive the NKey's public key: " + e.getMessage(), e);
            }
        }

        @Override
        public char @Nullable [] getJWT() {
            return null;
        }
    }

    /** Logs what the client reports asynchronously. */
    private final class Errors implements ErrorListener {
        @Override
        public void errorOccurred(Connection conn, String error) {
            context.backendError(name(), "server");
            log.warn("NATS server error on connection '{}': {}", connectionName, error);
        }

        @Override
        public void exceptionOccurred(Connection conn, Exception exp) {
            if (!established) {
                connectFailure = exp;
            }
            log.debug("NATS client exception on connection '{}': {}", connectionName, exp.toString());
        }

        @Override
        public void slowConsumerDetected(Connection conn, io.nats.client.Consumer consumer) {
            log.warn("NATS reports a slow consumer on connection '{}'", connectionName);
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
