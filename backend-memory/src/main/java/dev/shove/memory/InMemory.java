package dev.shove.memory;

/** The marker type of the in-memory backend: {@code Broker<InMemory>}. Never instantiated. */
public final class InMemory {
    private InMemory() {}
}
