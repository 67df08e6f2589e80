package dev.shove.kafka;

import dev.shove.BrokerUnavailableException;
import dev.shove.HoldTier;
import dev.shove.PublishException;
import dev.shove.ShoveException;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.Capabilities;
import dev.shove.spi.ConnectErrors;
import dev.shove.spi.ConnectionWatch;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.DurationText;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka transport: one Admin client (topology, lag), one idempotent producer shared by publishing, settlement
 * copies, the hold relays and the dead-letter tools, and one {@link KafkaSubscription} (one {@code KafkaConsumer}) per
 * consumer; the dead-letter tools ({@link KafkaDeadLetters}) read with a consumer per pass. Runs a
 * {@link HoldRelay} per unsequenced topic while any consumer of that topic is open in this process. Thread-safe.
 */
final class KafkaTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(KafkaTransport.class);

    /** How often the connection watch asks the cluster whether it answers (broker.connection(), group health). */
    static final Duration CONNECTION_CHECK_INTERVAL = Duration.ofSeconds(5);

    /**
     * The transaction timeout of the consumers' transactional producers: how long the broker keeps the open transaction
     * of a consumer that died before it aborts it (unless a successor with the same transactional id does so first).
     * A transaction is open only while a commit runs.
     */
    static final int TRANSACTION_TIMEOUT_MS = 10_000;

    /** What Kafka can do; {@link KafkaConfig#transactional()} adds {@code transactions}. */
    static Capabilities capabilities(boolean transactional) {
        Capabilities.Builder b = Capabilities.builder()
                .durableRetries()
                .durableSequencedRetries()
                .coordinates()
                .timestamps()
                .competingConsumers()
                .nativeBatches()
                .seek()
                .broadcast();
        // Transactional: replies come as settlement copies and are committed with the offsets they move.
        return (transactional ? b.transactions() : b).build();
    }

    private final KafkaConfig config;
    private final Capabilities capabilities;
    private final TransportContext context;
    private final KafkaTopology topology;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Set<KafkaSubscription> subscriptions = ConcurrentHashMap.newKeySet();
    private final Map<String, Set<String>> groupsByTopic = new ConcurrentHashMap<>();
    private final Map<String, HoldRelay> relays = new HashMap<>();
    private final Map<String, Integer> relayUsers = new HashMap<>();
    /** Why the relay of each topic whose relay failed and has not run again since is down, by topic. */
    private final Map<String, String> relaysDown = new ConcurrentHashMap<>();

    private final AtomicInteger clientSeq = new AtomicInteger();
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final ConnectionWatch connectionWatch;
    /** Refreshes the clients' meters when the application gave a registry; null otherwise. */
    private final @Nullable ScheduledExecutorService clientMetersScheduler;

    private final List<KafkaClientMetrics> transportClientMeters = new ArrayList<>();
    private volatile boolean closed;

    KafkaTransport(KafkaConfig config, TransportContext context) {
        this.config = config;
        this.capabilities = capabilities(config.transactional());
        this.context = context;
        requireReachable(config);
        Admin admin = null;
        KafkaProducer<byte[], byte[]> p = null;
        try {
            admin = Admin.create(adminProperties());
            p = new KafkaProducer<>(producerProperties());
        } catch (KafkaException e) {
            if (admin != null) {
                admin.close(Duration.ZERO);
            }
            throw clientsRefused(e);
        }
        try {
            this.topology = new KafkaTopology(admin, config);
            topology.ping(min(config.connectTimeout(), config.apiTimeout()));
        } catch (RuntimeException e) {
            p.close(Duration.ZERO);
            admin.close(Duration.ZERO);
            if (e instanceof ShoveException) {
                throw e;
            }
            throw new BrokerUnavailableException(
                    "cannot connect to Kafka at " + config.bootstrapServers() + ": " + e.getMessage(), e);
        }
        this.producer = p;
        this.clientMetersScheduler = context.observed()
                ? Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                        .daemon()
                        .name("shove-kafka-client-meters-" + context.clientName())
                        .factory())
                : null;
        if (admin instanceof AdminClient adminClient) {
            bind(() -> new KafkaClientMetrics(adminClient, List.of(), clientMetersScheduler))
                    .ifPresent(transportClientMeters::add);
        }
        bind(() -> new KafkaClientMetrics(producer, List.of(), clientMetersScheduler))
                .ifPresent(transportClientMeters::add);
        // kafka-clients reconnect on their own and announce nothing: health learns of an outage by asking
        this.connectionWatch =
                ConnectionWatch.start("shove-kafka-connection-watch", context, CONNECTION_CHECK_INTERVAL, () -> {
                    topology.ping(
                            config.apiTimeout().compareTo(CONNECTION_CHECK_INTERVAL) < 0
                                    ? config.apiTimeout()
                                    : CONNECTION_CHECK_INTERVAL);
                    // a broker that answers does not make the connection healthy while a relay is down
                    relaysDown.values().stream().findFirst().ifPresent(detail -> {
                        throw new IllegalStateException(detail);
                    });
                });
        log.info("connected to Kafka at {} as {}", config.bootstrapServers(), context.clientName());
    }

    /**
     * Fails at once, with one error, when no bootstrap server accepts a TCP connection within the connect timeout.
     * Without this check the clients would retry for the whole API timeout, logging a WARN for every attempt, before
     * the connection check gave up.
     */
    static void requireReachable(KafkaConfig config) {
        Duration timeout = config.connectTimeout();
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        for (String server : config.bootstrapServers().split(",")) {
            String s = server.strip();
            int colon = s.lastIndexOf(':');
            String host = colon < 0 ? s : s.substring(0, colon).replaceAll("^\\[|]$", "");
            int port;
            try {
                port = colon < 0 ? 9092 : Integer.parseInt(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                return; // not host:port; kafka-clients says what it makes of it
            }
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, left));
                return;
            } catch (IOException | IllegalArgumentException e) {
                last = e;
            }
        }
        if (last != null) {
            throw ConnectErrors.cannotConnect("Kafka", config.bootstrapServers(), timeout, last, "kafka");
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * kafka-clients could not create a client from the config (a trust store or key store that does not load, a
     * property it does not accept): not retriable, the same config fails the same way. The client's own message
     * ("Failed to create new KafkaAdminClient") says little, so the causes' messages follow it, the config's secrets
     * redacted.
     */
    private ShoveException clientsRefused(KafkaException e) {
        StringBuilder why = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            why.append(": ").append(t.getMessage());
        }
        return new ShoveException(
                "cannot create the Kafka clients for " + config.bootstrapServers() + ": "
                        + config.redact(why.toString())
                        + "; check the TLS and SASL settings and the client properties of the KafkaConfig",
                e);
    }

    KafkaConfig config() {
        return config;
    }

    TransportContext context() {
        return context;
    }

    KafkaTopology topology() {
        return topology;
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public void declare(Topic<?> topic) {
        checkOpen();
        topology.declare(topic);
    }

    // ---------------------------------------------------------------- publishing

    @Override
    public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        try {
            checkOpen();
            ProducerRecord<byte[], byte[]> record = record(topic, message);
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    result.complete(null);
                } else {
                    result.completeExceptionally(publishError(topic.name(), error));
                }
            });
        } catch (PublishException | TopologyException e) {
            result.completeExceptionally(e);
        } catch (RuntimeException e) {
            result.completeExceptionally(publishError(topic.name(), e));
        }
        return result;
    }

    /** The record of a published message: partition = shard for a sequenced topic, key as configured. */
    private ProducerRecord<byte[], byte[]> record(Topic<?> topic, OutboundMessage message) {
        int partitions = topology.partitionsForPublish(topic.name());
        Integer partition = null;
        byte[] key = null;
        if (message.shard() >= 0) {
            if (message.shard() >= partitions) {
                throw new PublishException(
                        "topic '%s' has %d partitions but the message belongs to shard %d; declare the topic again to"
                                        .formatted(topic.name(), partitions, message.shard())
                                + " add partitions",
                        null);
            }
            partition = message.shard();
        }
        String k = message.key();
        if (k == null) {
            k = config.messageKeyHeader().map(h -> message.headers().get(h)).orElse(null);
        }
        if (k != null) {
            key = k.getBytes(StandardCharsets.UTF_8);
        } else if (partition == null) {
            // Kafka's sticky partitioner would put a slow trickle of unkeyed records on one partition, leaving
            // the other consumers of the group idle: spread them round-robin instead.
            partition = Math.floorMod(roundRobin.getAndIncrement(), partitions);
        }
        return new ProducerRecord<>(
                topic.name(), partition, key, message.payload(), KafkaHeaders.toKafka(message.headers()));
    }

    private PublishException publishError(String topic, Throwable error) {
        if (error instanceof PublishException p) {
            return p;
        }
        ShoveException refused = KafkaTopology.refused(config, error);
        if (refused != null) {
            return new PublishException(
                    "Kafka did not accept a message for topic '" + topic + "': " + refused.getMessage(), error, false);
        }
        if (error instanceof RecordTooLargeException) {
            return new PublishException(
                    ("Kafka refused a message for topic '%s' as too large: %s; for messages over 1 MB raise"
                                    + " max.message.bytes on the topic (KafkaConfig.topicConfig, or kafka-configs"
                                    + " --alter for an existing topic) and the producer's max.request.size"
                                    + " (KafkaConfig.clientProperty); see docs/backends/kafka.md, Large messages")
                            .formatted(topic, String.valueOf(error.getMessage()).replaceAll("\\.$", "")),
                    error,
                    false);
        }
        boolean retriable = error instanceof RetriableException
                || error instanceof org.apache.kafka.common.errors.TimeoutException
                || error instanceof ShoveException s && s.isRetriable();
        return new PublishException(
                "Kafka did not accept a message for topic '" + topic + "': " + error.getMessage(), error, retriable);
    }

    /**
     * Produces a settlement's copies: hold copies to their tier's hold topic (with the group they belong to and the
     * partition they came from), dead letters to the dead-letter topic (with the original partition and offset).
     * {@code done} gets null once every copy is acknowledged by the broker, or the first failure.
     */
    void produceCopies(
            KafkaSubscription owner, KafkaDelivery delivery, List<Settlement.Copy> copies, Consumer<Throwable> done) {
        AtomicInteger left = new AtomicInteger(copies.size());
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        for (Settlement.Copy copy : copies) {
            ProducerRecord<byte[], byte[]> record;
            try {
                record = copyRecord(owner, delivery, copy);
            } catch (RuntimeException e) {
                firstFailure.compareAndSet(null, publishError(owner.topic().name(), e));
                if (left.decrementAndGet() == 0) {
                    done.accept(firstFailure.get());
                }
                continue;
            }
            String target = record.topic();
            try {
                sendUninterruptibly(record, (metadata, error) -> {
                    if (error != null) {
                        firstFailure.compareAndSet(null, publishError(target, error));
                    }
                    if (left.decrementAndGet() == 0) {
                        done.accept(firstFailure.get());
                    }
                });
            } catch (RuntimeException e) {
                firstFailure.compareAndSet(null, publishError(target, e));
                if (left.decrementAndGet() == 0) {
                    done.accept(firstFailure.get());
                }
            }
        }
    }

    /**
     * The records of a settlement's copies, to produce later in a transaction (transactional mode); throws the
     * {@link PublishException} of the first copy that cannot be made into a record.
     */
    List<ProducerRecord<byte[], byte[]>> copyRecords(
            KafkaSubscription owner, KafkaDelivery delivery, List<Settlement.Copy> copies) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(copies.size());
        for (Settlement.Copy copy : copies) {
            try {
                records.add(copyRecord(owner, delivery, copy));
            } catch (RuntimeException e) {
                throw publishError(owner.topic().name(), e);
            }
        }
        return records;
    }

    /** The record of one settlement copy. */
    private ProducerRecord<byte[], byte[]> copyRecord(
            KafkaSubscription owner, KafkaDelivery delivery, Settlement.Copy copy) {
        if (copy instanceof Settlement.Copy.ToTopic reply) {
            return record(reply.topic(), reply.message()); // a reply, published as publish() would
        }
        Headers headers = KafkaHeaders.toKafka(copy.headers());
        headers.remove(KafkaHeaders.GROUP);
        headers.remove(KafkaHeaders.ORIGINAL_PARTITION);
        headers.remove(KafkaHeaders.ORIGINAL_OFFSET);
        headers.add(KafkaHeaders.ORIGINAL_PARTITION, ascii(delivery.partition()));
        String target;
        switch (copy) {
            case Settlement.Copy.ToHold hold -> {
                target = owner.topic().holdTiers().get(hold.tier()).queue();
                headers.add(KafkaHeaders.GROUP, owner.groupId().getBytes(StandardCharsets.UTF_8));
            }
            case Settlement.Copy.ToDeadLetter dead -> {
                target = dead.queue();
                headers.add(KafkaHeaders.ORIGINAL_OFFSET, ascii(delivery.offset()));
            }
            case Settlement.Copy.ToTopic reply -> throw new AssertionError("handled above");
        }
        return new ProducerRecord<>(target, null, delivery.record().key(), copy.payload(), headers);
    }

    /**
     * Sends a settlement copy. {@code send} may block briefly (metadata, a full buffer) and a blocked send throws when
     * its thread is interrupted; the engine interrupts idle workers when it stops, which must not fail a copy that is
     * already decided. So the interrupt is set aside for the send and restored after it.
     */
    private void sendUninterruptibly(ProducerRecord<byte[], byte[]> record, Callback callback) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    producer.send(record, callback);
                    return;
                } catch (InterruptException e) {
                    Thread.interrupted();
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Fetches the producer's metadata for topics that settlements will write to, so their first copy need not wait. */
    private void warmUp(List<String> topics) {
        for (String t : topics) {
            try {
                producer.partitionsFor(t);
            } catch (RuntimeException e) {
                log.debug("no producer metadata yet for Kafka topic '{}': {}", t, e.toString());
            }
        }
    }

    /** Sends one record for a hold relay; {@code done} gets null on the broker's acknowledgement, else the error. */
    void relay(ProducerRecord<byte[], byte[]> record, Consumer<@Nullable Throwable> done) {
        try {
            producer.send(record, (metadata, error) -> done.accept(error));
        } catch (RuntimeException e) {
            done.accept(e);
        }
    }

    /** Appends a record as it is; the future completes when the broker acknowledged it, or with the error. */
    CompletableFuture<Void> append(ProducerRecord<byte[], byte[]> record) {
        CompletableFuture<Void> acked = new CompletableFuture<>();
        try {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    acked.complete(null);
                } else {
                    acked.completeExceptionally(error);
                }
            });
        } catch (RuntimeException e) {
            acked.completeExceptionally(e);
        }
        return acked;
    }

    private static byte[] ascii(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    // ---------------------------------------------------------------- consuming

    @Override
    public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
        checkOpen();
        Topic<?> topic = request.topic();
        topology.requireExists(request.queue());
        boolean main = request.source() == SubscriptionRequest.Source.MAIN;
        String groupId = main ? request.group() : deadLetterGroupId(request.group());
        if (main) {
            groupsByTopic
                    .computeIfAbsent(topic.name(), t -> ConcurrentHashMap.newKeySet())
                    .add(groupId);
            if (needsRelay(topic)) {
                acquireRelay(topic);
            }
        }
        if (main) {
            List<String> targets = new ArrayList<>();
            if (needsRelay(topic)) {
                topic.holdTiers().forEach(t -> targets.add(t.queue()));
            }
            topic.dlq().ifPresent(targets::add);
            warmUp(targets);
        }
        KafkaSubscription subscription;
        try {
            subscription = new KafkaSubscription(this, request, sink, groupId);
        } catch (RuntimeException e) {
            if (main && needsRelay(topic)) {
                releaseRelay(topic);
            }
            throw new BrokerUnavailableException(
                    "cannot create a Kafka consumer for topic '" + request.queue() + "': " + e.getMessage(), e);
        }
        subscriptions.add(subscription);
        subscription.start();
        Duration joinTimeout = config.sessionTimeout().plus(config.sessionTimeout());
        if (!subscription.awaitJoined(joinTimeout)) {
            log.info(
                    "consumer {} of topic '{}' has not joined group '{}' after {}; it goes on joining in the background",
                    request.consumerId(),
                    request.queue(),
                    groupId,
                    DurationText.of(joinTimeout));
        }
        return subscription;
    }

    /** The Kafka group id of group {@code group}'s dead-letter consumer: its own group, so it has its own offsets. */
    static String deadLetterGroupId(String group) {
        return group + "-dlq";
    }

    private static boolean needsRelay(Topic<?> topic) {
        return !topic.isSequenced() && !topic.isBroadcast();
    }

    /** A subscription has closed: release its relay. */
    void closed(KafkaSubscription subscription) {
        if (subscriptions.remove(subscription) && subscription.isMain() && needsRelay(subscription.topic())) {
            releaseRelay(subscription.topic());
        }
    }

    /**
     * A hold relay failed and restarts after a back-off: counted as a backend error ({@code kind=relay}) and shown as
     * the connection's health (down, with {@code detail}) until it runs again.
     */
    void relayFailed(String topic, String detail) {
        relaysDown.put(topic, detail);
        context.backendError(name(), "relay");
        context.connectionLost(detail);
    }

    /** A hold relay that failed runs again: the connection is healthy again once no relay is down and Kafka answers. */
    void relayRecovered(String topic) {
        if (relaysDown.remove(topic) != null) {
            healIfNoRelayDown();
        }
    }

    private void healIfNoRelayDown() {
        if (!relaysDown.isEmpty() || context.connection().connected()) {
            return;
        }
        try {
            topology.ping(CONNECTION_CHECK_INTERVAL);
            context.connectionRestored();
        } catch (RuntimeException e) {
            // Kafka itself does not answer: the connection watch reports it and heals it when it does
        }
    }

    private synchronized void acquireRelay(Topic<?> topic) {
        String name = topic.name();
        if (!relays.containsKey(name)) {
            HoldRelay relay = new HoldRelay(this, topic);
            relays.put(name, relay);
            relay.start();
        }
        relayUsers.merge(name, 1, Integer::sum);
    }

    private void releaseRelay(Topic<?> topic) {
        HoldRelay stop = null;
        synchronized (this) {
            Integer users = relayUsers.computeIfPresent(topic.name(), (k, v) -> v - 1);
            if (users != null && users <= 0) {
                relayUsers.remove(topic.name());
                stop = relays.remove(topic.name());
            }
        }
        if (stop != null) {
            stop.close();
            relayRecovered(topic.name()); // a relay no one needs is no longer down
        }
    }

    /** A client id unique in this process, e.g. {@code shove-1234-orders-0}. */
    String clientId(String what) {
        return context.clientName() + "-" + what + "-" + clientSeq.incrementAndGet();
    }

    Map<String, Object> adminProperties() {
        Map<String, Object> p = new LinkedHashMap<>(config.commonProperties());
        p.put("client.id", context.clientName() + "-admin");
        p.put("request.timeout.ms", (int) Math.min(config.apiTimeout().toMillis(), Integer.MAX_VALUE));
        p.put("default.api.timeout.ms", (int) Math.min(config.apiTimeout().toMillis(), Integer.MAX_VALUE));
        return p;
    }

    Map<String, Object> producerProperties() {
        long delivery = config.deliveryTimeout().toMillis();
        long linger = 5;
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("linger.ms", linger);
        p.put("request.timeout.ms", (int) Math.max(1, Math.min(10_000, delivery - linger)));
        p.put("max.block.ms", Math.min(delivery, 10_000));
        p.putAll(config.commonProperties());
        p.put("client.id", context.clientName() + "-producer");
        p.put("delivery.timeout.ms", (int) Math.min(delivery, Integer.MAX_VALUE));
        p.put("acks", "all");
        p.put("enable.idempotence", true);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        return p;
    }

    /** The transactional ids the consumers and relays of every transport in this JVM use now. */
    private static final Set<String> TRANSACTIONAL_IDS = ConcurrentHashMap.newKeySet();

    /**
     * Claims a transactional id for as long as a consumer or relay runs: {@code base}, or {@code base-2}, {@code
     * base-3}, ... when brokers of this JVM with the same client name use it already (they would fence each other).
     * The first instance keeps {@code base}, so ids stay stable across restarts.
     */
    String claimTransactionalId(String base) {
        if (TRANSACTIONAL_IDS.add(base)) {
            return base;
        }
        for (int n = 2; ; n++) {
            String id = base + "-" + n;
            if (TRANSACTIONAL_IDS.add(id)) {
                return id;
            }
        }
    }

    /** Gives back an id of {@link #claimTransactionalId}. */
    void releaseTransactionalId(String id) {
        TRANSACTIONAL_IDS.remove(id);
    }

    /**
     * The properties of a consumer's transactional producer ({@link KafkaConfig#transactional()}): the shared
     * producer's, a transaction timeout of {@value #TRANSACTION_TIMEOUT_MS} ms unless the config's client properties
     * set one, and the transactional id.
     */
    Map<String, Object> transactionalProducerProperties(String transactionalId) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("transaction.timeout.ms", TRANSACTION_TIMEOUT_MS);
        p.putAll(producerProperties());
        p.put("client.id", clientId("txn"));
        p.put("transactional.id", transactionalId);
        return p;
    }

    /**
     * How long the broker holds a main consumer's (or a relay's) empty fetch: short, because a record to read again
     * after a seek or a return, or a partition resumed, waits for the fetch outstanding to come back first.
     */
    static final int FETCH_WAIT_MS = 100;

    /**
     * A dead-letter consumer's: the client's own default. New records are answered as soon as they arrive whatever the
     * wait, and an idle consumer's poll thread wakes a fifth as often; a dead letter never waits for a retry, so only a
     * rare read-again (a delivery returned at shutdown or when its handler was abandoned, a resume after a pause) can
     * wait up to this long.
     */
    static final int DEAD_LETTER_FETCH_WAIT_MS = 500;

    Map<String, Object> consumerProperties(String groupId, String clientId, int maxPollRecords) {
        return consumerProperties(groupId, clientId, maxPollRecords, FETCH_WAIT_MS, Map.of());
    }

    /**
     * A consumer's properties: shove's defaults ({@code fetchWaitMs} for {@code fetch.max.wait.ms}), the config's
     * client properties, the group's, then shove's own.
     */
    Map<String, Object> consumerProperties(
            String groupId, String clientId, int maxPollRecords, int fetchWaitMs, Map<String, String> groupProperties) {
        long session = config.sessionTimeout().toMillis();
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("auto.offset.reset", "earliest");
        p.put("partition.assignment.strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
        p.put("session.timeout.ms", (int) session);
        // Members learn of a rebalance at their next heartbeat: a short interval makes joins and scaling quick.
        p.put("heartbeat.interval.ms", (int) Math.max(100, Math.min(500, session / 3)));
        p.put("max.poll.records", maxPollRecords);
        p.put("fetch.max.wait.ms", fetchWaitMs);
        p.putAll(config.commonProperties());
        p.putAll(groupProperties);
        p.put("group.id", groupId);
        p.put("client.id", clientId);
        p.put("enable.auto.commit", false);
        p.put("allow.auto.create.topics", false);
        if (config.transactional()) {
            p.put("isolation.level", "read_committed"); // aborted copies are never read, by shove or its tools
        }
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        return p;
    }

    // ---------------------------------------------------------------- dead-letter tools

    /**
     * The topic's dead-letter topic as group {@code group}'s dead-letter consumer sees it: Kafka group {@code
     * {group}-dlq}, the group that consumer subscribes with.
     */
    @Override
    public DeadLetterStore deadLetters(Topic<?> topic, String group) {
        checkOpen();
        String dlq = topic.dlq().orElseThrow(); // the engine refuses a topic without one before asking
        return new KafkaDeadLetters(this, dlq, group, deadLetterGroupId(group));
    }

    // ---------------------------------------------------------------- stats, ping, close

    /**
     * The lag of the topic's main consumer group: end offset minus committed offset, summed over partitions (a
     * partition with nothing committed counts from its first offset). With several groups on the topic in this
     * process, the largest lag. Held: the lag of the hold relay's group on the hold tiers, known only where this
     * process runs the relay; 0 on a sequenced or broadcast topic, whose retries never go to a hold tier.
     */
    @Override
    public QueueStats stats(Topic<?> topic) {
        checkOpen();
        Set<String> groups = groupsByTopic.getOrDefault(topic.name(), Set.of(topic.name()));
        if (groups.isEmpty()) {
            groups = Set.of(topic.name());
        }
        try {
            long lag = 0;
            for (String group : groups) {
                lag = Math.max(lag, topology.lag(topic.name(), group));
            }
            boolean relaying;
            synchronized (this) {
                relaying = relays.containsKey(topic.name());
            }
            if (!needsRelay(topic)) {
                return new QueueStats(lag, 0, 0); // sequenced, broadcast: no copy ever waits in a hold tier
            }
            if (!relaying) {
                return new QueueStats(lag, 0); // without this process's relay, its group's offsets say nothing
            }
            long held = 0;
            for (HoldTier tier : topic.holdTiers()) {
                held += topology.lag(tier.queue(), HoldRelay.groupId(topic));
            }
            return new QueueStats(lag, 0, held);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while reading the lag of topic '" + topic.name() + "'");
        } catch (ExecutionException | TimeoutException e) {
            throw new BrokerUnavailableException(
                    "cannot read the lag of topic '" + topic.name() + "' from Kafka: " + e, e);
        }
    }

    @Override
    public void ping(Duration timeout) {
        checkOpen();
        topology.ping(timeout);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        connectionWatch.close();
        for (KafkaSubscription s : List.copyOf(subscriptions)) {
            s.close();
        }
        List<HoldRelay> left;
        synchronized (this) {
            left = new ArrayList<>(relays.values());
            relays.clear();
            relayUsers.clear();
        }
        for (HoldRelay r : left) {
            r.close();
        }
        try {
            producer.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.warn("closing the Kafka producer: {}", e.toString());
        }
        topology.close();
        transportClientMeters.forEach(KafkaClientMetrics::close);
        if (clientMetersScheduler != null) {
            clientMetersScheduler.shutdownNow();
        }
    }

    /**
     * Micrometer's meters of a Kafka client ({@code kafka.consumer.*}, {@code kafka.producer.*}, {@code
     * kafka.admin.client.*}, tagged with the client id), bound to the application's registry when it gave one; empty
     * otherwise. Close the binder when the client closes.
     */
    Optional<KafkaClientMetrics> bind(Supplier<KafkaClientMetrics> binder) {
        if (clientMetersScheduler == null) {
            return Optional.empty();
        }
        KafkaClientMetrics metrics = binder.get();
        metrics.bindTo(context.meterRegistry());
        return Optional.of(metrics);
    }

    /** {@link #bind} for a consumer. */
    Optional<KafkaClientMetrics> bindConsumer(KafkaConsumer<?, ?> consumer) {
        return bind(() -> new KafkaClientMetrics(consumer, List.of(), clientMetersScheduler));
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the Kafka transport to " + config.bootstrapServers() + " is closed");
        }
    }
}
