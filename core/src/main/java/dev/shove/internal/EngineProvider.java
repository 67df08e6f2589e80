package dev.shove.internal;

import dev.shove.spi.Engine;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;

/** The engine's service provider: {@link dev.shove.Broker} finds it with {@link java.util.ServiceLoader}. */
public final class EngineProvider implements Engine.Factory {

    /** Called by {@link java.util.ServiceLoader}. */
    public EngineProvider() {}

    @Override
    public Engine start(Transport transport, TransportContext context) {
        return new BrokerEngine(transport, context);
    }
}
