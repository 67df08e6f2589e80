package dev.shove;

import dev.shove.spi.Bounds;
import dev.shove.spi.Capabilities;
import dev.shove.spi.Engine;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import dev.shove.spi.WireHeaders;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

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
 * @since 0.1.0
 */
public final class Broker<B> implements AutoCloseable {
    /** How long {@link #ping()} waits for the broker. */
    public static final Duration DEFAULT_PING_TIMEOUT = Duration.ofSeconds(5);

    private final Transport transport;
    private final TransportContext context;
    private final Engine engine;
    private volatile boolean closed;

    private Broker(Transport transport, TransportContext context, Engine engine) {
        this.transport = transport;
        this.context = context;
        this.engine = engine;
    }

    /**
     * Connects to the broker described by {@code config}, without metrics.
     *
     * @param config the backend's configuration, e.g. a {@code KafkaConfig}
     * @param <B> the backend marker
     * @return a connected broker; close it when done
     * @throws BrokerUnavailableException when the broker cannot be reached
     * @throws AuthenticationException when the broker refuses the credentials or its certificate is not trusted
     */
    public static <B> Broker<B> connect(BrokerConfig<B> config) {
        return builder(config).connect();
    }

    /**
     * Connects to the broker a URI names, choosing the backend by the URI's scheme ({@link BrokerConfig#fromUri}), so
     * an application can change brokers by configuration alone:
     *
     * <pre>{@code
     * try (Broker<?> broker = Broker.connect(System.getenv("SHOVE_BROKER_URI"))) { ... }
     * }</pre>
     *
     * @param uri a broker URI such as {@code kafka://localhost:9092} or {@code memory://}
     * @return a connected broker of the backend the scheme names; close it when done
     * @throws IllegalArgumentException when the URI is not one a backend on the class path reads
     * @throws BrokerUnavailableException when the broker cannot be reached
     * @throws AuthenticationException when the broker refuses the credentials or its certificate is not trusted
     */
    public static Broker<?> connect(String uri) {
        return connect(BrokerConfig.fromUri(uri));
    }

    /**
     * Starts a connection with options: {@code Broker.builder(config).meterRegistry(registry).connect()}.
     *
     * @param config the backend's configuration
     * @param <B> the backend marker
     * @return a builder; nothing connects until {@link Builder#connect()}
     */
    public static <B> Builder<B> builder(BrokerConfig<B> config) {
        return new Builder<>(Objects.requireNonNull(config, "config"));
    }

    /** {@return the topology of this connection, which declares topics on the broker; the same instance every time} */
    public Topology topology() {
        checkOpen();
        return engine::declare;
    }

    /** {@return the publisher of this connection; the same thread-safe instance every time} */
    public Publisher publisher() {
        checkOpen();
        return engine.publisher();
    }

    /** {@return a new consumer group with no context; call {@link ConsumerGroup#withContext} to give it one} */
    public ConsumerGroup<B, NoContext> consumerGroup() {
        checkOpen();
        return engine.consumerGroup();
    }

    /** {@return a new supervisor (one consumer per topic) with no context} */
    public ConsumerSupervisor<B, NoContext> consumerSupervisor() {
        checkOpen();
        return engine.consumerSupervisor();
    }

    /**
     * The dead-letter queue of {@code topic}, to count, browse, replay and purge dead letters ({@link
     * DeadLetterQueue}); as the topic's default consumer group (named after the topic) sees it.
     *
     * @param topic a topic with a dead-letter queue
     * @param <T> the message type
     * @return a view of the topic's dead letters
     * @throws IllegalArgumentException when the topic has no dead-letter queue
     */
    public <T> DeadLetterQueue<T> deadLetters(Topic<T> topic) {
        return deadLetters(topic, Objects.requireNonNull(topic, "topic").name());
    }

