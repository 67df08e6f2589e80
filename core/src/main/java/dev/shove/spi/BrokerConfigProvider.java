package dev.shove.spi;

import dev.shove.BrokerConfig;
import java.net.URI;
import java.util.Set;

/**
 * Turns a broker URI into a backend's {@link BrokerConfig}, so that {@link dev.shove.Broker#connect(String)} can pick
 * the backend by configuration alone. Each backend module provides one, found with {@link java.util.ServiceLoader}
 * (declare it in {@code module-info.java} with {@code provides} and in {@code META-INF/services}).
 *
 * @since 0.1.0
 */
public interface BrokerConfigProvider {

    /**
     * {@return the URI schemes this backend reads, lower case, e.g. {@code kafka}, or {@code amqp} and {@code amqps}}
     */
    Set<String> schemes();

    /**
     * The config a URI describes. Read its settings with {@link UriParameters} ({@link UriParameters#ofQuery}) and end
     * with {@link UriParameters#finish()}, so unknown settings are refused.
     *
     * @param uri a URI with this provider's scheme
     * @return the backend's config
     * @throws IllegalArgumentException naming the part of the URI that is wrong and what is accepted; never showing a
     *     secret
     */
    BrokerConfig<?> fromUri(URI uri);
}
