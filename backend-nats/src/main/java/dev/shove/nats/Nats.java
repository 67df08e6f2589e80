package dev.shove.nats;

/**
 * The marker type of the NATS JetStream backend: {@code Broker<Nats>}. Never instantiated.
 *
 * @since 0.1.0
 */
public final class Nats {
    private Nats() {}
}
