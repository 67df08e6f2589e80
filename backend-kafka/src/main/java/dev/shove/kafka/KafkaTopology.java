package dev.shove.kafka;

import dev.shove.BrokerUnavailableException;
import dev.shove.HoldTier;
import dev.shove.ShoveException;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka objects of shove's topics, through the Admin client: creating and expanding topics, waiting for their
 * leaders, knowing their partition counts, reading a group's lag. Thread-safe.
 *
 * <p>A topic maps to: the main topic {@code {name}} ({@code partitions}, or {@code routingShards} for a sequenced
 * topic), one hold topic per tier {@code {name}-hold-{delay}} (unsequenced topics only: a sequenced retry waits in
 * place) and the dead-letter topic; hold and dead-letter topics get {@code partitions} partitions.
 *
 * <p>A hold topic shove creates gets a {@code retention.ms} of its own ({@link #holdRetention}) rather than the
 * broker's default: a copy must outlive its tier's delay, and the time no process of the topic runs to relay it, on
 * any broker, whatever its default.
 */
final class KafkaTopology implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaTopology.class);

    /**
     * The shortest retention of a hold topic: how long the retries of a topic survive with no process of it running
     * (no relay), seven days, the broker's usual default.
     */
    static final Duration HOLD_RETENTION_FLOOR = Duration.ofDays(7);

    /** What a hold topic keeps beyond twice its tier's delay: a day for the relay to be down. */
    static final Duration HOLD_RETENTION_MARGIN = Duration.ofDays(1);

    private final Admin admin;
    private final KafkaConfig config;
    private final Map<String, Integer> partitionCounts = new ConcurrentHashMap<>();
    private final Set<String> declared = ConcurrentHashMap.newKeySet();
    private final Map<String, String> shapes = new ConcurrentHashMap<>();

    KafkaTopology(Admin admin, KafkaConfig config) {
        this.admin = admin;
        this.config = config;
    }

    /** Creates what is missing, expands what has too few partitions, and waits until every partition has a leader. */
    void declare(Topic<?> topic) {
        Map<String, Integer> wanted = new LinkedHashMap<>();
        int mainPartitions = topic.sequencing().map(s -> s.routingShards()).orElse(config.partitions());
        wanted.put(topic.name(), mainPartitions);
        if (!topic.isSequenced() && !topic.isBroadcast()) {
            for (HoldTier tier : topic.holdTiers()) {
                wanted.put(tier.queue(), config.partitions());
            }
        }
        topic.dlq().ifPresent(dlq -> wanted.put(dlq, config.partitions()));
        Map<String, Map<String, String>> configs = new HashMap<>();
        configs.put(topic.name(), config.topicConfigs());
        if (!topic.isSequenced() && !topic.isBroadcast()) {
            for (HoldTier tier : topic.holdTiers()) {
                Map<String, String> hold = new HashMap<>(config.topicConfigs());
                hold.put(
                        "retention.ms",
                        Long.toString(holdRetention(tier.delay()).toMillis()));
                hold.putAll(config.holdTopicConfigs());
                configs.put(tier.queue(), hold);
            }
        }
        topic.dlq().ifPresent(dlq -> {
            Map<String, String> dead = new HashMap<>(config.topicConfigs());
            dead.putAll(config.deadLetterTopicConfigs());
            configs.put(dlq, dead);
        });
        String shape = wanted.toString();
        if (declared.contains(shape)) {
            return;
        }
        String kind = shape(topic);
        String earlier = shapes.putIfAbsent(topic.name(), kind);
        if (earlier != null && !earlier.equals(kind)) {
            throw new TopologyException("topic '%s' is already declared as %s; it cannot be redeclared as %s"
                    .formatted(topic.name(), earlier, kind));
        }
        try {
            if (earlier == null) {
                checkBrokerShape(topic);
            }
            ensure(topic, wanted, configs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TopologyException("interrupted while declaring topic '" + topic.name() + "' on Kafka", e);
        }
        declared.add(shape);
    }

    /** What a declaration fixes on the broker: sequenced or not (and its shards), and the dead-letter topic. */
    private static String shape(Topic<?> topic) {
        return topic.sequencing()
                        .map(s -> "sequenced(" + s.routingShards() + " shards)")
                        .orElse("unsequenced")
                + ", dlq " + topic.dlq().orElse("none");
    }

    /**
     * Kafka keeps no record of shove's shapes, so a conflict with a declaration made elsewhere shows only in the
     * objects it left: a sequenced topic has no hold topics, so hold topics of this name mean it was declared
     * unsequenced.
     */
    private void checkBrokerShape(Topic<?> topic) throws InterruptedException {
        if (!topic.isSequenced()) {
            return;
        }
        Set<String> holds = new java.util.HashSet<>();
        for (HoldTier tier : topic.holdTiers()) {
            holds.add(tier.queue());
        }
        Set<String> found = describe(holds).keySet();
        if (!found.isEmpty()) {
            shapes.remove(topic.name());
            throw new TopologyException(("topic '%s' cannot be declared sequenced: hold topics %s exist, so it was"
                            + " declared unsequenced before; use another name or delete the old topics")
                    .formatted(topic.name(), found));
        }
    }

    /** The retention of a hold topic whose tier waits {@code delay}: twice the delay and a day, at least a week. */
    static Duration holdRetention(Duration delay) {
        Duration derived = delay.multipliedBy(2).plus(HOLD_RETENTION_MARGIN);
        return derived.compareTo(HOLD_RETENTION_FLOOR) > 0 ? derived : HOLD_RETENTION_FLOOR;
    }

    /** Creates the missing topics of {@code wanted} (with their {@code configs}) and grows those with too few. */
    private void ensure(Topic<?> topic, Map<String, Integer> wanted, Map<String, Map<String, String>> configs)
            throws InterruptedException {
        Map<String, TopicDescription> existing = describe(wanted.keySet());
        List<NewTopic> create = new ArrayList<>();
        Map<String, NewPartitions> grow = new HashMap<>();
        for (Map.Entry<String, Integer> e : wanted.entrySet()) {
            TopicDescription d = existing.get(e.getKey());
            if (d == null) {
                create.add(new NewTopic(e.getKey(), Optional.of(e.getValue()), config.replicationFactor())
                        .configs(configs.getOrDefault(e.getKey(), Map.of())));
            } else if (d.partitions().size() < e.getValue()) {
                log.warn(
                        "Kafka topic '{}' has {} partitions, fewer than the {} topic '{}' needs; adding partitions{}",
                        e.getKey(),
                        d.partitions().size(),
                        e.getValue(),
                        topic.name(),
                        topic.isSequenced()
                                ? ""
                                : " (records keyed by Kafka's default partitioner may now land on other partitions)");
                grow.put(e.getKey(), NewPartitions.increaseTo(e.getValue()));
            }
        }
        for (Map.Entry<String, KafkaFuture<Void>> e :
                admin.createTopics(create).values().entrySet()) {
            try {
                e.getValue().get(timeoutMs(), TimeUnit.MILLISECONDS);
                log.info("created Kafka topic '{}' for topic '{}'", e.getKey(), topic.name());
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof TopicExistsException)) {
                    throw new TopologyException(
                            "cannot create Kafka topic '%s' for topic '%s': %s"
                                    .formatted(e.getKey(), topic.name(), ex.getCause()),
                            ex.getCause());
                }
            } catch (TimeoutException ex) {
                throw unavailable("creating Kafka topic '" + e.getKey() + "'", ex);
            }
        }
        for (Map.Entry<String, KafkaFuture<Void>> e :
                admin.createPartitions(grow).values().entrySet()) {
            try {
                e.getValue().get(timeoutMs(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof InvalidPartitionsException)) {
                    throw new TopologyException(
                            ("Kafka topic '%s' has fewer partitions than topic '%s' needs (%d) and they cannot be"
                                            + " added: %s; add them with kafka-topics --alter, or lower partitions /"
                                            + " routingShards")
                                    .formatted(e.getKey(), topic.name(), wanted.get(e.getKey()), ex.getCause()),
                            ex.getCause());
                }
            } catch (TimeoutException ex) {
                throw unavailable("adding partitions to Kafka topic '" + e.getKey() + "'", ex);
            }
        }
        awaitLeaders(topic, wanted);
    }

    /**
     * Waits until every wanted topic exists with its partitions, each with a leader that answers for it: only then do
     * produces go out. The metadata can name a leader before that broker has taken the partition (KAFKA-15591, seen on
     * a broker seconds old): an idempotent producer's first batches then get NOT_LEADER_OR_FOLLOWER, then
     * OUT_OF_ORDER_SEQUENCE_NUMBER until the delivery timeout expires them. So each partition's leader must also
     * answer a ListOffsets request.
     */
    private void awaitLeaders(Topic<?> topic, Map<String, Integer> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + config.apiTimeout().toNanos();
        while (true) {
            Map<String, TopicDescription> now = describe(wanted.keySet());
            List<String> notReady = new ArrayList<>();
            Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
            Map<String, Integer> counts = new HashMap<>();
            for (Map.Entry<String, Integer> e : wanted.entrySet()) {
                TopicDescription d = now.get(e.getKey());
                if (d == null
                        || d.partitions().size() < e.getValue()
                        || d.partitions().stream().anyMatch(p -> p.leader() == null)) {
                    notReady.add(e.getKey());
                } else {
                    counts.put(e.getKey(), d.partitions().size());
                    d.partitions()
                            .forEach(p ->
                                    partitions.put(new TopicPartition(e.getKey(), p.partition()), OffsetSpec.latest()));
                }
            }
            if (notReady.isEmpty()) {
                notReady.addAll(notAnswering(partitions));
            }
            if (notReady.isEmpty()) {
                partitionCounts.putAll(counts);
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new TopologyException(
                        "Kafka topics %s of topic '%s' have no leader answering for every partition after %s"
                                .formatted(notReady, topic.name(), DurationText.of(config.apiTimeout())));
            }
            Thread.sleep(100);
        }
    }

    /** The topics of which some partition's leader does not answer a ListOffsets request yet. */
    private Set<String> notAnswering(Map<TopicPartition, OffsetSpec> partitions) throws InterruptedException {
        Set<String> out = new TreeSet<>();
        if (partitions.isEmpty()) {
            return out;
        }
        ListOffsetsResult result = admin.listOffsets(partitions);
        for (TopicPartition tp : partitions.keySet()) {
            try {
                result.partitionResult(tp).get(timeoutMs(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof RetriableException)) {
                    throw unavailable("reading the end offsets of Kafka topic '" + tp.topic() + "'", ex.getCause());
                }
                out.add(tp.topic());
            } catch (TimeoutException ex) {
                throw unavailable("reading the end offsets of Kafka topic '" + tp.topic() + "'", ex);
            }
        }
        return out;
    }

    /** The descriptions of the topics that exist among {@code names}. */
    private Map<String, TopicDescription> describe(Set<String> names) throws InterruptedException {
        Map<String, TopicDescription> out = new HashMap<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e :
                admin.describeTopics(names).topicNameValues().entrySet()) {
            try {
                out.put(e.getKey(), e.getValue().get(timeoutMs(), TimeUnit.MILLISECONDS));
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw unavailable("describing Kafka topic '" + e.getKey() + "'", ex.getCause());
                }
            } catch (TimeoutException ex) {
                throw unavailable("describing Kafka topic '" + e.getKey() + "'", ex);
            }
        }
        return out;
    }

    /** The partition count of an existing topic, from the cache or the broker; -1 when it does not exist. */
    int partitions(String name) {
        Integer known = partitionCounts.get(name);
        if (known != null) {
            return known;
        }
        try {
            TopicDescription d = describe(Set.of(name)).get(name);
            if (d == null) {
                return -1;
            }
            int n = d.partitions().size();
            partitionCounts.put(name, n);
            return n;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while describing Kafka topic '" + name + "'", e);
        }
    }

    /** The partitions of a topic to publish to; a topic that does not exist is a non-retriable publish error. */
    int partitionsForPublish(String name) {
        int n = partitions(name);
        if (n < 0) {
            throw new TopologyException("Kafka topic '" + name
                    + "' does not exist; declare it first with broker.topology().declare(topic)");
        }
        return n;
    }

    /** Throws a {@link TopologyException} when the topic does not exist. */
    void requireExists(String name) {
        if (partitions(name) < 0) {
            throw new TopologyException("Kafka topic '" + name
                    + "' does not exist; declare it with broker.topology().declare(topic) before consuming it");
        }
    }

    /**
     * A group's lag on a topic: end offset minus committed offset, summed over partitions; a partition without a
     * committed offset counts from its first offset.
     */
    long lag(String topic, String group) throws InterruptedException, ExecutionException, TimeoutException {
        int n = partitions(topic);
        if (n < 0) {
            return 0;
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int i = 0; i < n; i++) {
            latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(timeoutMs(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                admin.listOffsets(latest).all().get(timeoutMs(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetSpec> uncommitted = new HashMap<>();
        for (TopicPartition tp : latest.keySet()) {
            if (committed.get(tp) == null) {
                uncommitted.put(tp, OffsetSpec.earliest());
            }
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts = uncommitted.isEmpty()
                ? Map.of()
                : admin.listOffsets(uncommitted).all().get(timeoutMs(), TimeUnit.MILLISECONDS);
        long lag = 0;
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            long from = c != null ? c.offset() : starts.get(e.getKey()).offset();
            lag += Math.max(0, e.getValue().offset() - from);
        }
        return lag;
    }

    /**
     * Where consumer group {@code group} stands in each partition of {@code topic}: its committed offset, where its
     * next read begins (the committed offset, or where a member without one starts: the log start, or the end when
     * {@code newGroupsFromEnd}; never before the log start, as retention may have passed the committed offset) and the
     * end offset. In partition order; an empty list when the topic does not exist.
     */
    List<GroupPosition> positions(String topic, String group, boolean newGroupsFromEnd)
            throws InterruptedException, ExecutionException, TimeoutException {
        int n = partitions(topic);
        if (n < 0) {
            return List.of();
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        for (int i = 0; i < n; i++) {
            latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            earliest.put(new TopicPartition(topic, i), OffsetSpec.earliest());
        }
        // Committed offsets before end offsets: a commit is never past an end offset read after it.
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(timeoutMs(), TimeUnit.MILLISECONDS);
        KafkaFuture<Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo>> startsFuture =
                admin.listOffsets(earliest).all();
        // Transactional: the end is the last stable offset, where read_committed readers stop.
        ListOffsetsOptions endOptions = config.transactional()
                ? new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)
                : new ListOffsetsOptions();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                admin.listOffsets(latest, endOptions).all().get(timeoutMs(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts =
                startsFuture.get(timeoutMs(), TimeUnit.MILLISECONDS);
        List<GroupPosition> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            TopicPartition tp = new TopicPartition(topic, i);
            OffsetAndMetadata c = committed.get(tp);
            long start = starts.get(tp).offset();
            long end = ends.get(tp).offset();
            long from = c != null ? Math.max(c.offset(), start) : newGroupsFromEnd ? end : start;
            out.add(new GroupPosition(tp, c == null ? null : c.offset(), Math.min(from, end), end));
        }
        return out;
    }

    /** A group's position in one partition ({@link #positions}): {@code committed} is null when it has none. */
    record GroupPosition(TopicPartition partition, @Nullable Long committed, long next, long end) {
        /** How many records the group has yet to read in the partition. */
        long unread() {
            return end - next;
        }
    }

    /** How many members consumer group {@code group} has now; 0 when it does not exist. */
    int members(String group) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(timeoutMs(), TimeUnit.MILLISECONDS)
                    .members()
                    .size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return 0;
            }
            throw e;
        }
    }

    void ping(Duration timeout) {
        try {
            int ms = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms))
                    .nodes()
                    .get(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while pinging Kafka at " + config.bootstrapServers(), e);
        } catch (ExecutionException | TimeoutException e) {
            ShoveException refused = refused(config, e);
            if (refused != null) {
                throw refused;
            }
            throw new BrokerUnavailableException(
                    "Kafka at " + config.bootstrapServers() + " did not answer within " + DurationText.of(timeout)
                            + "; check the bootstrap servers and that the broker runs",
                    e);
        }
    }

    /**
     * The broker refused this client's TLS handshake or SASL login (somewhere in {@code error}'s causes): an {@link
     * dev.shove.AuthenticationException}, not retriable since the same settings fail the same way at once, saying what
     * to check.
     * Null when {@code error} is no such refusal. Kafka's messages about a refusal name no secret, and the config's
     * secrets are redacted from them all the same.
     */
    static dev.shove.@Nullable AuthenticationException refused(KafkaConfig config, Throwable error) {
        AuthenticationException refusal = null;
        for (Throwable t = error; t != null && refusal == null; t = t.getCause()) {
            if (t instanceof AuthenticationException a) {
                refusal = a;
            }
        }
        if (refusal == null) {
            return null;
        }
        String broker = "Kafka at " + config.bootstrapServers();
        if (refusal instanceof SslAuthenticationException) {
            Throwable root = refusal;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return new dev.shove.AuthenticationException(
                    "the TLS handshake with " + broker + " failed: "
                            + config.redact(
                                    refusal.getMessage() + (root == refusal ? "" : " (" + root.getMessage() + ")"))
                            + "; check that the trust store (KafkaSsl.ofTruststore, or ssl.truststore in a kafka:// URI)"
                            + " holds the authority that signed the broker's certificate, and that the certificate"
                            + " names the host of the bootstrap servers",
                    error);
        }
        String who = config.sasl()
                .map(s -> " user '" + s.username() + "' (" + s.mechanism() + ")")
                .orElse(" this client");
        return new dev.shove.AuthenticationException(
                broker + " refused" + who + ": " + config.redact(String.valueOf(refusal.getMessage()))
                        + "; check the user name and password"
                        + " (KafkaConfig.sasl, or sasl.username and sasl.password in a kafka:// URI) and that the user"
                        + " has credentials for this mechanism on the broker",
                error);
    }

    private long timeoutMs() {
        return config.apiTimeout().toMillis();
    }

    private ShoveException unavailable(String what, Throwable cause) {
        ShoveException refused = refused(config, cause);
        if (refused != null) {
            return new dev.shove.AuthenticationException(what + " failed: " + refused.getMessage(), cause);
        }
        return new BrokerUnavailableException(
                what + " on Kafka at " + config.bootstrapServers() + " failed: " + cause, cause);
    }

    @Override
    public void close() {
        try {
            admin.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.warn("closing the Kafka admin client: {}", e.toString());
        }
    }
}
