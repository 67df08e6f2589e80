package dev.shove.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.TopologyRecoveryException;
import com.rabbitmq.client.impl.ForgivingExceptionHandler;
import com.rabbitmq.client.impl.MicrometerMetricsCollector;
import com.rabbitmq.client.impl.recovery.AutorecoveringConnection;
import com.rabbitmq.client.impl.recovery.RecordedBinding;
import com.rabbitmq.client.impl.recovery.RecordedConsumer;
import com.rabbitmq.client.impl.recovery.RecordedExchange;
import com.rabbitmq.client.impl.recovery.RecordedQueue;
import com.rabbitmq.client.impl.recovery.TopologyRecoveryFilter;
import dev.shove.AuthenticationException;
import dev.shove.BrokerUnavailableException;
import dev.shove.HoldTier;
import dev.shove.PublishException;
import dev.shove.ShoveException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.Capabilities;
import dev.shove.spi.ConnectErrors;
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
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.io.IOException;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RabbitMQ transport: one AMQP connection with automatic recovery, a pool of confirm-mode channels for
 * publishing, one channel per consumer, and the management API for queue depth. It translates and decides nothing:
 * where a copy goes is the engine's {@link Settlement}; this class only knows which RabbitMQ queue that is.
 *
 * <p>Connection recovery re-dials the broker every {@link RabbitMqConfig#recoveryInterval()} until it answers, then
 * reopens every channel and re-registers the consumers of open subscriptions (queues are durable and are not
 * redeclared). Unacknowledged deliveries of the lost connection are requeued by the broker and delivered again. The
 * one exception is a broadcast subscription's queue: exclusive to the connection, it died with it, so it is declared
 * again (under a new server-chosen name) and bound to its topic's exchange before its consumer is re-registered.
 */
final class RabbitMqTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(RabbitMqTransport.class);

    /**
     * What RabbitMQ gives with publisher confirms on classic queues; transactional settlement adds {@code
     * transactions}, quorum queues add {@code deliveryCount}. Never {@code durableSequencedRetries}: a sequenced retry
     * waits in place, unacknowledged, and AMQP 0-9-1 cannot change the headers of a message the broker holds, so its
     * retry count and due time cannot be stored with it; a quorum queue's delivery count counts returns to the queue,
     * not the retries run in place, and knows no due time.
     */
    static Capabilities capabilities(boolean transactional, boolean quorum) {
        Capabilities.Builder b = Capabilities.builder()
                .durableRetries()
                .redeliveryFlag()
                .competingConsumers()
                .broadcast();
        if (quorum) {
            b.deliveryCount();
        }
        return (transactional ? b.transactions() : b).build();
    }

    /** After the management API failed, how long queue depth comes from passive declares before trying it again. */
    static final Duration MANAGEMENT_RETRY_AFTER = Duration.ofMinutes(1);

    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final RabbitMqConfig config;
    private final Capabilities capabilities;
    private final String connectionName;
    private final MeterRegistry registry;
    private final Connection connection;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService completions;
    /**
     * Runs the client's consumer callbacks, a virtual thread per block of deliveries (the client keeps each channel's
     * callbacks in order). A delivery then reaches the engine on a virtual thread, so handing it to a worker schedules
     * the worker on the same carrier instead of waking an idle one from a platform thread: on RabbitMQ's one-at-a-time
     * deliveries that wake-up, and the carriers' spinning before they park again, were a third of the consumer's CPU.
     */
    private final ExecutorService dispatch;

    private final TransportContext context;
    private final ConfirmPublisher publisher;
    private final RabbitTopology topology;
    private final @Nullable ManagementApi management;
    private final ConcurrentHashMap<String, RabbitSubscription> consumers = new ConcurrentHashMap<>();
    /** The queues of open broadcast subscriptions, by their current name: the only queues recovery declares. */
    private final ConcurrentHashMap<String, RabbitSubscription> broadcastQueues = new ConcurrentHashMap<>();
    /** Broadcast exchanges known to exist: declared or checked by this transport, no publish failed since. */
    private final Set<String> knownExchanges = ConcurrentHashMap.newKeySet();

    private final AtomicLong consumerSeq = new AtomicLong();
    private final AtomicInteger threadSeq = new AtomicInteger();
    private volatile long managementBackOffUntil;
    private final ManagementOutage managementOutage = new ManagementOutage();
    private volatile boolean closed;

    /** Test seam: runs after a settlement's copies are in and before its acknowledgement is written. */
    volatile @Nullable Runnable afterCopiesHook;

    RabbitMqTransport(RabbitMqConfig config, TransportContext context) {
        this.config = config;
        this.context = context;
        this.capabilities = capabilities(config.isTransactionalSettlement(), config.isQuorumQueues());
        this.connectionName = config.connectionName().orElse(context.clientName());
        this.registry = context.meterRegistry();
        ThreadFactory threads = r -> Thread.ofPlatform()
                .daemon()
                .name("shove-rabbitmq-" + connectionName + "-" + threadSeq.getAndIncrement())
                .unstarted(r);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .daemon()
                .name("shove-rabbitmq-timer-" + connectionName)
                .factory());
        this.completions = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("shove-rabbitmq-confirm-", 0).factory());
        this.dispatch = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("shove-rabbitmq-dispatch-", 0).factory());
        try {
            this.connection = connect(config, threads, dispatch);
        } catch (RuntimeException e) {
            scheduler.shutdownNow();
            completions.shutdownNow();
            dispatch.shutdownNow();
            throw e;
        }
        connection.addShutdownListener(this::onConnectionLost);
        connection.addBlockedListener(new BlockedListener() {
            @Override
            public void handleBlocked(String reason) {
                log.warn(
                        "RabbitMQ at {} blocks publishing on connection '{}': {}; publishes wait until it unblocks",
                        config.redactedUri(),
                        connectionName,
                        reason);
            }

            @Override
            public void handleUnblocked() {
                log.info("RabbitMQ at {} unblocked connection '{}'", config.redactedUri(), connectionName);
            }
        });
        if (connection instanceof AutorecoveringConnection recovering) {
            recovering.addQueueRecoveryListener(this::broadcastQueueRecovered);
        }
        if (connection instanceof Recoverable recoverable) {
            recoverable.addRecoveryListener(new RecoveryListener() {
                @Override
                public void handleRecovery(Recoverable r) {
                    context.connectionRestored();
                    log.info("connection '{}' to RabbitMQ at {} recovered", connectionName, config.redactedUri());
                }

                @Override
                public void handleRecoveryStarted(Recoverable r) {
                    log.info("reconnecting '{}' to RabbitMQ at {}", connectionName, config.redactedUri());
                }
            });
        }
        this.publisher = new ConfirmPublisher(
                connection,
                config.publishChannels(),
                config.publishAttempts(),
                config.confirmTimeout().toNanos(),
                scheduler,
                completions,
                config.redactedUri());
        this.topology = new RabbitTopology(connection, config.virtualHost(), config.isQuorumQueues());
        this.management = config.managementApi()
                .map(uri -> new ManagementApi(
                        uri,
                        config.virtualHost(),
                        config.managementUsername(),
                        config.managementPassword(),
                        config.sslContext().orElse(null)))
                .orElse(null);
        log.info("connected '{}' to RabbitMQ at {}", connectionName, config.redactedUri());
    }

    private Connection connect(RabbitMqConfig config, ThreadFactory threads, ExecutorService dispatch) {
        TlsAwareConnectionFactory factory = new TlsAwareConnectionFactory();
        factory.setHost(config.host());
        factory.setPort(config.port());
        factory.setUsername(config.username());
        factory.setPassword(config.password());
        factory.setVirtualHost(config.virtualHost());
        factory.setConnectionTimeout((int) config.connectTimeout().toMillis());
        factory.setThreadFactory(threads);
        factory.setSharedExecutor(dispatch);
        factory.setAutomaticRecoveryEnabled(true);
        factory.setTopologyRecoveryEnabled(true);
        factory.setTopologyRecoveryFilter(new OpenSubscriptionsOnly());
        factory.setNetworkRecoveryInterval(config.recoveryInterval().toMillis());
        factory.setExceptionHandler(new Handler());
        if (context.observed()) {
            // the client's own meters (rabbitmq.connections, rabbitmq.channels, rabbitmq.published,
            // rabbitmq.consumed, rabbitmq.acknowledged, ...), in the application's registry
            factory.setMetricsCollector(new MicrometerMetricsCollector(
                    context.meterRegistry(), "rabbitmq", Tags.of("connection", connectionName)));
        }
        if (config.isTls()) {
            SSLContext context;
            try {
                context = config.sslContext().isPresent() ? config.sslContext().get() : SSLContext.getDefault();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JVM offers no default TLS context for amqps://", e);
            }
            factory.useTls(context, config.isTlsHostnameVerification());
        }
        try {
            return factory.newConnection(connectionName);
        } catch (AuthenticationFailureException e) {
            throw new AuthenticationException(
                    "RabbitMQ at " + config.redactedUri() + " refused user '"
                            + config.username() + "': wrong user name or password, or no access to vhost '"
                            + config.virtualHost() + "'",
                    e);
        } catch (IOException | TimeoutException e) {
            ShoveException tls = tlsFailure(config, e);
            if (tls != null) {
                throw tls;
            }
            throw ConnectErrors.cannotConnect("RabbitMQ", config.redactedUri(), config.connectTimeout(), e, "rabbitmq");
        }
    }

    /**
     * The client's public {@code useSslProtocol(SSLContext)} always turns host name verification on (amqp-client
     * 5.2x and later), so {@link RabbitMqConfig.Builder#noTlsHostnameVerification()} had no effect; its protected
     * overload, the one the public method calls, takes the choice.
     */
    private static final class TlsAwareConnectionFactory extends ConnectionFactory {
        void useTls(SSLContext context, boolean verifyHostname) {
            useSslProtocol(context, verifyHostname);
        }
    }

    /**
     * What went wrong when the connection failed in its TLS handshake, and what to do; null when it failed otherwise.
     * A certificate that is not trusted or does not name the host is an {@link AuthenticationException} (the same
     * settings fail again); any other handshake failure, such as a port that does not take TLS, stays a retriable
     * {@link BrokerUnavailableException}. The JSSE exceptions name the certificate's problem, never a password.
     */
    static @Nullable ShoveException tlsFailure(RabbitMqConfig config, Throwable failure) {
        @Nullable SSLException tls = null;
        @Nullable CertificateException certificate = null;
        boolean untrusted = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException e && tls == null) {
                tls = e;
            } else if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException) {
                untrusted = true;
            } else if (t instanceof CertificateException e) {
                certificate = e;
            }
        }
        if (tls == null && certificate == null) {
            return null;
        }
        String where = "RabbitMQ at " + config.redactedUri();
        String source = config.sslContext().isPresent()
                ? "the configured TLS context (RabbitMqConfig.Builder.tls(SSLContext) or trustStore(file, password))"
                : "the JVM's default trust store (amqps:// without tls(SSLContext) or trustStore)";
        if (untrusted) {
            return new AuthenticationException(
                    "the TLS certificate of " + where + " is not trusted by " + source + " ("
                            + rootMessage(failure) + "). Trust the broker's CA: give a trust store holding it with"
                            + " RabbitMqConfig.Builder.trustStore(file, password) (URI: trustStore=...&"
                            + "trustStorePassword=...), pass an SSLContext whose trust managers hold it to"
                            + " RabbitMqConfig.Builder.tls(SSLContext), or add it to the JVM's trust store"
                            + " (javax.net.ssl.trustStore)",
                    failure);
        }
        String reason = rootMessage(failure);
        if (certificate != null
                && (reason.startsWith("No subject alternative") || reason.startsWith("No name matching"))) {
            return new AuthenticationException(
                    "the TLS certificate of " + where + " does not name host '" + config.host() + "' (" + reason
                            + "). Connect by a host name the certificate holds; for a test broker only,"
                            + " RabbitMqConfig.Builder.noTlsHostnameVerification() skips this check",
                    failure);
        }
        return new BrokerUnavailableException(
                "the TLS handshake with " + where + " failed (" + reason + "). Does port " + config.port()
                        + " take TLS (RabbitMQ's TLS port is " + RabbitMqConfig.DEFAULT_TLS_PORT + ", listeners.ssl),"
                        + " and do client and broker share a TLS version and cipher?",
                failure);
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }

    private void onConnectionLost(ShutdownSignalException cause) {
        if (cause.isInitiatedByApplication()) {
            return;
        }
        registry.counter("shove.backend.errors", "backend", name(), "kind", "connection")
                .increment();
        context.connectionLost("lost: " + cause.getMessage());
        log.warn(
                "connection '{}' to RabbitMQ at {} was lost: {}; reconnecting every {}",
                connectionName,
                config.redactedUri(),
                cause.getMessage(),
                DurationText.of(config.recoveryInterval()));
    }

    @Override
    public String name() {
        return "rabbitmq";
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public void declare(Topic<?> topic) {
        checkOpen();
        topology.declare(topic);
        if (topic.isBroadcast()) {
            knownExchanges.add(RabbitTopology.broadcastExchange(topic));
        }
    }

    @Override
    public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
        if (closed) {
            return CompletableFuture.failedFuture(new PublishException(
                    "cannot publish to topic '" + topic.name() + "': the RabbitMQ broker connection is closed",
                    null,
                    false));
        }
        Route route;
        try {
            route = routeOf(topic, message);
            if (topic.isBroadcast()) {
                checkExchange(topic, route);
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> published = publisher.publish(
                route,
                AmqpMessages.forPublish(message),
                message.payload(),
                "a message of topic '" + topic.name() + "'");
        if (topic.isBroadcast()) {
            published.whenComplete((ok, failure) -> {
                if (failure != null) {
                    knownExchanges.remove(route.exchange()); // deleted under us? the next publish checks again
                }
            });
        }
        return published;
    }

    /**
     * Makes sure a broadcast topic's exchange exists before the first publish to it. Publishing to a missing exchange
     * is a channel error that would close a pooled publishing channel and fail every publish in flight on it; a
     * passive declare on a channel of its own fails alone, and says what to do. While the connection is down the
     * check is skipped, and the publish waits for the connection like any other.
     */
    private void checkExchange(Topic<?> topic, Route route) {
        if (knownExchanges.contains(route.exchange())) {
            return;
        }
        boolean exists;
        try {
            exists = topology.exchangeExists(topic);
        } catch (BrokerUnavailableException e) {
            return;
        }
        if (!exists) {
            throw new TopologyException("cannot publish to broadcast topic '" + topic.name() + "': its " + route
                    + " does not exist on RabbitMQ. Declare the topic first with broker.topology().declare(topic)");
        }
        knownExchanges.add(route.exchange());
    }

    /** Where a message of a topic goes: a broadcast topic's exchange, a sequenced topic's shard, or the main queue. */
    static Route routeOf(Topic<?> topic, OutboundMessage message) {
        return topic.isBroadcast()
                ? Route.fanout(RabbitTopology.broadcastExchange(topic))
                : Route.queue(queueOf(topic, message));
    }

    /** The queue a message of a topic goes to: its shard for a sequenced topic, else the main queue. */
    static String queueOf(Topic<?> topic, OutboundMessage message) {
        if (!topic.isSequenced()) {
            return topic.name();
        }
        int shards = topic.sequencing().orElseThrow().routingShards();
        if (message.shard() < 0 || message.shard() >= shards) {
            throw new IllegalArgumentException("a message for sequenced topic '" + topic.name()
                    + "' must name its shard (0.." + (shards - 1) + "), was " + message.shard());
        }
        return topic.shardName(message.shard());
    }

    /** The AMQP properties of a copy: a reply is a new message of its topic; the others keep the original's. */
    static AMQP.BasicProperties copyProperties(RabbitDelivery delivery, Settlement.Copy copy) {
        return copy instanceof Settlement.Copy.ToTopic reply
                ? AmqpMessages.forPublish(reply.message())
                : AmqpMessages.forCopy(delivery.properties, copy.headers());
    }

    /** Publishes the copy a settlement asks for, with confirms, to where {@link #copyTarget} says. */
    CompletableFuture<Void> publishCopy(Topic<?> topic, RabbitDelivery delivery, Settlement.Copy copy) {
        Route target = copyTarget(topic, delivery, copy);
        String kind = switch (copy) {
            case Settlement.Copy.ToHold h -> "a retry copy of message ";
            case Settlement.Copy.ToDeadLetter d -> "a dead letter of message ";
            case Settlement.Copy.ToTopic r -> "a reply to message ";
        };
        String what = kind + delivery.headers().getOrDefault(ShoveHeaders.MESSAGE_ID, delivery.deliveryId());
        return publisher.publish(target, copyProperties(delivery, copy), copy.payload(), what);
    }

    /**
     * Where a copy goes: a hold copy to the tier's queue of the queue it came from (a shard's own tiers for a shard),
     * a dead letter to the queue the engine named, a reply to its topic's queue (or shard, or broadcast exchange).
     */
    Route copyTarget(Topic<?> topic, RabbitDelivery delivery, Settlement.Copy copy) {
        return switch (copy) {
            case Settlement.Copy.ToHold hold -> {
                List<HoldTier> tiers = delivery.shard >= 0 ? topic.shardHoldTiers(delivery.shard) : topic.holdTiers();
                if (hold.tier() < 0 || hold.tier() >= tiers.size()) {
                    throw new IllegalArgumentException("topic '" + topic.name() + "' has no hold tier " + hold.tier()
                            + " (it has " + tiers.size() + ")");
                }
                yield Route.queue(tiers.get(hold.tier()).queue());
            }
            case Settlement.Copy.ToDeadLetter dead -> Route.queue(dead.queue());
            case Settlement.Copy.ToTopic reply -> routeOf(reply.topic(), reply.message());
        };
    }

    @Override
    public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
        checkOpen();
        return RabbitSubscription.open(
                this,
                connection,
                request,
                sink,
                config.isTransactionalSettlement(),
                "shove-" + request.consumerId() + "-" + consumerSeq.incrementAndGet());
    }

    void registerConsumer(String consumerTag, RabbitSubscription subscription) {
        consumers.put(consumerTag, subscription);
    }

    void unregisterConsumer(String consumerTag) {
        consumers.remove(consumerTag);
    }

    /** A broadcast subscription's queue, to be declared again when the connection recovers. */
    void registerBroadcastQueue(String queue, RabbitSubscription subscription) {
        broadcastQueues.put(queue, subscription);
    }

    /** The subscription is closing: its queue is not to come back, and the client may forget it. */
    void unregisterBroadcastQueue(String queue) {
        broadcastQueues.remove(queue);
        if (connection instanceof AutorecoveringConnection recovering) {
            recovering.excludeQueueFromRecovery(queue, false);
        }
    }

    /** Recovery declared a broadcast queue again: the server chose a new name, which its subscription now reads. */
    private void broadcastQueueRecovered(String oldName, String newName) {
        RabbitSubscription subscription = broadcastQueues.remove(oldName);
        if (subscription != null) {
            broadcastQueues.put(newName, subscription);
            subscription.broadcastQueueRecovered(oldName, newName);
        }
    }

    /** Deletes a queue on a channel of its own, for when the channel that declared it is gone; failures are logged. */
    void deleteQueueQuietly(String queue) {
        try {
            Channel channel = connection.createChannel();
            if (channel != null) {
                try {
                    channel.queueDelete(queue);
                } finally {
                    RabbitTopology.closeQuietly(channel);
                }
            }
        } catch (IOException | ShutdownSignalException e) {
            log.debug("deleting queue '{}' failed: {}", queue, e.toString());
        }
    }

    void schedule(Runnable task, Duration delay) {
        try {
            scheduler.schedule(() -> completions.execute(task), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            log.debug("not scheduling a task on a closed transport: {}", e.toString());
        }
    }

    void afterCopies() {
        Runnable hook = afterCopiesHook;
        if (hook != null) {
            hook.run();
        }
    }

    @Override
    public QueueStats stats(Topic<?> topic) {
        checkOpen();
        if (topic.isBroadcast()) {
            return new QueueStats(0, 0); // nothing waits for a group: each subscriber has a queue of its own
        }
        List<String> queues = new ArrayList<>();
        List<String> holds = new ArrayList<>();
        topic.sequencing()
                .ifPresentOrElse(
                        s -> {
                            for (int i = 0; i < s.routingShards(); i++) {
                                queues.add(topic.shardName(i));
                                topic.shardHoldTiers(i).forEach(tier -> holds.add(tier.queue()));
                            }
                        },
                        () -> {
                            queues.add(topic.name());
                            topic.holdTiers().forEach(tier -> holds.add(tier.queue()));
                        });
        // Ready and held counts from passive declares: current at once, where the management API's statistics lag
        // by 5-7 seconds. Only the unacknowledged count needs the management API.
        long[] counts = passiveCounts(topic, queues, holds);
        long inFlight = 0;
        ManagementApi api = management;
        if (api != null && System.nanoTime() - managementBackOffUntil >= 0) {
            try {
                for (String q : queues) {
                    inFlight += api.queueStats(q).inFlight();
                }
                managementOutage.answered(api.base().toString());
            } catch (IOException e) {
                managementUnavailable(api, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BrokerUnavailableException(
                        "interrupted while reading the depth of topic '" + topic.name() + "'", e);
            }
        }
        return new QueueStats(counts[0], inFlight, counts[1]);
    }

    private void managementUnavailable(ManagementApi api, Exception e) {
        managementBackOffUntil = System.nanoTime() + MANAGEMENT_RETRY_AFTER.toNanos();
        managementOutage.failed(api.base().toString(), e, MANAGEMENT_RETRY_AFTER);
    }

    /** The ready messages of {@code queues} and of {@code holds}, each summed, from passive declares. */
    private long[] passiveCounts(Topic<?> topic, List<String> queues, List<String> holds) {
        Channel channel;
        try {
            channel = connection.createChannel();
        } catch (IOException | ShutdownSignalException e) {
            throw new BrokerUnavailableException(
                    "cannot read the depth of topic '" + topic.name() + "': the RabbitMQ connection is down", e);
        }
        if (channel == null) {
            throw new BrokerUnavailableException("RabbitMQ refused a channel: channel limit reached");
        }
        try {
            long ready = 0;
            for (String q : queues) {
                ready += channel.queueDeclarePassive(q).getMessageCount();
            }
            long held = 0;
            for (String q : holds) {
                held += channel.queueDeclarePassive(q).getMessageCount();
            }
            return new long[] {ready, held};
        } catch (IOException | ShutdownSignalException e) {
            AMQP.Channel.@Nullable Close close = RabbitTopology.channelClose(e);
            if (close != null && close.getReplyCode() == AMQP.NOT_FOUND) {
                throw new TopologyException("a queue of topic '" + topic.name() + "' does not exist on RabbitMQ ("
                        + close.getReplyText() + "); declare the topic first");
            }
            throw new BrokerUnavailableException("reading the depth of topic '" + topic.name() + "' failed: " + e, e);
        } finally {
            RabbitTopology.closeQuietly(channel);
        }
    }

    /**
     * The topic's dead-letter queue. The group does not matter on RabbitMQ: a topic has one dead-letter queue, and
     * the consumers of every group compete for its messages.
     */
    @Override
    public DeadLetterStore deadLetters(Topic<?> topic, String group) {
        checkOpen();
        String queue = topic.dlq()
                .orElseThrow(() -> new IllegalArgumentException(
                        "topic '" + topic.name() + "' has no dead-letter queue; declare it with dlq()"));
        return new RabbitDeadLetters(this, topic.name(), queue, config.isQuorumQueues());
    }

    /** A channel of its own for {@code purpose} (in words, for the error when there is none). */
    Channel openChannel(String purpose) {
        checkOpen();
        Channel channel;
        try {
            channel = connection.createChannel();
        } catch (IOException | ShutdownSignalException e) {
            throw new BrokerUnavailableException(
                    purpose + " failed: the RabbitMQ connection is down (" + RabbitTopology.describe(e)
                            + "); it recovers by itself, try again later",
                    e);
        }
        if (channel == null) {
            throw new BrokerUnavailableException(
                    purpose + " failed: RabbitMQ refused a channel, the connection's channel limit is reached");
        }
        return channel;
    }

    @Override
    public void ping(Duration timeout) {
        checkOpen();
        if (!connection.isOpen()) {
            throw new BrokerUnavailableException(
                    "the connection to RabbitMQ at " + config.redactedUri() + " is down (recovering)");
        }
        CompletableFuture<Void> roundTrip = CompletableFuture.runAsync(
                () -> {
                    try {
                        Channel channel = connection.createChannel();
                        if (channel != null) {
                            channel.close();
                        }
                    } catch (IOException | TimeoutException e) {
                        throw new BrokerUnavailableException("RabbitMQ did not open a channel: " + e, e);
                    }
                },
                completions);
        try {
            roundTrip.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            roundTrip.cancel(true);
            throw new BrokerUnavailableException(
                    "RabbitMQ at " + config.redactedUri() + " did not answer within " + DurationText.of(timeout), e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof ShoveException s
                    ? s
                    : new BrokerUnavailableException(
                            "RabbitMQ at " + config.redactedUri() + " did not answer: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while pinging RabbitMQ", e);
        }
    }

    /** Whether the AMQP connection is up right now (false while it recovers). */
    boolean isConnected() {
        return connection.isOpen();
    }

    /** The AMQP connection's name as the broker shows it. */
    String connectionName() {
        return connectionName;
    }

    RabbitMqConfig config() {
        return config;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the RabbitMQ transport '" + connectionName + "' is closed");
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
        publisher.close();
        try {
            connection.close((int) CLOSE_TIMEOUT.toMillis());
        } catch (IOException | ShutdownSignalException e) {
            log.debug("closing connection '{}' failed: {}", connectionName, e.toString());
            connection.abort();
        }
        scheduler.shutdownNow();
        completions.shutdown();
        dispatch.shutdown();
        log.info("closed connection '{}' to RabbitMQ at {}", connectionName, config.redactedUri());
    }

    /**
     * After a connection recovery, re-register the consumers of open subscriptions, and declare and bind again the
     * queues of open broadcast subscriptions, which were exclusive to the lost connection. Nothing else: the topics'
     * queues and exchanges are durable and survive the broker, and redeclaring them from the client's record could
     * resurrect one an operator deleted on purpose. A consumer whose subscription has closed (while the connection
     * was down, say) is not brought back.
     */
    private final class OpenSubscriptionsOnly implements TopologyRecoveryFilter {
        @Override
        public boolean filterExchange(RecordedExchange exchange) {
            return false;
        }

        @Override
        public boolean filterQueue(RecordedQueue queue) {
            return broadcastQueues.containsKey(queue.getName());
        }

        @Override
        public boolean filterBinding(RecordedBinding binding) {
            return broadcastQueues.containsKey(binding.getDestination());
        }

        @Override
        public boolean filterConsumer(RecordedConsumer consumer) {
            return consumers.containsKey(consumer.getConsumerTag());
        }
    }

    /** Logs what the client reports, and tells a subscription when its consumer could not be recovered. */
    private final class Handler extends ForgivingExceptionHandler {
        @Override
        public void handleTopologyRecoveryException(Connection conn, Channel ch, TopologyRecoveryException exception) {
            super.handleTopologyRecoveryException(conn, ch, exception);
            RabbitSubscription subscription = switch (exception.getRecordedEntity()) {
                case RecordedConsumer consumer -> consumers.get(consumer.getConsumerTag());
                case RecordedQueue queue -> broadcastQueues.get(queue.getName());
                case RecordedBinding binding -> broadcastQueues.get(binding.getDestination());
                case null, default -> null;
            };
            if (subscription != null) {
                subscription.recoveryFailed(exception);
            }
            registry.counter("shove.backend.errors", "backend", name(), "kind", "recovery")
                    .increment();
        }

        @Override
        public void handleChannelRecoveryException(Channel ch, Throwable exception) {
            super.handleChannelRecoveryException(ch, exception);
            for (RabbitSubscription subscription : consumers.values()) {
                if (subscription.owns(ch)) {
                    subscription.recoveryFailed(exception);
                }
            }
            registry.counter("shove.backend.errors", "backend", name(), "kind", "recovery")
                    .increment();
        }
    }
}
