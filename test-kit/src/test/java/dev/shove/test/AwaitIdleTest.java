package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@ShoveTest
class AwaitIdleTest {
    private static final Topic<Order> ORDERS = Topic.builder("orders", Order.class)
            .holdQueue(Duration.ofMillis(300))
            .dlq()
            .build();

    @Test
    @DisplayName("awaitIdle waits while a retry copy waits out its hold tier, so the journey is whole when it returns")
    void waitsThroughARetry(ShoveKit kit) {
        AtomicInteger calls = new AtomicInteger();
        kit.consumerGroup()
                .register(
                        ORDERS,
                        () -> (order, meta, ctx) -> calls.incrementAndGet() == 1 ? Outcome.retry() : Outcome.ack())
                .start();
        kit.publisher().publish(ORDERS, new Order("o-1", 1));

        kit.awaitIdle(ORDERS);

        assertThat(calls).hasValue(2);
        ShoveAssertions.assertThat(kit.journey(ORDERS, order -> order.id().equals("o-1")))
                .wasRetried(1)
                .wasAcknowledged();
    }

    @Test
    @DisplayName("awaitIdle with no topics waits for every topic consumed through the broker")
    void waitsForEveryConsumedTopic(ShoveKit kit) {
        AtomicInteger calls = new AtomicInteger();
        kit.consumerGroup()
                .register(
                        ORDERS,
                        () -> (order, meta, ctx) -> calls.incrementAndGet() == 1 ? Outcome.retry() : Outcome.ack())
                .start();
        kit.publisher().publish(ORDERS, new Order("o-2", 2));

        kit.awaitIdle();

        assertThat(calls).hasValue(2);
    }

    @Test
    @DisplayName("a topic that does not go idle in time fails the wait, naming the running handler and its delivery")
    void timeoutNamesTheRunningHandler(ShoveKit kit) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        kit.consumerGroup()
                .register(ORDERS, () -> (order, meta, ctx) -> {
                    release.await(10, TimeUnit.SECONDS);
                    return Outcome.ack();
                })
                .start();
        kit.publisher().publish(ORDERS, new Order("o-3", 3));
        String id = kit.published(ORDERS).getFirst().messageId().orElseThrow();
        try {
            assertThatThrownBy(() -> kit.awaitIdle(Duration.ofMillis(300), ORDERS))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("topic 'orders' did not go idle within 300 ms; still moving:")
                    .hasMessageContaining("1 delivery(ies) of group 'orders' from 'orders' not yet settled: " + id)
                    .hasMessageContaining("topic 'orders': 1 handler call(s) running");
        } finally {
            release.countDown();
        }
        kit.awaitIdle(ORDERS);
    }

    @Test
    @DisplayName("a message nobody consumes keeps its topic busy: the wait names what the broker still holds")
    void timeoutNamesWhatTheBrokerHolds(ShoveKit kit) {
        kit.broker().topology().declare(ORDERS);
        kit.publisher().publish(ORDERS, new Order("o-4", 4));

        assertThatThrownBy(() -> kit.awaitIdle(Duration.ofMillis(200), ORDERS))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("topic 'orders' on the broker: 1 ready, 0 in flight, 0 held");
    }

    @Test
    @DisplayName("awaitIdle waits for the dead-letter consumer: handleDead has run when it returns")
    void waitsForTheDeadLetterConsumer(ShoveKit kit) {
        List<Order> dead = new CopyOnWriteArrayList<>();
        kit.consumerGroup()
                .register(ORDERS, () -> new MessageHandler<Order, NoContext>() {
                    @Override
                    public Outcome handle(Order order, MessageMetadata meta, NoContext ctx) {
                        return Outcome.reject("no");
                    }

                    @Override
                    public void handleDead(Order order, DeadMessageMetadata meta, NoContext ctx) {
                        dead.add(order);
                    }
                })
                .start();
        kit.publisher().publish(ORDERS, new Order("o-5", 5));

        kit.awaitIdle(ORDERS);

        assertThat(dead).containsExactly(new Order("o-5", 5));
    }

    @Test
    @DisplayName("awaitIdle with no topics and nothing consumed says what to do")
    void nothingToWaitFor(ShoveKit kit) {
        assertThatThrownBy(kit::awaitIdle)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no topic is consumed through this broker yet");
    }
}
