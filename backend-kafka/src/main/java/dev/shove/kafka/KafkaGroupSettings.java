package dev.shove.kafka;

import dev.shove.BackendGroupSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Settings of one consumer group that only Kafka has: {@code kafka-clients} consumer properties for this group's
 * consumers alone (for example {@code max.poll.records}, {@code fetch.min.bytes}, {@code max.poll.interval.ms}),
 * applied over {@link KafkaConfig.Builder#clientProperty} and under the properties shove needs for its guarantees.
 * Immutable and thread-safe; {@code toString()} never shows a secret.
 *
 * <pre>{@code
 * group.register(ORDERS, ConsumerGroupConfig.builder()
 *         .consumers(1, 4)
 *         .backendSettings(KafkaGroupSettings.builder().consumerProperty("fetch.min.bytes", "65536").build())
 *         .build(), OrderHandler::new);
 * }</pre>
 *
 * @since 0.1.0
 */
public final class KafkaGroupSettings implements BackendGroupSettings {
    /** Properties shove sets on every consumer itself; a group cannot override them. */
    static final Set<String> OWNED = Set.of(
            "group.id",
            "client.id",
            "group.instance.id",
            "enable.auto.commit",
            "allow.auto.create.topics",
            "key.deserializer",
            "value.deserializer",
            "bootstrap.servers");

    private final Map<String, String> consumerProperties;

    private KafkaGroupSettings(Map<String, String> consumerProperties) {
        this.consumerProperties = Map.copyOf(consumerProperties);
    }

    /** {@return a builder with no properties} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the consumer properties of this group} */
    public Map<String, String> consumerProperties() {
        return consumerProperties;
    }

    @Override
    public String backend() {
        return "kafka";
    }

    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        consumerProperties.forEach((k, v) -> shown.put(k, KafkaConfig.isSecret(k) ? "****" : v));
        return "KafkaGroupSettings" + shown;
    }

    /** Builds {@link KafkaGroupSettings}. Not thread-safe. */
    public static final class Builder {
        private final Map<String, String> consumerProperties = new LinkedHashMap<>();

        private Builder() {}

        /**
         * A {@code kafka-clients} consumer property for this group's consumers. Refuses the properties shove sets
         * itself ({@code group.id}, {@code client.id}, {@code group.instance.id}, {@code enable.auto.commit}, the
         * deserializers, ...): name the group with {@code ConsumerGroupConfig.Builder.groupName} instead.
         *
         * @param key the property's name
         * @param value its value
         * @return this builder
         * @throws IllegalArgumentException when shove sets {@code key} itself
         */
        public Builder consumerProperty(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (OWNED.contains(key)) {
                throw new IllegalArgumentException("Kafka consumer property '" + key
                        + "' is set by shove for every consumer and cannot be given per group (shove owns "
                        + String.join(", ", new java.util.TreeSet<>(OWNED)) + ")");
            }
            consumerProperties.put(key, value);
            return this;
        }

        /** {@return the settings as set} */
        public KafkaGroupSettings build() {
            return new KafkaGroupSettings(consumerProperties);
        }
    }
}
