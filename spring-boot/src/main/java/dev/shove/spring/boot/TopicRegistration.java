package dev.shove.spring.boot;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOptions;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageHandler;
import dev.shove.Topic;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A topic and the handlers that consume it, as a bean: the starter registers every bean of this type on its consumer
 * group ({@link ConsumerGroup#register(Topic, ConsumerGroupConfig, Supplier)}), which declares the topic, before the
 * group starts. The factory is called once per consumer; to share one handler bean across consumers, pass {@code () ->
 * handler} (it must then be thread-safe). Immutable and thread-safe.
 *
 * <pre>{@code
 * @Bean
 * TopicRegistration<OrderPaid, Inventory> orders() {
 *     return TopicRegistration.of(ORDERS, ConsumerGroupConfig.of(1, 4), OrderHandler::new);
 * }
 * }</pre>
 *
 * <p>{@code C} is the type of the application's {@link GroupContext} (or {@link dev.shove.NoContext}); the starter
 * refuses to start when a registration bean's declared {@code C} does not fit the context bean.
 *
 * @param <T> the message type
 * @param <C> the context type the handlers take
 * @since 0.1.0
 */
public final class TopicRegistration<T, C> {
    private final Topic<T> topic;
    private final ConsumerGroupConfig config;
    private final @Nullable Supplier<? extends MessageHandler<T, ? super C>> handlerFactory;
    private final @Nullable BatchOptions batch;
    private final @Nullable Supplier<? extends BatchMessageHandler<T, ? super C>> batchFactory;

    private TopicRegistration(
            Topic<T> topic,
            ConsumerGroupConfig config,
            @Nullable Supplier<? extends MessageHandler<T, ? super C>> handlerFactory,
            @Nullable BatchOptions batch,
            @Nullable Supplier<? extends BatchMessageHandler<T, ? super C>> batchFactory) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.config = Objects.requireNonNull(config, "config");
        this.handlerFactory = handlerFactory;
        this.batch = batch;
        this.batchFactory = batchFactory;
    }

    /**
     * {@return a registration of {@code topic} with {@link ConsumerGroupConfig#ofDefaults()}: one consumer, default
     * options}
     *
     * @param topic the topic to consume
     * @param handlerFactory makes one handler per consumer
     * @param <T> the message type
     * @param <C> the context type
     */
    public static <T, C> TopicRegistration<T, C> of(
            Topic<T> topic, Supplier<? extends MessageHandler<T, ? super C>> handlerFactory) {
        return of(topic, ConsumerGroupConfig.ofDefaults(), handlerFactory);
    }

    /**
     * {@return a registration of {@code topic} with its consumers, scaling and options}
     *
     * @param topic the topic to consume
     * @param config consumers, scaling and consumer options of this registration
     * @param handlerFactory makes one handler per consumer
     * @param <T> the message type
     * @param <C> the context type
     */
    public static <T, C> TopicRegistration<T, C> of(
            Topic<T> topic,
            ConsumerGroupConfig config,
            Supplier<? extends MessageHandler<T, ? super C>> handlerFactory) {
        return new TopicRegistration<>(
                topic, config, Objects.requireNonNull(handlerFactory, "handlerFactory"), null, null);
    }

    /**
     * {@return a registration of {@code topic} with batch handlers ({@link ConsumerGroup#registerBatch})}
     *
     * @param topic the topic to consume; not sequenced
     * @param config consumers, scaling and consumer options of this registration
     * @param batch how batches are formed
     * @param handlerFactory makes one batch handler per consumer
     * @param <T> the message type
     * @param <C> the context type
     * @throws IllegalArgumentException for a sequenced topic
     */
    public static <T, C> TopicRegistration<T, C> batch(
            Topic<T> topic,
            ConsumerGroupConfig config,
            BatchOptions batch,
            Supplier<? extends BatchMessageHandler<T, ? super C>> handlerFactory) {
        if (topic.sequencing().isPresent()) {
            throw new IllegalArgumentException(
                    "topic '" + topic.name() + "' is sequenced and cannot take batch handlers; register it with of()");
        }
        return new TopicRegistration<>(
                topic,
                config,
                null,
                Objects.requireNonNull(batch, "batch"),
                Objects.requireNonNull(handlerFactory, "handlerFactory"));
    }

    /** {@return the topic} */
    public Topic<T> topic() {
        return topic;
    }

    /** {@return the registration's consumers, scaling and options} */
    public ConsumerGroupConfig config() {
        return config;
    }

    /** {@return whether the handlers are batch handlers} */
    public boolean isBatch() {
        return batchFactory != null;
    }

    /**
     * Registers this topic on {@code group}, passing each handler factory through {@code decorator}.
     *
     * @param group the group whose context type is {@code C}
     * @param decorator wraps single-message handler factories (tracing); identity otherwise
     */
    @SuppressWarnings("unchecked")
    void registerOn(ConsumerGroup<?, ?> group, Decorator decorator) {
        ConsumerGroup<?, C> typed = (ConsumerGroup<?, C>) group;
        if (batchFactory != null) {
            typed.registerBatch(topic, config, Objects.requireNonNull(batch), batchFactory);
        } else {
            typed.register(topic, config, decorator.decorate(topic, Objects.requireNonNull(handlerFactory)));
        }
    }

    @Override
    public String toString() {
        return "TopicRegistration[" + topic.name() + (isBatch() ? ", batch" : "") + ", " + config + "]";
    }

    /** Wraps a registration's handler factory before it is registered (the tracing of dead letters). */
    interface Decorator {
        /** Registers factories as they are. */
        Decorator NONE = new Decorator() {
            @Override
            public <T, C> Supplier<? extends MessageHandler<T, ? super C>> decorate(
                    Topic<T> topic, Supplier<? extends MessageHandler<T, ? super C>> factory) {
                return factory;
            }
        };

        <T, C> Supplier<? extends MessageHandler<T, ? super C>> decorate(
                Topic<T> topic, Supplier<? extends MessageHandler<T, ? super C>> factory);
    }
}
