package dev.shove.kafka;

/** The marker type of the Kafka backend: {@code Broker<Kafka>}. Never instantiated. */
public final class Kafka {
    private Kafka() {}
}
