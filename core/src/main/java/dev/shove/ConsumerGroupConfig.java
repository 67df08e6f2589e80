package dev.shove;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How one topic is consumed by a {@link ConsumerGroup}: the backend's group settings plus group-wide ones (the
 * autoscaler, the group's name, the dead-letter consumer). Immutable.
 *
 * <pre>{@code
 * ConsumerGroupConfig.of(KafkaConsumerGroupConfig.of(1, 4).withHandlerTimeout(Duration.ofSeconds(60)))
 *         .withAutoscaler(AutoscalerConfig.custom().pollInterval(Duration.ofSeconds(2)).build());
 * }</pre>
 *
 * <p>Defaults: the autoscaler runs with {@link AutoscalerConfig#ofDefaults()} when {@code max > min}; the group is
 * named after the topic; a dead-letter consumer calls {@link MessageHandler#handleDead} when the topic has a DLQ.
 *
 * @param <B> the backend marker
 */
public final class ConsumerGroupConfig<B> {
    private final GroupConfig<B, ?> backend;
    private final @Nullable AutoscalerConfig autoscaler;
    private final boolean autoscalerDisabled;
    private final @Nullable String groupName;
    private final boolean deadLetterConsumer;

    private ConsumerGroupConfig(
            GroupConfig<B, ?> backend,
            @Nullable AutoscalerConfig autoscaler,
            boolean autoscalerDisabled,
            @Nullable String groupName,
            boolean deadLetterConsumer) {
        this.backend = backend;
        this.autoscaler = autoscaler;
        this.autoscalerDisabled = autoscalerDisabled;
        this.groupName = groupName;
        this.deadLetterConsumer = deadLetterConsumer;
    }

    /** Group settings around the backend's own. */
    public static <B> ConsumerGroupConfig<B> of(GroupConfig<B, ?> backend) {
        return new ConsumerGroupConfig<>(Objects.requireNonNull(backend, "backend"), null, false, null, true);
    }

    public GroupConfig<B, ?> backend() {
        return backend;
    }

    /** Scale with these settings (whenever {@code max > min}). */
    public ConsumerGroupConfig<B> withAutoscaler(AutoscalerConfig config) {
        return new ConsumerGroupConfig<>(
                backend, Objects.requireNonNull(config, "config"), false, groupName, deadLetterConsumer);
    }

    /** Never scale by itself; {@link ConsumerGroup#scaleUp} and {@link ConsumerGroup#scaleDown} still work. */
    public ConsumerGroupConfig<B> withoutAutoscaler() {
        return new ConsumerGroupConfig<>(backend, null, true, groupName, deadLetterConsumer);
    }

    /**
     * Names the group: consumers with the same group name share the topic's messages, across processes. Defaults to
     * the topic's name. Also the {@code consumer_group} metric tag.
     */
    public ConsumerGroupConfig<B> withGroupName(String name) {
        return new ConsumerGroupConfig<>(
                backend, autoscaler, autoscalerDisabled, Objects.requireNonNull(name, "name"), deadLetterConsumer);
    }

    /** Do not consume the topic's dead-letter queue in this group (another service does it). */
    public ConsumerGroupConfig<B> withoutDeadLetterConsumer() {
        return new ConsumerGroupConfig<>(backend, autoscaler, autoscalerDisabled, groupName, false);
    }

    /** The autoscaler settings, or empty when the group does not scale by itself. */
    public Optional<AutoscalerConfig> autoscaler() {
        if (autoscalerDisabled || backend.maxConsumers() <= backend.minConsumers()) {
            return Optional.empty();
        }
        return Optional.of(autoscaler != null ? autoscaler : AutoscalerConfig.ofDefaults());
    }

    public Optional<String> groupName() {
        return Optional.ofNullable(groupName);
    }

    public boolean deadLetterConsumer() {
        return deadLetterConsumer;
    }

    @Override
    public String toString() {
        return "ConsumerGroupConfig[" + backend + ", autoscaler="
                + autoscaler().map(Object::toString).orElse("off") + (groupName != null ? ", group=" + groupName : "")
                + "]";
    }
}
