package dev.shove.sqs;

import dev.shove.BrokerConfig;
import dev.shove.spi.Bounds;
import dev.shove.spi.DurationText;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * How to reach SQS and SNS, and how the backend behaves on them. Immutable and thread-safe; {@code toString()} never
 * shows a secret key or session token.
 *
 * <pre>{@code
 * Broker<Sqs> broker = Broker.connect(SqsConfig.of("eu-west-1"));      // credentials from the default chain
 *
 * SqsConfig config = SqsConfig.builder()
 *         .region("eu-west-1")
 *         .namePrefix("staging-")                                      // queue "staging-orders", topic "staging-orders"
 *         .build();
 *
 * SqsConfig local = SqsConfig.emulator("http://127.0.0.1:4566");      // fauxqs, LocalStack, ElasticMQ (SQS only)
 * }</pre>
 *
 * <p>Defaults: the region and the credentials of the AWS SDK's default chains (environment, system properties,
 * profile files, container and instance roles); AWS's own endpoints; no name prefix; SNS topics for publishing and
 * fan-out (see {@link Builder#noSns()}); long polls of {@link #DEFAULT_RECEIVE_WAIT}; a visibility timeout derived
 * from each registration's handler timeout, or {@link #DEFAULT_VISIBILITY_TIMEOUT} when it has none, kept up by a
 * heartbeat while a message is held; a redrive backstop after {@value #DEFAULT_MAX_RECEIVE_COUNT} receives; at most
 * {@value #DEFAULT_MAX_CONNECTIONS} HTTP connections (each running long poll holds one); API calls time out after
 * {@link #DEFAULT_API_CALL_TIMEOUT}; deletes are coalesced into batches of up to 10 for at most {@link
 * #DEFAULT_SETTLE_LINGER}.
 *
 * @since 0.1.0
 */
public final class SqsConfig implements BrokerConfig<Sqs> {
    /** The longest long poll SQS allows, and the default. */
    public static final Duration DEFAULT_RECEIVE_WAIT = Duration.ofSeconds(20);
    /** The visibility timeout of receives for registrations without a handler timeout. */
    public static final Duration DEFAULT_VISIBILITY_TIMEOUT = Duration.ofSeconds(30);
    /** Receives after which SQS moves a message no consumer could settle to the dead-letter queue by itself. */
    public static final int DEFAULT_MAX_RECEIVE_COUNT = 20;
    /** The most HTTP connections of the one client all SQS and SNS calls share. */
    public static final int DEFAULT_MAX_CONNECTIONS = 500;
    /** How long one API call other than a long poll may take, retries included. */
    public static final Duration DEFAULT_API_CALL_TIMEOUT = Duration.ofSeconds(30);
    /** The longest an acknowledgement waits for others to share a {@code DeleteMessageBatch} with. */
    public static final Duration DEFAULT_SETTLE_LINGER = Duration.ofMillis(10);
    /** How long a broadcast subscriber's queue lives on after its subscriber stopped touching it (it died). */
    public static final Duration DEFAULT_BROADCAST_QUEUE_EXPIRY = Duration.ofMinutes(5);

    /** The longest visibility timeout SQS allows: 12 hours. */
    static final Duration MAX_VISIBILITY = Duration.ofHours(12);

    /** The default of {@link Builder#queueRetention}: SQS's longest, 14 days. */
    public static final Duration DEFAULT_QUEUE_RETENTION = Duration.ofDays(14);

    /** SQS's shortest message retention. */
    static final Duration MIN_RETENTION = Duration.ofMinutes(1);
    /** The longest per-message delay SQS allows ({@code DelaySeconds} 900). */
    static final Duration MAX_SQS_DELAY = Duration.ofMinutes(15);

    private static final Pattern REGION = Pattern.compile("[a-z]{2}(-[a-z0-9]+)+");
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_-]{0,40}");

    /** Every setting; mutated only by a {@link Builder}, which hands a copy to each config it builds. */
    private static final class Values implements Cloneable {
        @Nullable
        String region;

        @Nullable
        URI endpoint;

        @Nullable
        URI snsEndpoint;

        @Nullable
        AwsCredentialsProvider credentials;

        String credentialsDescription = "default chain";
        String namePrefix = "";
        boolean sns = true;
        int maxConnections = DEFAULT_MAX_CONNECTIONS;
        Duration receiveWait = DEFAULT_RECEIVE_WAIT;
        Duration visibilityTimeout = DEFAULT_VISIBILITY_TIMEOUT;
        Duration queueRetention = DEFAULT_QUEUE_RETENTION;
        int maxReceiveCount = DEFAULT_MAX_RECEIVE_COUNT;
        Duration apiCallTimeout = DEFAULT_API_CALL_TIMEOUT;
        Duration settleLinger = DEFAULT_SETTLE_LINGER;
        Duration broadcastQueueExpiry = DEFAULT_BROADCAST_QUEUE_EXPIRY;
        Duration maxCopyDelay = MAX_SQS_DELAY;
        Map<String, String> queueUrls = new LinkedHashMap<>();
        Map<String, String> topicArns = new LinkedHashMap<>();

        @Override
        protected Values clone() {
            try {
                Values v = (Values) super.clone();
                v.queueUrls = new LinkedHashMap<>(queueUrls);
                v.topicArns = new LinkedHashMap<>(topicArns);
                return v;
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private final Values v;

    private SqsConfig(Values values) {
        this.v = values;
    }

    /** {@return a config with the region and credentials of the AWS SDK's default chains, every other default} */
    public static SqsConfig ofDefaults() {
        return builder().build();
    }

    /**
     * A region, credentials from the default chain, every other default.
     *
     * @param region an AWS region, e.g. {@code eu-west-1}
     * @return the config
     * @throws IllegalArgumentException when {@code region} does not look like a region
     */
    public static SqsConfig of(String region) {
        return builder().region(region).build();
    }

    /**
     * A local emulator (fauxqs, LocalStack) answering SQS and SNS at {@code endpoint}, e.g. {@code
     * http://127.0.0.1:4566}: region {@code us-east-1} and placeholder credentials, which emulators accept.
     *
     * @param endpoint the emulator's {@code http://} or {@code https://} address
     * @return the config
     * @throws IllegalArgumentException when {@code endpoint} is not an {@code http://} or {@code https://} address
     */
    public static SqsConfig emulator(String endpoint) {
        return builder()
                .region("us-east-1")
                .endpoint(endpoint)
                .credentials("emulator", "emulator")
                .build();
    }

    /** {@return a builder with every default} */
    public static Builder builder() {
        return new Builder(new Values());
    }

    /** {@return a builder starting from this config's settings; changing it leaves this config as it is} */
    public Builder toBuilder() {
        return new Builder(v.clone());
    }

    /** {@return the region set with {@link Builder#region}; empty means the SDK's default region chain} */
    public Optional<String> region() {
        return Optional.ofNullable(v.region);
    }

    /** {@return the SQS endpoint override, if any (it also serves SNS unless an SNS endpoint is set)} */
    public Optional<URI> endpoint() {
        return Optional.ofNullable(v.endpoint);
    }

    /** {@return the SNS endpoint override, if any: the one set for SNS, else the SQS one} */
    public Optional<URI> snsEndpoint() {
        return Optional.ofNullable(v.snsEndpoint != null ? v.snsEndpoint : v.endpoint);
    }

    /** The credentials provider set with the builder; empty means the SDK's default chain. */
    Optional<AwsCredentialsProvider> credentialsProvider() {
        return Optional.ofNullable(v.credentials);
    }

    /** {@return the prefix of every queue and topic name this backend creates or looks up; empty for none} */
    public String namePrefix() {
        return v.namePrefix;
    }

    /**
     * {@return whether topics have SNS topics (publishing goes through them, broadcast works); see {@link
     * Builder#noSns()}}
     */
    public boolean usesSns() {
        return v.sns;
    }

    /** {@return the most HTTP connections all SQS and SNS calls share} */
    public int maxConnections() {
        return v.maxConnections;
    }

    /** {@return how long one receive waits for messages; zero is short polling} */
    public Duration receiveWait() {
        return v.receiveWait;
    }

    /** {@return the visibility timeout of receives for registrations that have no handler timeout} */
    public Duration visibilityTimeout() {
        return v.visibilityTimeout;
    }

    /** {@return how long a topic's queue keeps a message nobody has consumed (its {@code MessageRetentionPeriod})} */
    public Duration queueRetention() {
        return v.queueRetention;
    }

    /** {@return after how many receives SQS moves a message to the dead-letter queue by itself} */
    public int maxReceiveCount() {
        return v.maxReceiveCount;
    }

    /** {@return how long one API call other than a long poll may take, the SDK's retries included} */
    public Duration apiCallTimeout() {
        return v.apiCallTimeout;
    }

    /** {@return the longest an acknowledgement waits for others to share one {@code DeleteMessageBatch}} */
    public Duration settleLinger() {
        return v.settleLinger;
    }

    /** {@return how long the queue of a broadcast subscriber that stopped touching it lives on} */
    public Duration broadcastQueueExpiry() {
        return v.broadcastQueueExpiry;
    }

    /** The longest delay one delayed copy waits in SQS; longer delays are held again on arrival. */
    Duration maxCopyDelay() {
        return v.maxCopyDelay;
    }

    /**
     * {@return the queues created elsewhere: their URLs by shove name (a topic's or a dead-letter queue's name); an
     * unmodifiable copy}
     */
    public Map<String, String> queueUrls() {
        return Map.copyOf(v.queueUrls);
    }

    /** {@return the SNS topics created elsewhere: their ARNs by shove topic name; an unmodifiable copy} */
    public Map<String, String> topicArns() {
        return Map.copyOf(v.topicArns);
    }

    /**
     * Builds an {@link SqsConfig}, starting from every default (or from another config). Each setter checks its value at
     * once, with a message naming the setting. Not thread-safe.
     */
    public static final class Builder {
        private final Values values;

        private Builder(Values values) {
            this.values = values;
        }

        /**
         * The AWS region.
         *
         * @param region e.g. {@code eu-west-1}; default the SDK's default region chain
         * @return this builder
         * @throws IllegalArgumentException when {@code region} does not look like a region (lower-case letters, digits
         *     and {@code -})
         */
        public Builder region(String region) {
            Objects.requireNonNull(region, "region");
            if (!REGION.matcher(region).matches()) {
                throw new IllegalArgumentException(
                        "SQS region must look like 'eu-west-1' (lower-case letters, digits and '-'), was '" + region
                                + "'");
            }
            values.region = region;
            return this;
        }

        /**
         * Sends every SQS call (and SNS call, unless {@link #snsEndpoint} says otherwise) to this endpoint instead of
         * AWS's: an emulator ({@code http://127.0.0.1:4566}) or a VPC endpoint.
         *
         * @param endpoint an {@code http://} or {@code https://} address
         * @return this builder
         * @throws IllegalArgumentException when {@code endpoint} is not an {@code http://} or {@code https://} address
         */
        public Builder endpoint(String endpoint) {
            values.endpoint = uri("endpoint", endpoint);
            return this;
        }

        /**
         * Sends every SNS call to this endpoint.
         *
         * @param endpoint an {@code http://} or {@code https://} address; default {@link #endpoint}'s, else AWS's
         * @return this builder
         * @throws IllegalArgumentException when {@code endpoint} is not an {@code http://} or {@code https://} address
         */
        public Builder snsEndpoint(String endpoint) {
            values.snsEndpoint = uri("snsEndpoint", endpoint);
            return this;
        }

        /**
         * Static credentials: an access key id and its secret key, instead of the default chain.
         *
         * @param accessKeyId the access key id, not blank
         * @param secretAccessKey its secret key, not blank; never shown by {@code toString()}
         * @return this builder
         * @throws IllegalArgumentException when a value is blank
         */
        public Builder credentials(String accessKeyId, String secretAccessKey) {
            requireText("access key id", accessKeyId);
            requireText("secret access key", secretAccessKey);
            values.credentials =
                    StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey));
            values.credentialsDescription = "static";
            return this;
        }

        /**
         * Temporary static credentials: an access key id, its secret key and the session token, instead of the
         * default chain.
         *
         * @param accessKeyId the access key id, not blank
         * @param secretAccessKey its secret key, not blank; never shown by {@code toString()}
         * @param sessionToken the session token, not blank; never shown by {@code toString()}
         * @return this builder
         * @throws IllegalArgumentException when a value is blank
         */
        public Builder credentials(String accessKeyId, String secretAccessKey, String sessionToken) {
            requireText("access key id", accessKeyId);
            requireText("secret access key", secretAccessKey);
            requireText("session token", sessionToken);
            values.credentials = StaticCredentialsProvider.create(
                    AwsSessionCredentials.create(accessKeyId, secretAccessKey, sessionToken));
            values.credentialsDescription = "static session";
            return this;
        }

        /**
         * Credentials from a provider of the AWS SDK (an assumed role, a custom chain), instead of the default chain.
         *
         * @param provider asked for credentials by the SDK's clients; {@code toString()} shows only its class name
         * @return this builder
         */
        public Builder credentialsProvider(AwsCredentialsProvider provider) {
            values.credentials = Objects.requireNonNull(provider, "provider");
            values.credentialsDescription = provider.getClass().getSimpleName();
            return this;
        }

        /**
         * A prefix for every queue and topic name, e.g. {@code staging-}: one account can then hold several
         * environments.
         *
         * @param prefix up to 40 letters, digits, {@code -} and {@code _}; default none
         * @return this builder
         * @throws IllegalArgumentException when {@code prefix} is longer or holds another character
         */
        public Builder namePrefix(String prefix) {
            Objects.requireNonNull(prefix, "prefix");
            if (!PREFIX.matcher(prefix).matches()) {
                throw new IllegalArgumentException(
                        "SQS namePrefix must be at most 40 letters, digits, '-' or '_', was '" + prefix + "'");
            }
            values.namePrefix = prefix;
            return this;
        }

        /**
         * Uses no SNS at all: messages are sent straight to each topic's queue, and broadcast topics are not available.
         * For accounts without SNS permissions; the SNS topic is otherwise where other services subscribe queues of
         * their own.
         *
         * @return this builder
         */
        public Builder noSns() {
            values.sns = false;
            return this;
        }

        /**
         * The most HTTP connections all SQS and SNS calls share (default {@value #DEFAULT_MAX_CONNECTIONS}). Each running
         * long poll holds one for up to {@link #receiveWait}; give at least one per consumer plus room for the rest.
         *
         * @param connections between 1 and 10,000
         * @return this builder
         * @throws IllegalArgumentException when {@code connections} is out of range
         */
        public Builder maxConnections(int connections) {
            if (connections < 1 || connections > 10_000) {
                throw new IllegalArgumentException(
                        "SQS maxConnections must be between 1 and 10000, was " + connections);
            }
            values.maxConnections = connections;
            return this;
        }

        /**
         * How long one receive waits for messages (long polling; default 20 s, SQS's maximum). Zero is short polling,
         * which costs a request per poll whether or not messages wait.
         *
         * @param wait whole seconds, from 0 to 20 s
         * @return this builder
         * @throws IllegalArgumentException when {@code wait} is out of range or not whole seconds
         */
        public Builder receiveWait(Duration wait) {
            values.receiveWait = Bounds.within("SQS receiveWait", wait, true, DEFAULT_RECEIVE_WAIT);
            if (wait.toNanos() % 1_000_000_000L != 0) {
                throw new IllegalArgumentException(
                        "SQS receiveWait must be whole seconds, was " + DurationText.of(wait));
            }
            return this;
        }

        /**
         * How long a topic's queue keeps a message nobody has consumed (SQS {@code MessageRetentionPeriod}; default 14
         * days, SQS's longest, where SQS's own default is 4 days: a longer outage of the consumers would delete the
         * backlog). Set on the queues shove creates and on existing ones when they differ; dead-letter queues always
         * keep 14 days. At least twice the topic's longest hold tier, or declaring the topic is refused.
         *
         * @param retention whole seconds, between 1 min and 14 days
         * @return this builder
         * @throws IllegalArgumentException when {@code retention} is out of range
         */
        public Builder queueRetention(Duration retention) {
            Duration r = Bounds.within("SQS queueRetention", retention, false, DEFAULT_QUEUE_RETENTION);
            if (r.compareTo(MIN_RETENTION) < 0 || r.toMillis() % 1000 != 0) {
                throw new IllegalArgumentException("SQS queueRetention must be whole seconds between 1 min and 14 days,"
                        + " was " + DurationText.of(r));
            }
            values.queueRetention = r;
            return this;
        }

        /**
         * The visibility timeout of receives for registrations that have no handler timeout (default 30 s, between 1 s
         * and 12 h); with a handler timeout it is derived from it. A heartbeat extends it while a message is held.
         *
         * @param timeout at least 1 s, at most 12 h
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is out of range
         */
        public Builder visibilityTimeout(Duration timeout) {
            values.visibilityTimeout = Bounds.within("SQS visibilityTimeout", timeout, false, MAX_VISIBILITY);
            if (timeout.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException(
                        "SQS visibilityTimeout must be at least 1 s and at most 12 h, was " + DurationText.of(timeout));
            }
            return this;
        }

        /**
         * After how many receives SQS moves a message to the dead-letter queue by itself (the redrive policy; default
         * {@value #DEFAULT_MAX_RECEIVE_COUNT}, between 1 and 1000). shove dead-letters rejected and exhausted messages
         * itself, at once; this is the backstop for a message that keeps a consumer from settling it (a crash).
         *
         * @param receives between 1 and 1000
         * @return this builder
         * @throws IllegalArgumentException when {@code receives} is out of range
         */
        public Builder maxReceiveCount(int receives) {
            if (receives < 1 || receives > 1000) {
                throw new IllegalArgumentException("SQS maxReceiveCount must be between 1 and 1000, was " + receives);
            }
            values.maxReceiveCount = receives;
            return this;
        }

        /**
         * How long one API call other than a long poll may take, the SDK's retries included.
         *
         * @param timeout positive, at most 1 day; default 30 s
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is out of range
         */
        public Builder apiCallTimeout(Duration timeout) {
            values.apiCallTimeout = Bounds.positive("SQS apiCallTimeout", timeout);
            return this;
        }

        /**
         * The longest an acknowledgement waits for others to share one {@code DeleteMessageBatch} (default 10 ms;
         * zero sends what is pending at once). Ten pending acknowledgements are sent without waiting.
         *
         * @param linger from zero to 1 s
         * @return this builder
         * @throws IllegalArgumentException when {@code linger} is out of range
         */
        public Builder settleLinger(Duration linger) {
            values.settleLinger = Bounds.within("SQS settleLinger", linger, true, Duration.ofSeconds(1));
            return this;
        }

        /**
         * How long the queue of a broadcast subscriber that stopped touching it (it died without removing it) lives on
         * before another subscriber of the topic deletes it (default 5 min, at least 1 s). Its subscriber touches it
         * every quarter of this.
         *
         * @param expiry at least 1 s, at most 1 day
         * @return this builder
         * @throws IllegalArgumentException when {@code expiry} is out of range
         */
        public Builder broadcastQueueExpiry(Duration expiry) {
            values.broadcastQueueExpiry = Bounds.positive("SQS broadcastQueueExpiry", expiry);
            if (expiry.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException(
                        "SQS broadcastQueueExpiry must be at least 1 s and at most 1 day, was " + expiry);
            }
            return this;
        }

        /**
         * A queue created elsewhere (by Terraform, CloudFormation, an operator): {@code name} is the shove name (a
         * topic's name or its dead-letter queue's), {@code url} its queue URL. shove then checks it when the topic is
         * declared and never creates or changes it. A topic's objects are given all together or not at all.
         *
         * @param name the shove name of the queue, not blank
         * @param url its queue URL, an {@code http://} or {@code https://} address
         * @return this builder
         * @throws IllegalArgumentException when {@code name} is blank or {@code url} is not an address
         */
        public Builder queueUrl(String name, String url) {
            requireText("queue name", name);
            URI parsed = uri("queueUrl", url);
            values.queueUrls.put(name, parsed.toString());
            return this;
        }

        /**
         * An SNS topic created elsewhere; shove then checks it when the topic is declared and never creates or changes
         * it.
         *
         * @param topic the shove topic name, not blank
         * @param arn the SNS topic's ARN ({@code arn:aws:sns:...})
         * @return this builder
         * @throws IllegalArgumentException when {@code topic} is blank or {@code arn} is not an SNS topic ARN
         */
        public Builder topicArn(String topic, String arn) {
            requireText("topic name", topic);
            requireText("topic ARN", arn);
            if (!arn.startsWith("arn:") || !arn.contains(":sns:")) {
                throw new IllegalArgumentException("SQS topicArn for '" + topic
                        + "' must be an SNS topic ARN (arn:aws:sns:...), was '" + arn + "'");
            }
            values.topicArns.put(topic, arn);
            return this;
        }

        /** Test seam: the longest delay of one delayed copy (default SQS's 15 minutes). */
        Builder maxCopyDelay(Duration delay) {
            values.maxCopyDelay = Bounds.within("SQS maxCopyDelay", delay, false, MAX_SQS_DELAY);
            return this;
        }

        /** {@return the config as set; the builder may be changed and built again without affecting it} */
        public SqsConfig build() {

            return new SqsConfig(values.clone());
        }

        private static URI uri(String setting, String text) {
            Objects.requireNonNull(text, setting);
            URI uri;
            try {
                uri = new URI(text.trim());
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException(
                        "SQS " + setting + " '" + text + "' is not a valid URI: " + e.getReason());
            }
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
                throw new IllegalArgumentException("SQS " + setting + " '" + text
                        + "' must be an http:// or https:// address such as http://127.0.0.1:4566");
            }
            return uri;
        }

        private static void requireText(String what, String value) {
            Objects.requireNonNull(value, what);
            if (value.isBlank()) {
                throw new IllegalArgumentException("SQS " + what + " must not be blank");
            }
        }
    }

    @Override
    public Transport open(TransportContext context) {
        return new SqsTransport(this, context);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("SqsConfig[region=").append(v.region == null ? "default chain" : v.region);
        if (v.endpoint != null) {
            b.append(", endpoint=").append(v.endpoint);
        }
        if (v.snsEndpoint != null) {
            b.append(", snsEndpoint=").append(v.snsEndpoint);
        }
        b.append(", credentials=").append(v.credentialsDescription);
        if (!v.namePrefix.isEmpty()) {
            b.append(", namePrefix=").append(v.namePrefix);
        }
        b.append(", sns=").append(v.sns ? "on" : "off");
        b.append(", receiveWait=").append(v.receiveWait);
        b.append(", visibilityTimeout=").append(v.visibilityTimeout);
        if (!v.queueRetention.equals(DEFAULT_QUEUE_RETENTION)) {
            b.append(", queueRetention=").append(v.queueRetention);
        }
        b.append(", maxReceiveCount=").append(v.maxReceiveCount);
        b.append(", maxConnections=").append(v.maxConnections);
        b.append(", apiCallTimeout=").append(v.apiCallTimeout);
        b.append(", settleLinger=").append(v.settleLinger);
        if (!v.queueUrls.isEmpty()) {
            b.append(", queueUrls=").append(v.queueUrls);
        }
        if (!v.topicArns.isEmpty()) {
            b.append(", topicArns=").append(v.topicArns);
        }
        return b.append(']').toString();
    }
}
