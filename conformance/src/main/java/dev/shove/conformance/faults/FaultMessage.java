package dev.shove.conformance.faults;

/**
 * The message the fault suite publishes: nothing but its unique id, from which {@link Decision#of} derives what the
 * handler does with it.
 *
 * @param id unique within one run of the suite, {@code 0 .. messages-1}
 * @since 0.1.0
 */
public record FaultMessage(long id) {}
