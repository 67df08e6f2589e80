package dev.shove;

import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;

/**
 * The connection settings of one backend, and the factory of its transport. Each backend ships one, e.g. {@code
 * InMemoryConfig}, {@code KafkaConfig}, {@code RabbitMqConfig}; pass it to {@link Broker#connect(BrokerConfig)}.
 * Implementations are immutable and never show secrets in {@code toString()}.
 *
 * @param <B> the backend's marker type, which ties backend-specific group settings to brokers of that backend
 * @since 0.1.0
 */
public interface BrokerConfig<B> {

    /**
     * Opens a connection to the broker. Called once by {@link Broker#connect}; backend authors implement it, users
     * never call it.
     *
     * @param context meters, client name and header reader of this connection
     * @return the open transport
     * @throws BrokerUnavailableException when the broker cannot be reached
     * @throws AuthenticationException when the broker refuses the credentials or its certificate is not trusted
     */
    Transport open(TransportContext context);

    /**
     * The config a broker URI describes, read by the backend that owns its scheme (its module must be on the class or
     * module path): {@code kafka://kafka-1:9092,kafka-2:9092?partitions=12}, {@code amqp://user:pw@rabbit/vhost?
     * publishChannels=8}, {@code memory:}; each backend's page lists its settings. A setting {@code x} may be given as
     * {@code x_file}, a file holding the value (for secrets).
     *
     * @param uri a broker URI
     * @return the config of the backend that owns the URI's scheme
     * @throws IllegalArgumentException naming what is wrong (an unknown scheme or setting, a value that does not
     *     parse) and what is accepted; never showing a password
     */
    static BrokerConfig<?> fromUri(String uri) {
        return BrokerUris.fromUri(uri);
    }

    /**
     * The config from properties with a prefix: {@code <prefix>uri} names the broker, and {@code <prefix><setting>}
     * entries set (or override) the URI's settings, e.g. {@code shove.uri=kafka://kafka:9092} and {@code
     * shove.commitInterval=50ms} with prefix {@code shove.}.
     *
     * @param properties where to read the settings
     * @param prefix the start of the keys to read, e.g. {@code shove.}
     * @return the config of the backend that owns the URI's scheme
     * @throws IllegalArgumentException when {@code <prefix>uri} is missing, or as {@link #fromUri(String)}
     */
    static BrokerConfig<?> fromProperties(java.util.Properties properties, String prefix) {
        return BrokerUris.fromProperties(properties, prefix);
    }

    /**
     * The config from environment variables with a prefix: {@code <PREFIX>URI} names the broker, and {@code
     * <PREFIX><SETTING>} variables set its settings, upper case with underscores ({@code SHOVE_COMMIT_INTERVAL=50ms}
     * is {@code commitInterval}; {@code __} stands for a dot; {@code <PREFIX><SETTING>_FILE} names a file holding the
     * value).
     *
     * @param prefix the start of the variables to read, e.g. {@code SHOVE_}
     * @return the config of the backend that owns the URI's scheme
     * @throws IllegalArgumentException when {@code <PREFIX>URI} is missing, or as {@link #fromUri(String)}
     */
    static BrokerConfig<?> fromEnvironment(String prefix) {
        return BrokerUris.fromEnvironment(System.getenv(), prefix);
    }
}
