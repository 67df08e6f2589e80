package dev.shove.kafka;

import dev.shove.BrokerConfig;
import dev.shove.spi.Bounds;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the Kafka backend: where the brokers are, how to authenticate, how topics are created and how consumers
 * commit. Immutable and thread-safe; {@code toString()} never shows secrets.
 *
 * <pre>{@code
 * Broker<Kafka> broker = Broker.connect(KafkaConfig.of("localhost:9092"));
 *
 * KafkaConfig config = KafkaConfig.builder("kafka-1:9093,kafka-2:9093")
 *         .sasl(KafkaSasl.scramSha512("orders-svc", password))
 *         .ssl(KafkaSsl.ofSystemTruststore())
 *         .partitions(12)
 *         .replicationFactor(3)
 *         .build();
 * }</pre>
 *
 * <p>Defaults: {@value #DEFAULT_PARTITIONS} partitions per topic (a sequenced topic gets one per routing shard), the
 * broker's default replication factor, offsets committed every {@link #DEFAULT_COMMIT_INTERVAL} or every {@value
 * #DEFAULT_COMMIT_BATCH} completed records, whichever comes first. {@link Builder#clientProperty} passes any other
 * {@code kafka-clients} property to every client shove creates (admin, producer, consumers); shove's own settings that
 * keep its guarantees ({@code enable.auto.commit=false}, {@code acks=all}, idempotence) cannot be overridden.
 *
 * <p>{@link Builder#topicConfig} (every topic shove creates), {@link Builder#holdTopicConfig} and {@link
 * Builder#deadLetterTopicConfig} pass broker topic configs ({@code max.message.bytes}, {@code retention.ms}, ...) to the
 * topics shove creates when it declares a topic; topics that exist already are left as they are. Messages over 1 MB,
 * for example, need {@code max.message.bytes} on the topics plus the producer's {@code max.request.size}:
 *
 * <pre>{@code
 * KafkaConfig.builder("localhost:9092")
 *         .topicConfig("max.message.bytes", "4194304")             // main, hold and dead-letter topics
 *         .clientProperty("max.request.size", "4194304")           // the producer
 *         .clientProperty("max.partition.fetch.bytes", "4194304")  // consumers: one fetch per large record
 *         .build();
 * }</pre>
 *
 * @since 0.1.0
 */
public final class KafkaConfig implements BrokerConfig<Kafka> {
    /** The bootstrap servers of {@link #ofDefaults()}. */
    public static final String DEFAULT_BOOTSTRAP = "localhost:9092";
    /** Partitions of a new unsequenced topic, its hold topics and its dead-letter topic. */
    public static final int DEFAULT_PARTITIONS = 8;
    /** The longest a completed record waits before its offset is committed. */
    public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofMillis(20);
    /** Completed records after which offsets are committed without waiting for the interval. */
    public static final int DEFAULT_COMMIT_BATCH = 1000;
    /** How long a consumer losing partitions in a rebalance waits for their in-flight records to settle. */
    public static final Duration DEFAULT_REVOCATION_TIMEOUT = Duration.ofSeconds(10);
    /** How long a partition may go without committing, with records in flight, before it is reported as stalled. */
    public static final Duration DEFAULT_STALL_THRESHOLD = Duration.ofSeconds(60);
    /** The consumer group session timeout: how soon the group notices a consumer that died without leaving. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
    /** How long a publish (including the producer's retries) may take before it fails. */
    public static final Duration DEFAULT_DELIVERY_TIMEOUT = Duration.ofSeconds(30);
    /** How long admin operations (declare, stats) and the connection check may take. */
    public static final Duration DEFAULT_API_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long connecting may take: reaching a bootstrap server and its first answer. An unreachable address fails
     * after this, not after the API timeout.
     */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private final String bootstrapServers;
    private final int partitions;
    private final short replicationFactor;
    private final @Nullable KafkaSsl ssl;
    private final @Nullable KafkaSasl sasl;
    private final Map<String, String> clientProperties;
    private final Map<String, String> topicConfigs;
    private final Map<String, String> holdTopicConfigs;
    private final Map<String, String> deadLetterTopicConfigs;
    private final @Nullable String messageKeyHeader;
    private final Duration commitInterval;
    private final int commitBatch;
    private final Duration revocationTimeout;
    private final Duration stallThreshold;
    private final Duration sessionTimeout;
    private final Duration deliveryTimeout;
    private final Duration apiTimeout;
    private final Duration connectTimeout;
    private final boolean transactional;

    private KafkaConfig(Builder b) {
        this.bootstrapServers = b.bootstrapServers;
        this.partitions = b.partitions == null ? DEFAULT_PARTITIONS : b.partitions;
        this.replicationFactor = b.replicationFactor == null ? -1 : b.replicationFactor;
        this.ssl = b.ssl;
        this.sasl = b.sasl;
        this.clientProperties = Map.copyOf(b.clientProperties);
        this.topicConfigs = Map.copyOf(b.topicConfigs);
        this.holdTopicConfigs = Map.copyOf(b.holdTopicConfigs);
        this.deadLetterTopicConfigs = Map.copyOf(b.deadLetterTopicConfigs);
        this.messageKeyHeader = b.messageKeyHeader;
        this.commitInterval = orDefault(b.commitInterval, DEFAULT_COMMIT_INTERVAL);
        this.commitBatch = b.commitBatch == null ? DEFAULT_COMMIT_BATCH : b.commitBatch;
        this.revocationTimeout = orDefault(b.revocationTimeout, DEFAULT_REVOCATION_TIMEOUT);
        this.stallThreshold = orDefault(b.stallThreshold, DEFAULT_STALL_THRESHOLD);
        this.sessionTimeout = orDefault(b.sessionTimeout, DEFAULT_SESSION_TIMEOUT);
        this.deliveryTimeout = orDefault(b.deliveryTimeout, DEFAULT_DELIVERY_TIMEOUT);
        this.apiTimeout = orDefault(b.apiTimeout, DEFAULT_API_TIMEOUT);
        this.connectTimeout = orDefault(b.connectTimeout, DEFAULT_CONNECT_TIMEOUT);
        this.transactional = b.transactional;
    }

    private static Duration orDefault(@Nullable Duration value, Duration fallback) {
        return value == null ? fallback : value;
    }

    /**
     * Plaintext connection to {@code bootstrapServers}, every other default.
     *
     * @param bootstrapServers {@code host:port[,host:port...]}
     * @return the config
     */
    public static KafkaConfig of(String bootstrapServers) {
        return builder(bootstrapServers).build();
    }

    /** {@return a plaintext connection to {@value #DEFAULT_BOOTSTRAP}, every other default} */
    public static KafkaConfig ofDefaults() {
        return of(DEFAULT_BOOTSTRAP);
    }

    /**
     * Starts a config with options.
     *
     * @param bootstrapServers {@code host:port[,host:port...]}
     * @return a builder with every default
     */
    public static Builder builder(String bootstrapServers) {
        return new Builder(bootstrapServers);
    }

    /** {@return the brokers the clients first connect to, {@code host:port[,host:port...]}} */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** {@return the partitions of a new unsequenced topic (also of its hold and dead-letter topics)} */
    public int partitions() {
        return partitions;
    }

    /** {@return the replication factor of new topics; empty means the broker's {@code default.replication.factor}} */
    public Optional<Short> replicationFactor() {
        return replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor);
    }

    /** {@return the TLS settings; empty for a plaintext connection} */
    public Optional<KafkaSsl> ssl() {
        return Optional.ofNullable(ssl);
    }

    /** {@return the SASL credentials; empty when the clients do not authenticate} */
    public Optional<KafkaSasl> sasl() {
        return Optional.ofNullable(sasl);
    }

    /** {@return the header whose value becomes the record key of messages of unsequenced topics, if one was chosen} */
    public Optional<String> messageKeyHeader() {
        return Optional.ofNullable(messageKeyHeader);
    }

    /**
     * {@return whether settlements are transactional: each consumer commits its settlements' copies (replies, hold
     * and dead-letter copies) and the offsets they move in one Kafka transaction, and shove reads with {@code
     * isolation.level=read_committed}}
     */
    public boolean transactional() {
        return transactional;
    }

    /** {@return the longest a completed record waits for its offset commit} */
    public Duration commitInterval() {
        return commitInterval;
    }

    /** {@return how many completed records trigger a commit before the interval is up} */
    public int commitBatch() {
        return commitBatch;
    }

    /** {@return how long a consumer losing partitions waits for their in-flight records} */
    public Duration revocationTimeout() {
        return revocationTimeout;
    }

    /** {@return how long a partition may go without committing before a WARN and the stalled gauge} */
    public Duration stallThreshold() {
        return stallThreshold;
    }

    /** {@return the consumer group session timeout} */
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    /** {@return how long one publish, retries included, may take} */
    public Duration deliveryTimeout() {
        return deliveryTimeout;
    }

    /** {@return how long admin operations and the connection check may take} */
    public Duration apiTimeout() {
        return apiTimeout;
    }

    /** {@return how long connecting may take: a bootstrap server's TCP connection and its first answer} */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** {@return the raw client properties given with {@link Builder#clientProperty}} */
    public Map<String, String> clientProperties() {
        return clientProperties;
    }

    /**
     * Broker topic configs for every topic shove creates (main, hold, dead-letter), from {@link Builder#topicConfig}.
     *
     * @return the configs by name, unmodifiable; empty when none was given
     */
    public Map<String, String> topicConfigs() {
        return topicConfigs;
    }

    /**
     * Broker topic configs for the hold topics shove creates, over {@link #topicConfigs()}.
     *
     * @return the configs by name, unmodifiable; empty when none was given
     */
    public Map<String, String> holdTopicConfigs() {
        return holdTopicConfigs;
    }

    /**
     * Broker topic configs for the dead-letter topics shove creates, over {@link #topicConfigs()}.
     *
     * @return the configs by name, unmodifiable; empty when none was given
     */
    public Map<String, String> deadLetterTopicConfigs() {
        return deadLetterTopicConfigs;
    }

    /**
     * The properties common to every client: bootstrap servers, security (derived from {@link #ssl()} and {@link
     * #sasl()}), then the raw client properties.
     */
    Map<String, Object> commonProperties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("bootstrap.servers", bootstrapServers);
        String protocol = ssl != null && sasl != null
                ? "SASL_SSL"
                : ssl != null ? "SSL" : sasl != null ? "SASL_PLAINTEXT" : "PLAINTEXT";
        p.put("security.protocol", protocol);
        int connectMs = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
        p.put("socket.connection.setup.timeout.ms", connectMs);
        p.put("socket.connection.setup.timeout.max.ms", connectMs);
        if (ssl != null) {
            p.putAll(ssl.properties());
        }
        if (sasl != null) {
            p.putAll(sasl.properties());
        }
        p.putAll(clientProperties);
        return p;
    }

    @Override
    public Transport open(TransportContext context) {
        return new KafkaTransport(this, context);
    }

    /** Whether a client property holds a secret, so {@code toString()} must not show it. */
    static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password")
                || k.contains("secret")
                || k.contains("jaas")
                || k.contains("token")
                || k.contains("credential")
                || k.endsWith(".key")
                || k.contains("keystore.key");
    }

    /**
     * {@code text} with every secret of this config (passwords, JAAS configs, client properties that look like
     * secrets) replaced by {@code [redacted]}: for messages built from what kafka-clients reports, which should name no
     * secret but are not ours to promise.
     */
    String redact(String text) {
        List<String> secrets = new ArrayList<>();
        commonProperties().forEach((k, v) -> {
            if (isSecret(k) && v instanceof String value) {
                secrets.add(value);
            }
        });
        if (sasl != null) {
            secrets.add(sasl.password());
        }
        String out = text;
        for (String secret : secrets) {
            if (!secret.isEmpty()) {
                out = out.replace(secret, "[redacted]");
            }
        }
        return out;
    }

    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        clientProperties.forEach((k, v) -> shown.put(k, isSecret(k) ? "[redacted]" : v));
        return "KafkaConfig[bootstrap=" + bootstrapServers + ", partitions=" + partitions + ", replicationFactor="
                + (replicationFactor < 0 ? "broker default" : replicationFactor)
                + (ssl == null ? "" : ", ssl=" + ssl)
                + (sasl == null ? "" : ", sasl=" + sasl)
                + (messageKeyHeader == null ? "" : ", messageKeyHeader=" + messageKeyHeader)
                + ", commitInterval=" + commitInterval + ", commitBatch=" + commitBatch
                + (transactional ? ", transactional" : "")
                + (shown.isEmpty() ? "" : ", clientProperties=" + shown)
                + (topicConfigs.isEmpty() ? "" : ", topicConfigs=" + new TreeMap<>(topicConfigs))
                + (holdTopicConfigs.isEmpty() ? "" : ", holdTopicConfigs=" + new TreeMap<>(holdTopicConfigs))
                + (deadLetterTopicConfigs.isEmpty()
                        ? ""
                        : ", deadLetterTopicConfigs=" + new TreeMap<>(deadLetterTopicConfigs))
                + "]";
    }

    /**
     * Builds a {@link KafkaConfig}. Each setting may be given once; giving it twice fails at once naming the setting.
     * Not thread-safe.
     */
    public static final class Builder {
        private final String bootstrapServers;
        private @Nullable Integer partitions;
        private @Nullable Short replicationFactor;
        private @Nullable KafkaSsl ssl;
        private @Nullable KafkaSasl sasl;
        private final Map<String, String> clientProperties = new LinkedHashMap<>();
        private final Map<String, String> topicConfigs = new LinkedHashMap<>();
        private final Map<String, String> holdTopicConfigs = new LinkedHashMap<>();
        private final Map<String, String> deadLetterTopicConfigs = new LinkedHashMap<>();
        private @Nullable String messageKeyHeader;
        private @Nullable Duration commitInterval;
        private @Nullable Integer commitBatch;
        private @Nullable Duration revocationTimeout;
        private @Nullable Duration stallThreshold;
        private @Nullable Duration sessionTimeout;
        private @Nullable Duration deliveryTimeout;
        private @Nullable Duration apiTimeout;
        private @Nullable Duration connectTimeout;
        private boolean transactional;

        private Builder(String bootstrapServers) {
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            if (bootstrapServers.isBlank()) {
                throw new IllegalArgumentException(
                        "Kafka bootstrap servers must not be blank; give host:port[,host:port...]");
            }
            this.bootstrapServers = bootstrapServers.strip();
        }

        private static void once(@Nullable Object current, String name) {
            if (current != null) {
                throw new IllegalStateException("KafkaConfig " + name + " was already set to " + current);
            }
        }

        /**
         * Partitions of new unsequenced topics, their hold and dead-letter topics.
         *
         * @param partitions at least 1; default 8
         * @return this builder
         * @throws IllegalArgumentException when {@code partitions} is less than 1
         */
        public Builder partitions(int partitions) {
            once(this.partitions, "partitions");
            if (partitions < 1) {
                throw new IllegalArgumentException("Kafka partitions must be at least 1, was " + partitions);
            }
            this.partitions = partitions;
            return this;
        }

        /**
         * The replication factor of new topics (default: the broker's {@code default.replication.factor}).
         *
         * @param replicationFactor 1 to 32767
         * @return this builder
         * @throws IllegalArgumentException when {@code replicationFactor} is out of range
         */
        public Builder replicationFactor(int replicationFactor) {
            once(this.replicationFactor, "replicationFactor");
            if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
                throw new IllegalArgumentException(
                        "Kafka replication factor must be between 1 and 32767, was " + replicationFactor);
            }
            this.replicationFactor = (short) replicationFactor;
            return this;
        }

        /**
         * Connects with TLS.
         *
         * @param ssl the trust store, and the key store for mutual TLS
         * @return this builder
         */
        public Builder ssl(KafkaSsl ssl) {
            once(this.ssl, "ssl");
            this.ssl = Objects.requireNonNull(ssl, "ssl");
            return this;
        }

        /**
         * Authenticates with SASL (PLAIN or SCRAM).
         *
         * @param sasl the mechanism and credentials
         * @return this builder
         */
        public Builder sasl(KafkaSasl sasl) {
            once(this.sasl, "sasl");
            this.sasl = Objects.requireNonNull(sasl, "sasl");
            return this;
        }

        /**
         * Any {@code kafka-clients} property for every client (admin, producer, consumers), e.g. {@code
         * client.rack}, {@code fetch.max.bytes}. Properties shove needs for its guarantees win over these.
         *
         * @param key the property's name
         * @param value its value
         * @return this builder
         * @throws IllegalStateException when {@code key} was already set
         */
        public Builder clientProperty(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (clientProperties.containsKey(key)) {
                throw new IllegalStateException("KafkaConfig client property '" + key + "' was already set");
            }
            clientProperties.put(key, value);
            return this;
        }

        /**
         * A broker topic config ({@code max.message.bytes}, {@code retention.ms}, {@code compression.type}, ...) for
         * every topic shove creates when it declares a topic: main, hold and dead-letter topics. On hold topics,
         * shove's retention derived from the tier wins over a {@code retention.ms} given here; give one with {@link
         * #holdTopicConfig} to replace it. Existing topics are not altered. The broker checks names and values when
         * it creates the topic: a wrong one fails the declaration, naming the topic.
         *
         * @param key the broker's name of the topic config
         * @param value its value, as the broker reads it
         * @return this builder
         * @throws IllegalArgumentException if the key is blank
         * @throws IllegalStateException if the key was given already
         */
        public Builder topicConfig(String key, String value) {
            putTopicConfig(topicConfigs, "topicConfig", key, value);
            return this;
        }

        /**
         * A broker topic config for the hold topics shove creates, over {@link #topicConfig} and shove's retention.
         *
         * @param key the broker's name of the topic config
         * @param value its value, as the broker reads it
         * @return this builder
         * @throws IllegalArgumentException if the key is blank
         * @throws IllegalStateException if the key was given already
         */
        public Builder holdTopicConfig(String key, String value) {
            putTopicConfig(holdTopicConfigs, "holdTopicConfig", key, value);
            return this;
        }

        /**
         * A broker topic config for the dead-letter topics shove creates, over {@link #topicConfig}.
         *
         * @param key the broker's name of the topic config
         * @param value its value, as the broker reads it
         * @return this builder
         * @throws IllegalArgumentException if the key is blank
         * @throws IllegalStateException if the key was given already
         */
        public Builder deadLetterTopicConfig(String key, String value) {
            putTopicConfig(deadLetterTopicConfigs, "deadLetterTopicConfig", key, value);
            return this;
        }

        private static void putTopicConfig(Map<String, String> configs, String setting, String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (key.isBlank()) {
                throw new IllegalArgumentException("KafkaConfig " + setting + " needs a topic config name, was blank");
            }
            if (configs.containsKey(key)) {
                throw new IllegalStateException(
                        "KafkaConfig " + setting + " '" + key + "' was already set to " + configs.get(key));
            }
            configs.put(key, value);
        }

        /**
         * Uses the value of this (user) header as the Kafka record key of messages of unsequenced topics, so that
         * messages with the same value share a partition. Sequenced topics always use their sequence key.
         *
         * @param header the header's name, not blank
         * @return this builder
         * @throws IllegalArgumentException when {@code header} is blank
         */
        public Builder messageKeyHeader(String header) {
            once(this.messageKeyHeader, "messageKeyHeader");
            Objects.requireNonNull(header, "header");
            if (header.isBlank()) {
                throw new IllegalArgumentException("Kafka messageKeyHeader must not be blank");
            }
            this.messageKeyHeader = header;
            return this;
        }

        /**
         * The longest a completed record waits for its offset commit.
         *
         * @param interval positive; default 20 ms
         * @return this builder
         */
        public Builder commitInterval(Duration interval) {
            once(this.commitInterval, "commitInterval");
            this.commitInterval = positive(interval, "commitInterval");
            return this;
        }

        /**
         * Completed records that trigger a commit before the interval is up.
         *
         * @param records at least 1; default 1000
         * @return this builder
         * @throws IllegalArgumentException when {@code records} is less than 1
         */
        public Builder commitBatch(int records) {
            once(this.commitBatch, "commitBatch");
            if (records < 1) {
                throw new IllegalArgumentException("Kafka commitBatch must be at least 1, was " + records);
            }
            this.commitBatch = records;
            return this;
        }

        /**
         * How long a consumer losing partitions waits for their in-flight records.
         *
         * @param timeout positive; default 10 s
         * @return this builder
         */
        public Builder revocationTimeout(Duration timeout) {
            once(this.revocationTimeout, "revocationTimeout");
            this.revocationTimeout = positive(timeout, "revocationTimeout");
            return this;
        }

        /**
         * How long a partition may go without committing before a WARN and the stalled gauge.
         *
         * @param threshold positive; default 60 s
         * @return this builder
         */
        public Builder stallThreshold(Duration threshold) {
            once(this.stallThreshold, "stallThreshold");
            this.stallThreshold = positive(threshold, "stallThreshold");
            return this;
        }

        /**
         * The consumer group session timeout.
         *
         * @param timeout positive; default 10 s
         * @return this builder
         */
        public Builder sessionTimeout(Duration timeout) {
            once(this.sessionTimeout, "sessionTimeout");
            this.sessionTimeout = positive(timeout, "sessionTimeout");
            return this;
        }

        /**
         * How long one publish, retries included, may take.
         *
         * @param timeout positive; default 30 s
         * @return this builder
         */
        public Builder deliveryTimeout(Duration timeout) {
            once(this.deliveryTimeout, "deliveryTimeout");
            this.deliveryTimeout = positive(timeout, "deliveryTimeout");
            return this;
        }

        /**
         * How long admin operations and the connection check may take.
         *
         * @param timeout positive; default 30 s
         * @return this builder
         */
        public Builder apiTimeout(Duration timeout) {
            once(this.apiTimeout, "apiTimeout");
            this.apiTimeout = positive(timeout, "apiTimeout");
            return this;
        }

        /**
         * How long connecting may take: a TCP connection to one of the bootstrap servers, then its first answer.
         * {@code Broker.connect} fails after it when no bootstrap server answers, with one error and without the
         * client's retries (and their log lines) running on.
         *
         * @param timeout positive; default 10 s
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            once(this.connectTimeout, "connectTimeout");
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /**
         * Transactional settlement (exactly-once consume-transform-produce within Kafka): each consumer has its own
         * transactional producer and commits, per coalesced commit ({@code commitInterval} / {@code commitBatch}), one
         * transaction holding the copies of the settlements it commits (replies, hold copies, dead-letter copies) and
         * the offsets they move ({@code sendOffsetsToTransaction}). A crash or an aborted transaction leaves neither
         * the copies (to {@code read_committed} readers) nor the offsets: the records are read again and settled
         * again. Every consumer shove creates (main, hold relay, dead-letter tools) reads with {@code
         * isolation.level=read_committed}. Publishing through {@code broker.publisher()} stays idempotent and
         * non-transactional. A copy waits for its record's offset to be committable, so a slow record holds back the
         * copies of the later records of its partition. Off by default.
         *
         * <p>The transactional id of a consumer is {@code {clientName}-{group}-{consumerId}}: give each instance of a
         * service its own stable {@code Broker.builder().clientName(...)} so that a restarted instance aborts its
         * predecessor's open transactions at once instead of after {@code transaction.timeout.ms} (10 s by default
         * here).
         *
         * @return this builder
         */
        public Builder transactional() {
            if (transactional) {
                throw new IllegalStateException("KafkaConfig transactional was already set");
            }
            this.transactional = true;
            return this;
        }

        private static Duration positive(Duration d, String name) {
            return Bounds.positive("KafkaConfig " + name, d);
        }

        /** {@return the config as set} */
        public KafkaConfig build() {
            return new KafkaConfig(this);
        }
    }
}
