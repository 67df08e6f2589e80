package dev.shove.nats;

/** The marker type of the NATS JetStream backend: {@code Broker<Nats>}. Never instantiated. */
public final class Nats {
    private Nats() {}
}
