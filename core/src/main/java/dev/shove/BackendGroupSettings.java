package dev.shove;

/**
 * Consumer-group settings that only one backend has, added to a {@link ConsumerGroupConfig} with {@link
 * ConsumerGroupConfig.Builder#backendSettings}. A backend that has such settings ships one immutable implementation
 * (for example {@code KafkaGroupSettings}); registering them on a broker of another backend fails at once, naming
 * both backends.
 *
 * @since 0.1.0
 */
public interface BackendGroupSettings {

    /**
     * {@return the backend these settings belong to, as {@link Broker#backendName()} reports it, e.g. {@code kafka}}
     */
    String backend();
}
