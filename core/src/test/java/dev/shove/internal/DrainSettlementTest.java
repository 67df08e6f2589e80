package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A drain interrupts the workers once nothing is running or unsettled. A worker still inside {@link
 * Subscription#settle} is not done: an interrupt there can lose what the transport is handing its client (jnats drops
 * a publish queued from an interrupted thread, so a retry copy decided during the drain vanished).
 */
class DrainSettlementTest {
    private static final Topic<byte[]> TOPIC = Topic.builder("drains", byte[].class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    /** A transport whose settle, on the worker's thread, waits for the test and notes whether it was interrupted. */
    static final class SlowSettleTransport extends TestTransport {
        final CountDownLatch settling = new CountDownLatch(1);
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean interruptedWhileSettling = new AtomicBoolean();

        SlowSettleTransport() {
            super(Capabilities.builder().build());
        }

        @Override
        public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
            if (request.source() == SubscriptionRequest.Source.MAIN) {
                sink.deliverAll(List.of(TestDelivery.of("d0")));
            }
            return new Subscription() {
                @Override
                public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
                    settling.countDown();
                    while (release.getCount() > 0) {
                        if (Thread.currentThread().isInterrupted()) {
                            interruptedWhileSettling.set(true);
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                    callback.settled(null);
                }

                @Override
                public void pause() {
                    paused.countDown();
                }

                @Override
                public void close() {}
            };
        }
    }

    private final SlowSettleTransport transport = new SlowSettleTransport();
    private final BrokerServices services = TestEngine.services(transport);
    private final ConsumerRuntime<NoContext> runtime = new ConsumerRuntime<>(services, NoContext.INSTANCE, r -> {});

    @AfterEach
    void close() {
        transport.release.countDown();
        services.close();
    }

    @Test
    void aDrainDoesNotInterruptAWorkerWhileTheTransportTakesItsSettlement() throws Exception {
        runtime.register(TestEngine.oneConsumer(
                TOPIC,
                1,
                new HandlerSpec.Single<byte[], NoContext>(() -> (message, metadata, context) -> Outcome.ack())));
        runtime.start();
        assertThat(transport.settling.await(5, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<?> stopped = CompletableFuture.runAsync(() -> runtime.stop(Duration.ofSeconds(5)));
        assertThat(transport.paused.await(5, TimeUnit.SECONDS)).isTrue();
        // the drain has begun; before the fix it interrupted the worker within a millisecond or two
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .until(() -> !transport.interruptedWhileSettling.get());
        transport.release.countDown();
        stopped.get(10, TimeUnit.SECONDS);

        assertThat(transport.interruptedWhileSettling).isFalse();
    }
}
