package dev.shove.kafka;

import dev.shove.BrokerConfig;
import dev.shove.spi.BrokerConfigProvider;
import dev.shove.spi.UriParameters;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code kafka://host:port[,host:port...]?settings} URIs into a {@link KafkaConfig}; found by {@link
 * dev.shove.BrokerConfig#fromUri} through {@link java.util.ServiceLoader}. The settings are the builder's, by name
 * ({@code partitions}, {@code replicationFactor}, {@code commitInterval}, {@code commitBatch}, {@code
 * revocationTimeout}, {@code stallThreshold}, {@code sessionTimeout}, {@code deliveryTimeout}, {@code apiTimeout}, {@code connectTimeout},
 * {@code messageKeyHeader}), {@code transactional=true}, plus {@code ssl=true} (the JVM's trust store) or {@code ssl.truststore} with {@code
 * ssl.truststorePassword}, {@code sasl.mechanism} ({@code PLAIN}, {@code SCRAM-SHA-256}, {@code SCRAM-SHA-512}) with
 * {@code sasl.username} and {@code sasl.password}, {@code client.<kafka-clients property>} for any other client
 * property, and {@code topic.<config>}, {@code holdTopic.<config>}, {@code deadLetterTopic.<config>} for broker topic
 * configs of the topics shove creates.
 *
 * @since 0.1.0
 */
public final class KafkaConfigProvider implements BrokerConfigProvider {

    /** Called by {@link java.util.ServiceLoader}. */
    public KafkaConfigProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of("kafka");
    }

    @Override
    public BrokerConfig<?> fromUri(URI uri) {
        String authority = uri.getRawAuthority();
        String what = "Kafka URI 'kafka://" + (authority == null ? "" : authority) + "'";
        if (authority == null || authority.isBlank()) {
            throw new IllegalArgumentException(what + " names no broker; expected kafka://host:port[,host:port...]");
        }
        UriParameters p = UriParameters.ofQuery(what, uri.getRawQuery());
        KafkaConfig.Builder b = KafkaConfig.builder(authority);
        set(p.integer("partitions"), b::partitions);
        set(p.integer("replicationFactor"), b::replicationFactor);
        set(p.duration("commitInterval"), b::commitInterval);
        set(p.integer("commitBatch"), b::commitBatch);
        set(p.duration("revocationTimeout"), b::revocationTimeout);
        set(p.duration("stallThreshold"), b::stallThreshold);
        set(p.duration("sessionTimeout"), b::sessionTimeout);
        set(p.duration("deliveryTimeout"), b::deliveryTimeout);
        set(p.duration("apiTimeout"), b::apiTimeout);
        set(p.duration("connectTimeout"), b::connectTimeout);
        set(p.string("messageKeyHeader"), b::messageKeyHeader);
        if (Boolean.TRUE.equals(p.bool("transactional"))) {
            b.transactional();
        }
        String truststore = p.string("ssl.truststore");
        String truststorePassword = p.string("ssl.truststorePassword");
        Boolean ssl = p.bool("ssl");
        if (truststorePassword != null && truststore == null) {
            throw new IllegalArgumentException(what + ": ssl.truststorePassword is given without ssl.truststore");
        }
        if (truststore != null) {
            b.ssl(KafkaSsl.ofTruststore(Path.of(truststore), truststorePassword == null ? "" : truststorePassword));
        } else if (Boolean.TRUE.equals(ssl)) {
            b.ssl(KafkaSsl.ofSystemTruststore());
        }
        String mechanism = p.string("sasl.mechanism");
        String username = p.string("sasl.username");
        String password = p.string("sasl.password");
        if (mechanism == null && (username != null || password != null)) {
            throw new IllegalArgumentException(what + ": sasl.username and sasl.password need sasl.mechanism"
                    + " (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)");
        }
        if (mechanism != null) {
            if (username == null || password == null) {
                throw new IllegalArgumentException(
                        what + ": sasl.mechanism needs sasl.username and sasl.password (or sasl.password_file)");
            }
            b.sasl(
                    switch (mechanism.toUpperCase(Locale.ROOT)) {
                        case "PLAIN" -> KafkaSasl.plain(username, password);
                        case "SCRAM-SHA-256" -> KafkaSasl.scramSha256(username, password);
                        case "SCRAM-SHA-512" -> KafkaSasl.scramSha512(username, password);
                        default ->
                            throw p.invalid("sasl.mechanism", mechanism, "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512");
                    });
        }
        for (Map.Entry<String, String> e : p.withPrefix("client.").entrySet()) {
            b.clientProperty(e.getKey(), e.getValue());
        }
        p.withPrefix("topic.").forEach(b::topicConfig);
        p.withPrefix("holdTopic.").forEach(b::holdTopicConfig);
        p.withPrefix("deadLetterTopic.").forEach(b::deadLetterTopicConfig);
        p.finish();
        return b.build();
    }

    private static <T> void set(@Nullable T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }
}
