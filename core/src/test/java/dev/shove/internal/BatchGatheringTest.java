package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.NoContext;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.Settlement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Batches shove gathers itself (the transport has no native batches): a stop must not wait out maxWait. */
class BatchGatheringTest {
    private static final Topic<byte[]> TOPIC = Topic.builder("gathered", byte[].class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    private final BatchContinuationTest.HoldingTransport transport =
            new BatchContinuationTest.HoldingTransport(Capabilities.builder().build(), List.of(TestDelivery.of("d0")));
    private final BrokerServices services = TestEngine.services(transport);
    private final ConsumerRuntime<NoContext> runtime = new ConsumerRuntime<>(services, NoContext.INSTANCE, r -> {});

    @AfterEach
    void close() {
        services.close();
    }

    @Test
    void aStopReturnsAPartialBatchStillGatheringInsteadOfWaitingOutMaxWait() {
        AtomicInteger batches = new AtomicInteger();
        runtime.register(TestEngine.oneConsumer(
                TOPIC,
                1,
                new HandlerSpec.Batch<byte[], NoContext>(
                        () -> (batch, context) -> {
                            batches.incrementAndGet();
                            return BatchOutcome.ackAll();
                        },
                        BatchOptions.of(10, Duration.ofMinutes(5)))));
        runtime.start();

        CompletableFuture<SupervisorOutcome> stopped =
                CompletableFuture.supplyAsync(() -> runtime.stop(Duration.ofMinutes(5)));
        assertThat(stopped).succeedsWithin(Duration.ofSeconds(30)).isEqualTo(SupervisorOutcome.CLEAN);
        assertThat(batches).hasValue(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> transport.held.size() == 1);
        assertThat(transport.held.getFirst().settlement()).isEqualTo(Settlement.RETURN);
    }
}
