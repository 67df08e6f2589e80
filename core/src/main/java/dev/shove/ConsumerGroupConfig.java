package dev.shove;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link ConsumerGroup} consumes one topic: how many consumers (min..max), the {@link ConsumerOptions} they run
 * with, and the group-wide settings (the autoscaler, the group's name, the dead-letter consumer). The same on every
 * backend. Immutable and thread-safe; build one with {@link #builder()}, or take {@link #ofDefaults()} or {@link
 * #of(int, int)}.
 *
 * <pre>{@code
 * group.register(ORDERS, ConsumerGroupConfig.builder()
 *         .consumers(1, 4)                                  // min..max, scaled by the autoscaler
 *         .handlerTimeout(Duration.ofSeconds(60))
 *         .handlerTimeoutOutcome(Outcome.defer())
 *         .build(), OrderHandler::new);
 * }</pre>
 *
 * <p>Defaults: exactly one consumer; the consumer defaults of {@link ConsumerOptions}; the autoscaler runs with {@link
 * AutoscalerConfig#ofDefaults()} whenever {@code max > min}; the group is named after the topic; when the topic has a
 * DLQ, {@link MessageHandler#handleDead} runs once as each message dies and the dead letter stays in the queue
 * ({@link DeadLetterHandling#KEEP}).
 *
 * @since 0.1.0
 */
public final class ConsumerGroupConfig {
    /** The most consumers one registration may run. */
    public static final int MAX_CONSUMERS = 1_000;

    private static final ConsumerGroupConfig DEFAULTS = builder().build();

    private final int minConsumers;
    private final int maxConsumers;
    private final ConsumerOptions options;
    private final @Nullable AutoscalerConfig autoscaler;
    private final boolean autoscalerDisabled;
    private final @Nullable String groupName;
    private final DeadLetterHandling deadLetters;
    private final @Nullable BackendGroupSettings backendSettings;

    private ConsumerGroupConfig(Builder b) {
        this.minConsumers = b.minConsumers;
        this.maxConsumers = b.maxConsumers;
        this.options = b.options();
        this.autoscaler = b.autoscaler;
        this.autoscalerDisabled = b.autoscalerDisabled;
        this.groupName = b.groupName;
        this.deadLetters = b.deadLetters;
        this.backendSettings = b.backendSettings;
    }

    /** {@return the defaults: one consumer, default {@link ConsumerOptions}, no autoscaler} */
    public static ConsumerGroupConfig ofDefaults() {
        return DEFAULTS;
    }

    /**
     * Between {@code min} and {@code max} consumers, every other default.
     *
     * @param min the fewest consumers, 0 to {@code max}
     * @param max the most consumers, 1 to {@value #MAX_CONSUMERS}
     * @return the config
     * @throws IllegalArgumentException when the bounds are out of range
     */
    public static ConsumerGroupConfig of(int min, int max) {
        return builder().consumers(min, max).build();
    }

    /** {@return a new builder starting from the defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a new builder starting from this config} */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.from(options);
        b.minConsumers = minConsumers;
        b.maxConsumers = maxConsumers;
        b.autoscaler = autoscaler;
        b.autoscalerDisabled = autoscalerDisabled;
        b.groupName = groupName;
        b.deadLetters = deadLetters;
        b.backendSettings = backendSettings;
        return b;
    }

    /**
     * {@return the fewest consumers the registration runs (0 allowed: then only the autoscaler or scaleUp starts one)}
     */
    public int minConsumers() {
        return minConsumers;
    }

    /** {@return the most consumers the registration runs} */
    public int maxConsumers() {
        return maxConsumers;
    }

    /** {@return the settings every consumer of the registration runs with} */
    public ConsumerOptions options() {
        return options;
    }

    /** {@return the autoscaler settings, or empty when the group does not scale by itself} */
    public Optional<AutoscalerConfig> autoscaler() {
        if (autoscalerDisabled || maxConsumers <= minConsumers) {
            return Optional.empty();
        }
        return Optional.of(autoscaler != null ? autoscaler : AutoscalerConfig.ofDefaults());
    }

    /** {@return the group's name, if one was set; the topic's name otherwise} */
    public Optional<String> groupName() {
        return Optional.ofNullable(groupName);
    }

    /**
     * {@return the name of the group that consumes {@code topic} with this config} The {@link #groupName()} if one
     * was set, the topic's name otherwise.
     *
     * @param topic the topic registered with this config
     */
    public String groupNameFor(Topic<?> topic) {
        return groupName != null ? groupName : topic.name();
    }

    /**
     * {@return whether the group calls {@code handleDead} for the topic's dead letters} True unless the mode is {@link
     * DeadLetterHandling#NONE}.
     */
    public boolean deadLetterConsumer() {
        return deadLetters != DeadLetterHandling.NONE;
    }

    /** {@return what the group does with the topic's dead letters} */
    public DeadLetterHandling deadLetters() {
        return deadLetters;
    }

    /** {@return the group's settings of one backend's own, if any were added} */
    public Optional<BackendGroupSettings> backendSettings() {
        return Optional.ofNullable(backendSettings);
    }

    @Override
    public String toString() {
        return "ConsumerGroupConfig[consumers=" + minConsumers + ".." + maxConsumers + ", autoscaler="
                + autoscaler().map(Object::toString).orElse("off") + (groupName != null ? ", group=" + groupName : "")
                + (deadLetters == DeadLetterHandling.KEEP ? "" : ", dead letters " + deadLetters)
                + (backendSettings != null ? ", " + backendSettings : "") + ", " + options + "]";
    }

    /**
     * Builds a {@link ConsumerGroupConfig}: the group settings below, and every consumer setting of {@link
     * ConsumerOptions.Builder}. Starts from the defaults. Not thread-safe.
     */
    public static final class Builder extends ConsumerOptions.Settings<Builder> {
        private int minConsumers = 1;
        private int maxConsumers = 1;
        private @Nullable AutoscalerConfig autoscaler;
        private boolean autoscalerDisabled;
        private @Nullable String groupName;
        private DeadLetterHandling deadLetters = DeadLetterHandling.KEEP;
        private @Nullable BackendGroupSettings backendSettings;

        private Builder() {}

        /**
         * Between {@code min} and {@code max} consumers: {@code 0 <= min <= max}, {@code 1 <= max <=} {@value
         * #MAX_CONSUMERS}. The registration starts {@code min}; the autoscaler (or {@link ConsumerGroup#scaleUp})
         * adds up to {@code max}.
         *
         * @param min the fewest consumers
         * @param max the most consumers
         * @return this builder
         * @throws IllegalArgumentException when the bounds are out of range
         */
        public Builder consumers(int min, int max) {
            ConsumerOptions.Settings.inRange("max consumers", max, 1, MAX_CONSUMERS);
            if (min < 0 || min > max) {
                throw new IllegalArgumentException(
                        "min consumers must be between 0 and max consumers (%d), was %d".formatted(max, min));
            }
            this.minConsumers = min;
            this.maxConsumers = max;
            return this;
        }

        /**
         * Exactly {@code count} consumers: {@code consumers(count, count)}.
         *
         * @param count 1 to {@value #MAX_CONSUMERS}
         * @return this builder
         * @throws IllegalArgumentException when {@code count} is out of range
         */
        public Builder consumers(int count) {
            return consumers(count, count);
        }

        /**
         * Takes every consumer setting (prefetch, retries, timeouts, ...) from {@code options}.
         *
         * @param options replaces every consumer setting made so far
         * @return this builder
         */
        public Builder options(ConsumerOptions options) {
            from(Objects.requireNonNull(options, "options"));
            return this;
        }

        /**
         * Scale with these settings (whenever {@code max > min}).
         *
         * @param config how the autoscaler decides
         * @return this builder
         */
        public Builder autoscaler(AutoscalerConfig config) {
            this.autoscaler = Objects.requireNonNull(config, "config");
            this.autoscalerDisabled = false;
            return this;
        }

        /**
         * Never scale by itself; {@link ConsumerGroup#scaleUp} and {@link ConsumerGroup#scaleDown} still work.
         *
         * @return this builder
         */
        public Builder noAutoscaler() {
            this.autoscaler = null;
            this.autoscalerDisabled = true;
            return this;
        }

        /**
         * Names the group: consumers with the same group name share the topic's messages, across processes. Defaults
         * to the topic's name. Also the {@code consumer_group} metric tag.
         *
         * @param name not blank
         * @return this builder
         * @throws IllegalArgumentException when {@code name} is blank
         */
        public Builder groupName(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("group name must not be blank");
            }
            this.groupName = name;
            return this;
        }

        /**
         * Sets what the group does with the topic's dead letters; {@link DeadLetterHandling#KEEP} by default.
         *
         * @param handling keep them after {@code handleDead}, remove them after {@code handleDead}, or neither call
         *     {@code handleDead} nor touch them
         * @return this builder
         */
        public Builder deadLetters(DeadLetterHandling handling) {
            this.deadLetters = Objects.requireNonNull(handling, "handling");
            return this;
        }

        /**
         * A consumer of the topic's dead-letter queue calls {@code handleDead} on every dead letter in it and removes
         * it: {@code deadLetters(DeadLetterHandling.REMOVE)}.
         *
         * @return this builder
         */
        public Builder handleAndRemoveDeadLetters() {
            return deadLetters(DeadLetterHandling.REMOVE);
        }

        /**
         * Leaves the topic's dead-letter queue alone and never calls {@code handleDead}: a person, a script or
         * another service handles the dead letters. {@code deadLetters(DeadLetterHandling.NONE)}.
         *
         * @return this builder
         */
        public Builder noDeadLetterConsumer() {
            return deadLetters(DeadLetterHandling.NONE);
        }

        /**
         * Adds settings only one backend has (e.g. {@code KafkaGroupSettings}); registering the config on a broker of
         * another backend fails.
         *
         * @param settings the backend's own group settings
         * @return this builder
         */
        public Builder backendSettings(BackendGroupSettings settings) {
            this.backendSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** {@return the config as set} */
        public ConsumerGroupConfig build() {
            return new ConsumerGroupConfig(this);
        }
    }
}
