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
 */
public interface Engine extends AutoCloseable {

    /** The publisher; the same instance every time. */
    Publisher publisher();

    /** A new consumer group with no context. */
    <B> ConsumerGroup<B, NoContext> consumerGroup();

    /** A new supervisor with no context. */
    <B> ConsumerSupervisor<B, NoContext> consumerSupervisor();

    /** The dead-letter queue of {@code topic} as consumer group {@code group} sees it. */
    <T> DeadLetterQueue<T> deadLetters(Topic<T> topic, String group);

    /** Stops every group and supervisor made by this engine (draining), then its own threads; not the transport. */
    @Override
    void close();

    /** Starts an engine over a transport; the service {@code Broker} loads. */
    interface Factory {
        Engine start(Transport transport, TransportContext context);
    }
}
