package dev.shove.internal;

import static org.awaitility.Awaitility.await;

import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The continuation of {@code BatchOutcome.all} waits for every message of the batch: transports confirm settlements
 * in any order, so it must not follow whichever message happens to be last in the batch.
 */
class BatchContinuationTest {
    private static final Topic<byte[]> TOPIC = Topic.builder("batches", byte[].class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    /** A settlement the transport was asked for, waiting for the test to confirm it. */
    record Held(Delivery delivery, Settlement settlement, SettleCallback callback) {}

    /**
     * A transport that hands over its backlog as soon as the main queue is subscribed (so the first batch holds all
     * of it) and confirms acknowledgements only when the test says so (returns at once).
     */
    static final class HoldingTransport extends TestTransport {
        final List<Held> held = new CopyOnWriteArrayList<>();
        final List<Delivery> backlog;

        HoldingTransport(Capabilities capabilities, List<Delivery> backlog) {
            super(capabilities);
            this.backlog = List.copyOf(backlog);
        }

        @Override
        public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
            if (request.source() == SubscriptionRequest.Source.MAIN) {
                sink.deliverAll(backlog);
            }
            return new Subscription() {
                @Override
                public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
                    held.add(new Held(delivery, settlement, callback));
                    if (settlement.action() == Settlement.Action.RETURN) {
                        callback.settled(null);
                    }
                }

                @Override
                public void pause() {}

                @Override
                public void close() {}
            };
        }
    }

    private final HoldingTransport transport = new HoldingTransport(
            Capabilities.builder().nativeBatches().build(),
            List.of(TestDelivery.of("d0"), TestDelivery.of("d1"), TestDelivery.of("d2")));
    private final BrokerServices services = TestEngine.services(transport);
    private final ConsumerRuntime<NoContext> runtime = new ConsumerRuntime<>(services, NoContext.INSTANCE, r -> {});
    private final AtomicInteger runs = new AtomicInteger();

    @AfterEach
    void stop() {
        transport.held.forEach(h -> h.callback().settled(null));
        transport.held.clear();
        runtime.stop(Duration.ofSeconds(5));
        services.close();
    }

    /** Runs a batch registration answering {@code all(ack.andThen(runs++))} on the backlog, one batch of three. */
    private List<Held> batchOfThreeSettled() {
        runtime.register(TestEngine.oneConsumer(
                TOPIC,
                1,
                new HandlerSpec.Batch<byte[], NoContext>(
                        () -> (batch, context) -> BatchOutcome.all(Outcome.ack().andThen(runs::incrementAndGet)),
                        BatchOptions.of(3, Duration.ZERO))));
        runtime.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> transport.held.size() == 3);
        return List.copyOf(transport.held);
    }

    @Test
    void runsOnlyOnceEverySettlementIsConfirmedWhateverTheOrder() {
        List<Held> held = batchOfThreeSettled();

        held.get(2).callback().settled(null);
        held.get(0).callback().settled(null);
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> runs.get() == 0);
        held.get(1).callback().settled(null);
        await().atMost(Duration.ofSeconds(5)).until(() -> runs.get() == 1);
        transport.held.clear();
    }

    @Test
    void neverRunsWhenOneSettlementFailed() {
        List<Held> held = batchOfThreeSettled();

        held.get(0).callback().settled(new IllegalStateException("broker refused the ack on purpose"));
        held.get(1).callback().settled(null);
        held.get(2).callback().settled(null);
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> runs.get() == 0);
        transport.held.clear();
    }
}
