package dev.shove.internal;

import dev.shove.ConsumerGroup;
import dev.shove.ConsumerSupervisor;
import dev.shove.DeadLetterQueue;
import dev.shove.NoContext;
import dev.shove.Publisher;
import dev.shove.Topic;
import dev.shove.spi.Engine;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The engine of one broker: its shared services, its publisher, and the runtimes of its groups and supervisors. */
final class BrokerEngine implements Engine {
    private static final Logger log = LoggerFactory.getLogger(BrokerEngine.class);

    private final BrokerServices services;
    private final Publisher publisher;
    private final Set<ConsumerRuntime<?>> runtimes = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    BrokerEngine(Transport transport, TransportContext context) {
        Metrics metrics = new Metrics(context.meterRegistry());
        this.services = new BrokerServices(transport, metrics, context);
        this.publisher = new PublisherImpl(transport, metrics);
    }

    @Override
    public void declare(Topic<?> topic) {
        if (closed) {
            throw new IllegalStateException("broker (" + services.transport().name() + ") is closed");
        }
        services.declare(topic);
    }

    @Override
    public Publisher publisher() {
        return publisher;
    }

    @Override
    public <B> ConsumerGroup<B, NoContext> consumerGroup() {
        return new ConsumerGroupImpl<>(newRuntime(NoContext.INSTANCE), this::newRuntime);
    }

    @Override
    public <B> ConsumerSupervisor<B, NoContext> consumerSupervisor() {
        return new ConsumerSupervisorImpl<>(newRuntime(NoContext.INSTANCE), this::newRuntime);
    }

    @Override
    public <T> DeadLetterQueue<T> deadLetters(Topic<T> topic, String group) {
        if (closed) {
            throw new IllegalStateException("broker (" + services.transport().name() + ") is closed");
        }
        return new DeadLetterQueueImpl<>(topic, group, services.transport(), services.wireHeaders());
    }

    private <C> ConsumerRuntime<C> newRuntime(C context) {
        if (closed) {
            throw new IllegalStateException("broker (" + services.transport().name() + ") is closed");
        }
        ConsumerRuntime<C> runtime = new ConsumerRuntime<>(services, context, runtimes::remove);
        runtimes.add(runtime);
        return runtime;
    }

    @Override
    public void close() {
        closed = true;
        for (ConsumerRuntime<?> runtime : new ArrayList<>(runtimes)) {
            try {
                runtime.close();
            } catch (RuntimeException e) {
                log.warn("stopping a consumer group while closing the broker failed", e);
            }
        }
        services.close();
    }
}
