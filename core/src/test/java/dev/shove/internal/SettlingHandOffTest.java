package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A transport that hands over the next delivery from inside a settlement, on the settling worker's thread (the
 * in-memory broker does: a settled message frees the window its queue dispatches into). The worker runs that
 * delivery next itself; none of them may be lost, run twice or run out of order, whatever the consumer's size.
 */
class SettlingHandOffTest {
    private static final Topic<byte[]> TOPIC =
            Topic.builder("hand-off", byte[].class).build();
    private static final int MESSAGES = 500;

    /** Delivers message 0 on subscribe, and message n+1 while acknowledging message n, until {@link #MESSAGES}. */
    static final class ChainTransport extends TestTransport {
        final Set<String> settled = ConcurrentHashMap.newKeySet();
        final AtomicInteger returned = new AtomicInteger();
        final AtomicInteger handedOver = new AtomicInteger();

        ChainTransport() {
            super(Capabilities.builder().build());
        }

        @Override
        public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
            if (request.source() == SubscriptionRequest.Source.MAIN) {
                handedOver.incrementAndGet();
                sink.deliver(TestDelivery.of("0"));
            }
            return TestEngine.settlingWith((delivery, settlement, callback) -> {
                if (settlement.action() == Settlement.Action.RETURN) {
                    returned.incrementAndGet();
                    callback.settled(null);
                    return;
                }
                settled.add(delivery.deliveryId());
                callback.settled(null);
                int next = Integer.parseInt(delivery.deliveryId()) + 1;
                if (next < MESSAGES) {
                    handedOver.incrementAndGet();
                    sink.deliver(TestDelivery.of(String.valueOf(next)));
                }
            });
        }
    }

    private final ChainTransport transport = new ChainTransport();
    private final BrokerServices services = TestEngine.services(transport);
    private final ConsumerRuntime<NoContext> runtime = new ConsumerRuntime<>(services, NoContext.INSTANCE, r -> {});

    @AfterEach
    void close() {
        runtime.stop(Duration.ofSeconds(5));
        services.close();
    }

    @Test
    void deliveriesHandedOverDuringASettlementRunInOrderOnTheSettlingWorker() {
        List<String> handled = new CopyOnWriteArrayList<>();
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        runtime.register(TestEngine.oneConsumer(
                TOPIC, 8, new HandlerSpec.Single<byte[], NoContext>(() -> (message, metadata, context) -> {
                    handled.add(metadata.deliveryId());
                    threads.add(Thread.currentThread());
                    return Outcome.ack();
                })));
        runtime.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> transport.settled.size() == MESSAGES);
        assertThat(handled).hasSize(MESSAGES);
        for (int i = 0; i < MESSAGES; i++) {
            assertThat(handled.get(i)).isEqualTo(String.valueOf(i));
        }
        assertThat(threads).hasSize(1);
        assertThat(transport.returned).hasValue(0);
    }

    @Test
    void aStopDuringTheChainSettlesOrReturnsEveryDeliveryAndDrainsCleanly() throws Exception {
        AtomicInteger handled = new AtomicInteger();
        CompletableFuture<SupervisorOutcome> stopped = new CompletableFuture<>();
        runtime.register(TestEngine.oneConsumer(
                TOPIC, 8, new HandlerSpec.Single<byte[], NoContext>(() -> (message, metadata, context) -> {
                    if (handled.incrementAndGet() == MESSAGES / 2) {
                        Thread.ofVirtual().start(() -> stopped.complete(runtime.stop(Duration.ofSeconds(5))));
                        await().atMost(Duration.ofSeconds(5))
                                .until(() -> !runtime.health().running());
                    }
                    return Outcome.ack();
                })));
        runtime.start();

        SupervisorOutcome outcome = stopped.get(10, TimeUnit.SECONDS);
        assertThat(outcome.isClean()).as("%s", outcome).isTrue();
        // every delivery handed over was handled and settled once, or returned unhandled; the chain stopped early
        assertThat(transport.settled).hasSize(handled.get());
        assertThat(transport.settled.size() + transport.returned.get()).isEqualTo(transport.handedOver.get());
        assertThat(transport.returned.get()).isLessThanOrEqualTo(1);
        assertThat(handled.get()).isLessThan(MESSAGES);
    }
}
