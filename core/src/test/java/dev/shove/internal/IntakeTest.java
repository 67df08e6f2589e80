package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the engine does with a delivery on the transport's thread. That thread hands every delivery of its consumer
 * to the engine (a Kafka poll thread, for one), so it must not decode the delivery's headers: the retry count the
 * policy needs is read from them on the worker that runs the message.
 */
class IntakeTest {
    private static final Topic<byte[]> TOPIC =
            Topic.builder("intake", byte[].class).build();

    /** A delivery that notes the threads its headers were read on. */
    record WatchedDelivery(Set<Thread> readers) implements Delivery {
        @Override
        public byte[] payload() {
            return new byte[0];
        }

        @Override
        public Map<String, String> headers() {
            readers.add(Thread.currentThread());
            return Map.of(ShoveHeaders.RETRY_COUNT, "2");
        }

        @Override
        public String deliveryId() {
            return "d-1";
        }

        @Override
        public String queue() {
            return TOPIC.name();
        }
    }

    /** Hands over one watched delivery, on the subscribing thread, from the main queue. */
    static final class OneDeliveryTransport extends TestTransport {
        final Set<Thread> readers = ConcurrentHashMap.newKeySet();
        volatile Thread deliveringThread;

        OneDeliveryTransport() {
            super(Capabilities.builder().build());
        }

        @Override
        public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
            if (request.source() == SubscriptionRequest.Source.MAIN) {
                deliveringThread = Thread.currentThread();
                sink.deliverAll(List.of(new WatchedDelivery(readers)));
            }
            return TestEngine.settlingWith((delivery, settlement, callback) -> callback.settled(null));
        }
    }

    private final OneDeliveryTransport transport = new OneDeliveryTransport();
    private final BrokerServices services = TestEngine.services(transport);
    private final ConsumerRuntime<NoContext> runtime = new ConsumerRuntime<>(services, NoContext.INSTANCE, r -> {});

    @AfterEach
    void close() {
        runtime.stop(Duration.ofSeconds(5));
        services.close();
    }

    @Test
    void theRetryCountIsReadFromTheHeadersOnTheWorkerNotOnTheTransportsThread() throws Exception {
        CompletableFuture<Integer> seen = new CompletableFuture<>();
        runtime.register(TestEngine.oneConsumer(
                TOPIC, 1, new HandlerSpec.Single<byte[], NoContext>(() -> (message, metadata, context) -> {
                    seen.complete(metadata.retryCount());
                    return Outcome.ack();
                })));
        runtime.start();

        assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(transport.readers).isNotEmpty().doesNotContain(transport.deliveringThread);
    }
}
