package dev.shove.internal;

import dev.shove.ConsumerOptions;
import dev.shove.DeadLetterHandling;
import dev.shove.NoContext;
import dev.shove.Topic;
import dev.shove.spi.Delivery;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import dev.shove.spi.WireHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** What the engine tests build alike: a broker's services around a test transport, one-consumer registrations. */
final class TestEngine {
    private TestEngine() {}

    static BrokerServices services(Transport transport) {
        return new BrokerServices(
                transport,
                new Metrics(new SimpleMeterRegistry()),
                new TransportContext(new SimpleMeterRegistry(), "test", new WireHeaders(new SimpleMeterRegistry())));
    }

    /** A registration of {@code topic} in its own group with one consumer (no autoscaler) and the given prefetch. */
    static <T> ConsumerRuntime.Spec<T, NoContext> oneConsumer(
            Topic<T> topic, int prefetch, HandlerSpec<T, NoContext> handlers) {
        return new ConsumerRuntime.Spec<>(
                topic,
                topic.name(),
                topic.name(),
                ConsumerOptions.builder().prefetch(prefetch).build(),
                1,
                1,
                null,
                DeadLetterHandling.NONE,
                null,
                handlers);
    }

    /** What a test subscription does with a settlement. */
    @FunctionalInterface
    interface Settler {
        void settle(Delivery delivery, Settlement settlement, SettleCallback callback);
    }

    /** A subscription that settles with {@code settler} and has nothing to do when paused or closed. */
    static Subscription settlingWith(Settler settler) {
        return new Subscription() {
            @Override
            public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
                settler.settle(delivery, settlement, callback);
            }

            @Override
            public void pause() {}

            @Override
            public void close() {}
        };
    }
}
