package dev.shove.memory;

import dev.shove.BrokerConfig;
import dev.shove.spi.BrokerConfigProvider;
import dev.shove.spi.UriParameters;
import java.net.URI;
import java.util.Set;

/**
 * Reads {@code memory:} URIs ({@code memory://?capacity=1000&retention=10000}) into an {@link InMemoryConfig}; found
 * by {@link dev.shove.BrokerConfig#fromUri} through {@link java.util.ServiceLoader}.
 *
 * @since 0.1.0
 */
public final class InMemoryConfigProvider implements BrokerConfigProvider {

    /** Called by {@link java.util.ServiceLoader}. */
    public InMemoryConfigProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of("memory");
    }

    @Override
    public BrokerConfig<?> fromUri(URI uri) {
        UriParameters p = UriParameters.ofQuery("in-memory broker URI '" + uri + "'", uri.getRawQuery());
        InMemoryConfig.Builder b = InMemoryConfig.builder();
        Integer capacity = p.integer("capacity");
        if (capacity != null) {
            b.capacity(capacity);
        }
        Integer retention = p.integer("retention");
        if (retention != null) {
            b.retention(retention);
        }
        p.finish();
        return b.build();
    }
}
