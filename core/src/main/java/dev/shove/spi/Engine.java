package dev.shove.spi;

import dev.shove.ConsumerGroup;
import dev.shove.ConsumerSupervisor;
import dev.shove.DeadLetterQueue;
import dev.shove.NoContext;
import dev.shove.Publisher;
import dev.shove.Topic;

/**
 * The delivery engine behind a {@link dev.shove.Broker}: what turns one open {@link Transport} into a publisher,
 * consumer groups and supervisors. shove-core provides the only implementation and {@code Broker} finds it with
 * {@link java.util.ServiceLoader}, so that the API never imports the engine; neither applications nor backends
 * implement or call it.
 *
 * @since 0.1.0
 */
public interface Engine extends AutoCloseable {

    /**
     * Declares a topic's broker objects through the transport, first refusing a topic whose objects (as {@link
     * Transport#objectNames(Topic)} names them) another topic declared on this connection owns.
     *
     * @param topic the topic to declare
     * @throws dev.shove.TopologyException when a name is taken or the transport cannot declare the topic
     */
    void declare(Topic<?> topic);

    /** {@return the publisher; the same instance every time} */
    Publisher publisher();

    /**
     * {@return a new consumer group with no context}
     *
     * @param <B> the backend marker of the broker it belongs to
     */
    <B> ConsumerGroup<B, NoContext> consumerGroup();

    /**
     * {@return a new supervisor with no context}
     *
     * @param <B> the backend marker of the broker it belongs to
     */
    <B> ConsumerSupervisor<B, NoContext> consumerSupervisor();

    /**
     * {@return the dead-letter queue of {@code topic} as consumer group {@code group} sees it}
     *
     * @param topic a topic with a dead-letter queue
     * @param group the consumer group's name
     * @param <T> the message type
     * @throws IllegalArgumentException when the topic has no dead-letter queue
     */
    <T> DeadLetterQueue<T> deadLetters(Topic<T> topic, String group);

    /** Stops every group and supervisor made by this engine (draining), then its own threads; not the transport. */
    @Override
    void close();

    /** Starts an engine over a transport; the service {@code Broker} loads. */
    interface Factory {
        /**
         * Starts an engine that drives {@code transport}.
         *
         * @param transport the open transport; the engine never closes it
         * @param context the context the transport was opened with
         * @return the running engine
         */
        Engine start(Transport transport, TransportContext context);
    }
}
