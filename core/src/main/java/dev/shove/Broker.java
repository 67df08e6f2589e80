package dev.shove;

import dev.shove.internal.BrokerServices;
import dev.shove.internal.ConsumerGroupImpl;
import dev.shove.internal.ConsumerRuntime;
import dev.shove.internal.ConsumerSupervisorImpl;
import dev.shove.internal.Metrics;
import dev.shove.internal.PublisherImpl;
import dev.shove.spi.Capabilities;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry point: one connection to one broker, from which come the {@link #topology() topology declarer}, the
 * {@link #publisher() publisher}, {@link #consumerGroup() consumer groups} and {@link #consumerSupervisor()
 * supervisors}. Swapping brokers changes only the config passed to {@link #connect}.
 *
 * <pre>{@code
 * try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
 *     broker.topology().declare(ORDERS);
 *     broker.publisher().publish(ORDERS, new OrderPaid("o-1", 1299));
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} stops every group and supervisor made from this broker (draining up to 30 s), then
 * closes the connection; it is idempotent.
 *
 * @param <B> the backend marker, e.g. {@code InMemory}, {@code Kafka}, {@code RabbitMq}
 */
public final class Broker<B> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    /** How long {@link #ping()} waits for the broker. */
    public static final Duration DEFAULT_PING_TIMEOUT = Duration.ofSeconds(5);

    private final Transport transport;
    private final BrokerServices services;
    private final Publisher publisher;
    private final Set<ConsumerRuntime<?>> runtimes = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private Broker(Transport transport, MeterRegistry registry, String clientName) {
        this.transport = transport;
        Metrics metrics = new Metrics(registry);
        this.services = new BrokerServices(transport, metrics, clientName);
        this.publisher = new PublisherImpl(transport, metrics);
    }

    /**
     * Connects to the broker described by {@code config}, without metrics.
     *
     * @throws BrokerUnavailableException when the broker cannot be reached
     */
    public static <B> Broker<B> connect(BrokerConfig<B> config) {
        return custom(config).connect();
    }

    /** Starts a connection with options: {@code Broker.custom(config).meterRegistry(registry).connect()}. */
    public static <B> Options<B> custom(BrokerConfig<B> config) {
        return new Options<>(Objects.requireNonNull(config, "config"));
    }

    /** Declares topics. */
    public Topology topology() {
        checkOpen();
        return transport::declare;
    }

    /** Publishes messages; the same instance every time. */
    public Publisher publisher() {
        checkOpen();
        return publisher;
    }

    /** A new consumer group with no context; call {@link ConsumerGroup#withContext} to give it one. */
    public ConsumerGroup<B, NoContext> consumerGroup() {
        checkOpen();
        return new ConsumerGroupImpl<>(newRuntime(NoContext.INSTANCE), this::newRuntime);
    }

    /** A new supervisor (one consumer per topic) with no context. */
    public ConsumerSupervisor<B, NoContext> consumerSupervisor() {
        checkOpen();
        return new ConsumerSupervisorImpl<>(newRuntime(NoContext.INSTANCE), this::newRuntime);
    }

    /** What the backend can do (exact delays, delivery counts, ...). */
    public Capabilities capabilities() {
        return transport.capabilities();
    }

    /** One real round trip to the broker within {@link #DEFAULT_PING_TIMEOUT}; throws when it fails. */
    public void ping() {
        ping(DEFAULT_PING_TIMEOUT);
    }

    /**
     * One real round trip to the broker within {@code timeout}.
     *
     * @throws BrokerUnavailableException when the broker does not answer in time
     */
    public void ping(Duration timeout) {
        checkOpen();
        transport.ping(Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * The underlying transport as {@code type}, for backend-specific tools (such as the in-memory backend's test
     * probe); empty when it is of another type.
     */
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(transport) ? Optional.of(type.cast(transport)) : Optional.empty();
    }

    /** The backend's short name, e.g. {@code memory}. */
    public String backendName() {
        return transport.name();
    }

    private <C> ConsumerRuntime<C> newRuntime(C context) {
        checkOpen();
        ConsumerRuntime<C> runtime = new ConsumerRuntime<>(services, context, runtimes::remove);
        runtimes.add(runtime);
        return runtime;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("broker (" + transport.name() + ") is closed");
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (ConsumerRuntime<?> runtime : new ArrayList<>(runtimes)) {
            try {
                runtime.close();
            } catch (RuntimeException e) {
                log.warn("stopping a consumer group while closing the broker failed", e);
            }
        }
        services.close();
        transport.close();
    }

    /**
     * Connection options. Not thread-safe; use once.
     *
     * @param <B> the backend marker
     */
    public static final class Options<B> {
        private final BrokerConfig<B> config;
        private @Nullable MeterRegistry meterRegistry;
        private @Nullable String clientName;

        private Options(BrokerConfig<B> config) {
            this.config = config;
        }

        /** Where shove registers its meters (names in DESIGN.md / docs); none by default. */
        public Options<B> meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** The name on connections and client ids; {@code shove-<pid>} by default. */
        public Options<B> clientName(String name) {
            this.clientName = Objects.requireNonNull(name, "name");
            return this;
        }

        public Broker<B> connect() {
            MeterRegistry registry = meterRegistry != null ? meterRegistry : new CompositeMeterRegistry();
            String name = clientName != null
                    ? clientName
                    : "shove-" + ProcessHandle.current().pid();
            Transport transport = config.open(new TransportContext(registry, name));
            return new Broker<>(transport, registry, name);
        }
    }
}
