package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.Settlement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a stopping consumer gives back, it gives back in each key's order: a retry waiting in place heads its key, so
 * it is returned before the key's later messages (a broker that redelivers in the order of return keeps the order).
 */
class ReturnOrderTest {
    private static final Topic<byte[]> TOPIC = Topic.builder("orders", byte[].class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .sequenced(SequenceFailure.SKIP, bytes -> "k")
            .routingShards(1)
            .build();

    private static TestDelivery delivery(String id) {
        return new TestDelivery(
                id, TOPIC.shardName(0), Map.of(ShoveHeaders.SEQUENCE_KEY, "k"), id.getBytes(StandardCharsets.UTF_8));
    }

    private final BatchContinuationTest.HoldingTransport transport = new BatchContinuationTest.HoldingTransport(
            Capabilities.builder().build(), List.of(delivery("first"), delivery("second"), delivery("third")));
    private final BrokerServices services = TestEngine.services(transport);
    private final ConsumerRuntime<NoContext> runtime = new ConsumerRuntime<>(services, NoContext.INSTANCE, r -> {});

    @AfterEach
    void close() {
        services.close();
    }

    @Test
    @DisplayName("a stopping consumer returns a key's waiting retry before the key's later messages")
    void waitingRetryReturnedFirst() {
        AtomicInteger calls = new AtomicInteger();
        runtime.register(TestEngine.oneConsumer(
                TOPIC, 10, new HandlerSpec.Single<byte[], NoContext>(() -> (message, meta, context) -> {
                    calls.incrementAndGet();
                    return Outcome.retry(Duration.ofMinutes(5)); // waits in place, holding up "second" and "third"
                })));
        runtime.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 1);

        runtime.stop(Duration.ofSeconds(5));

        assertThat(transport.held)
                .allMatch(h -> h.settlement().action() == Settlement.Action.RETURN)
                .extracting(h -> h.delivery().deliveryId())
                .containsExactly("first", "second", "third");
    }
}
