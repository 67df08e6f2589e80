package dev.shove.kafka;

/**
 * The marker type of the Kafka backend: {@code Broker<Kafka>}. Never instantiated.
 *
 * @since 0.1.0
 */
public final class Kafka {
    private Kafka() {}
}