    /**
     * The dead-letter queue of {@code topic} as consumer group {@code group} sees it: the group's {@code groupName}
     * (on Kafka, NATS and Redis each group has its own position in a topic's dead letters).
     *
     * @param topic a topic with a dead-letter queue
     * @param group the consumer group's name
     * @param <T> the message type
     * @return a view of the topic's dead letters as {@code group} sees them
     * @throws IllegalArgumentException when the topic has no dead-letter queue
     */
    public <T> DeadLetterQueue<T> deadLetters(Topic<T> topic, String group) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(group, "group");
        checkOpen();
        return engine.deadLetters(topic, group);
    }

    /** {@return what the backend can do (exact delays, delivery counts, ...)} */
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
     * @param timeout how long to wait for the answer
     * @throws BrokerUnavailableException when the broker does not answer in time
     */
    public void ping(Duration timeout) {
        checkOpen();
        transport.ping(Bounds.positive("ping timeout", timeout));
    }

    /**
     * The underlying transport as {@code type}, for backend-specific tools (such as the in-memory backend's test
     * probe); empty when it is of another type.
     *
     * @param type the transport class asked for
     * @param <T> that type
     * @return the transport (or the one a decorator wraps) as {@code type}; empty when none is of that type
     */
    public <T> Optional<T> unwrap(Class<T> type) {
        return transport.unwrap(type);
    }

    /**
     * The connection's state as the backend reports it: up, or down and reconnecting, since when and why. Cheap: no
     * round trip (use {@link #ping()} for one).
     *
     * @return the connection's state now
     */
    public ConnectionHealth connection() {
        return context.connection();
    }

    /** {@return the backend's short name, e.g. {@code memory}} */
    public String backendName() {
        return transport.name();
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
        try {
            engine.close();
        } finally {
            transport.close();
        }
    }

    /**
     * Connection options. Not thread-safe; use once.
     *
     * @param <B> the backend marker
     */
    public static final class Builder<B> {
        private final BrokerConfig<B> config;
        private @Nullable MeterRegistry meterRegistry;
        private @Nullable String clientName;

        private Builder(BrokerConfig<B> config) {
            this.config = config;
        }

        /**
         * Where shove registers its meters (names in {@link ShoveMeters}); none by default.
         *
         * @param registry the registry to register meters in
         * @return this builder
         */
        public Builder<B> meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * The name on connections and client ids; {@code shove-<pid>} by default.
         *
         * @param name the client name
         * @return this builder
         */
        public Builder<B> clientName(String name) {
            this.clientName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Opens the connection and starts the engine.
         *
         * @return a connected broker; close it when done
         * @throws BrokerUnavailableException when the broker cannot be reached
         * @throws AuthenticationException when the broker refuses the credentials or its certificate is not trusted
         */
        public Broker<B> connect() {
            MeterRegistry registry = meterRegistry != null ? meterRegistry : unobservedRegistry();
            String name = clientName != null
                    ? clientName
                    : "shove-" + ProcessHandle.current().pid();
            TransportContext context =
                    new TransportContext(registry, name, new WireHeaders(registry), meterRegistry != null);
            Transport transport = config.open(context);
            try {
                return new Broker<>(transport, context, Engines.FACTORY.start(transport, context));
            } catch (RuntimeException | Error e) {
                transport.close();
                throw e;
            }
        }
    }

    /**
     * Where the meters go when the application gives no registry: nobody can read them, so every meter is a no-op.
     * (An empty composite would do the same, but its meters allocate an iterator on every recording, three times per
     * message.)
     */
    private static MeterRegistry unobservedRegistry() {
        CompositeMeterRegistry registry = new CompositeMeterRegistry();
        registry.config().meterFilter(MeterFilter.deny());
        return registry;
    }

    /** The engine, found once (see {@link Engine}). */
    private static final class Engines {
        static final Engine.Factory FACTORY = ServiceLoader.load(Engine.Factory.class, Broker.class.getClassLoader())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("shove's engine is missing: shove-core's"
                        + " META-INF/services/dev.shove.spi.Engine$Factory (or its module-info 'provides') was not"
                        + " found; when you shade or repackage shove-core, merge its service files"));
    }
}
