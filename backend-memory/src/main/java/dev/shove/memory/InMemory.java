package dev.shove.memory;

/**
 * The marker type of the in-memory backend: {@code Broker<InMemory>}. Never instantiated.
 *
 * @since 0.1.0
 */
public final class InMemory {
    private InMemory() {}
}
