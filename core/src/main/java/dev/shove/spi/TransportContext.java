package dev.shove.spi;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * What the broker gives a transport when it opens it.
 *
 * @param meterRegistry where to count backend errors ({@code shove.backend.errors{backend,kind}}); a no-op registry
 *     when the application configured none
 * @param clientName a name for connections and client ids, e.g. {@code shove-12345}
 */
public record TransportContext(MeterRegistry meterRegistry, String clientName) {
    public TransportContext {
        Objects.requireNonNull(meterRegistry, "meterRegistry");
        Objects.requireNonNull(clientName, "clientName");
    }
}
