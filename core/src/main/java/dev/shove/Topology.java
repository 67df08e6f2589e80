package dev.shove;

/**
 * Declares topics on the broker: their main queue (or shards), hold tiers and dead-letter queue. Obtained from
 * {@link Broker#topology()}; thread-safe. Declaring is idempotent, so declare on every start. Registering a topic on a
 * consumer group declares it too.
 *
 * @since 0.1.0
 */
public interface Topology {

    /**
     * Creates the topic's broker objects that do not exist yet.
     *
     * @param topic the topic to declare
     * @throws TopologyException when an existing object conflicts with the declaration (the message says which and
     *     what differs)
     */
    void declare(Topic<?> topic);

    /**
     * Declares each topic in order, stopping at the first failure.
     *
     * @param topics the topics to declare
     * @throws TopologyException for the first topic that cannot be declared
     */
    default void declareAll(Topic<?>... topics) {
        for (Topic<?> topic : topics) {
            declare(topic);
        }
    }
}
