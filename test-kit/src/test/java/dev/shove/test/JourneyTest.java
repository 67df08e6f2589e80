package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@ShoveTest
class JourneyTest {
    private static final Duration HOLD = Duration.ofMillis(20);
    private static final Topic<Order> ORDERS =
            Topic.builder("orders", Order.class).holdQueue(HOLD).dlq().build();
    private static final Topic<Order> NO_DLQ =
            Topic.builder("orders-no-dlq", Order.class).holdQueue(HOLD).build();

    /** Fails with an exception while the ledger is down. */
    static final class LedgerDown extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LedgerDown() {
            super("the ledger is down");
        }
    }

    @Test
    @DisplayName(
            "a message that keeps failing is retried twice, then dead-lettered: the dead letter is found in the DLQ")
    void retriedTwiceThenDeadLettered(ShoveKit kit) {
        kit.consumerGroup()
                .register(
                        ORDERS,
                        ConsumerGroupConfig.builder()
                                .maxRetries(2)
                                .noDeadLetterConsumer()
                                .build(),
                        () -> (order, meta, ctx) -> {
                            throw new LedgerDown();
                        })
                .start();
        kit.publisher().publish(ORDERS, new Order("o-1", 100));
        kit.awaitIdle(ORDERS);

        Journey<Order> journey = kit.journey(ORDERS, order -> order.id().equals("o-1"));
        ShoveAssertions.assertThat(journey)
                .wasHandled(3)
                .wasRetried(2)
                .threw(LedgerDown.class)
                .wasDeadLettered("max-retries-exceeded");
        assertThat(journey.calls()).extracting(HandlerCall::retryCount).containsExactly(0, 1, 2);
        assertThat(journey.deadLetter()).hasValueSatisfying(letter -> {
            assertThat(letter.message()).contains(new Order("o-1", 100));
            assertThat(letter.metadata().deathCount()).isEqualTo(1);
            assertThat(letter.metadata().exceptionClass()).contains(LedgerDown.class.getName());
        });
        assertThat(journey.deadLetterHandled()).isFalse();
    }

    @Test
    @DisplayName("a rejection read by the group's dead-letter consumer is dead-lettered with its reason and handled")
    void rejectedAndHandledDead(ShoveKit kit) {
        List<Order> dead = new CopyOnWriteArrayList<>();
        kit.consumerGroup()
                .register(ORDERS, () -> new MessageHandler<Order, NoContext>() {
                    @Override
                    public Outcome handle(Order order, MessageMetadata meta, NoContext ctx) {
                        return Outcome.reject("amount must be positive");
                    }

                    @Override
                    public void handleDead(Order order, DeadMessageMetadata meta, NoContext ctx) {
                        dead.add(order);
                    }
                })
                .start();
        kit.publisher().publish(ORDERS, new Order("o-2", -5));
        kit.awaitIdle(ORDERS);

        Journey<Order> journey = kit.journey(ORDERS, order -> order.id().equals("o-2"));
        ShoveAssertions.assertThat(journey)
                .wasHandled(1)
                .wasRetried(0)
                .hasOutcomes(Outcome.reject("amount must be positive"))
                .wasDeadLettered("rejected: amount must be positive")
                .deadLetterWasHandled();
        assertThat(dead).containsExactly(new Order("o-2", -5));
        // kept in the queue after handleDead (the default), where the dead-letter tools see it
        assertThat(journey.deadLetter())
                .hasValueSatisfying(
                        d -> assertThat(d.metadata().reason()).isEqualTo("rejected: amount must be positive"));
    }

    @Test
    @DisplayName("a message that fails once and then succeeds is acknowledged after one retry")
    void acknowledgedAfterRetry(ShoveKit kit) {
        AtomicInteger calls = new AtomicInteger();
        kit.consumerGroup()
                .register(
                        ORDERS,
                        () -> (order, meta, ctx) -> calls.incrementAndGet() == 1 ? Outcome.retry() : Outcome.ack())
                .start();
        kit.publisher().publish(ORDERS, new Order("o-3", 300));
        kit.awaitIdle(ORDERS);

        Journey<Order> journey = kit.journey(ORDERS, order -> order.id().equals("o-3"));
        ShoveAssertions.assertThat(journey)
                .hasOutcomes(Outcome.retry(), Outcome.ack())
                .wasRetried(1)
                .wasAcknowledged();
        assertThat(journey.message()).contains(new Order("o-3", 300));
        assertThat(journey.steps())
                .anyMatch(s -> s.contains("retried: a copy with retryCount 1 waits 20 ms (hold tier 0)"));
    }

    @Test
    @DisplayName("a rejection on a topic without a dead-letter queue is discarded")
    void discardedWithoutDlq(ShoveKit kit) {
        kit.consumerGroup()
                .register(NO_DLQ, () -> (order, meta, ctx) -> Outcome.reject("not ours"))
                .start();
        kit.publisher().publish(NO_DLQ, new Order("o-4", 1));
        kit.awaitIdle(NO_DLQ);

        ShoveAssertions.assertThat(kit.journey(NO_DLQ, order -> order.id().equals("o-4")))
                .wasHandled(1)
                .wasDiscarded();
    }

    @Test
    @DisplayName("bytes that do not decode, on a topic without a dead-letter queue, are discarded before the handler")
    void unreadableDiscardedBeforeTheHandler(ShoveKit kit) {
        kit.consumerGroup()
                .register(NO_DLQ, () -> (order, meta, ctx) -> Outcome.ack())
                .start();
        kit.inject(NO_DLQ, "not json".getBytes(StandardCharsets.UTF_8), Map.of(ShoveHeaders.MESSAGE_ID, "raw-1"));
        kit.awaitIdle(NO_DLQ);

        Journey<Order> journey = kit.journey(NO_DLQ, "raw-1");
        ShoveAssertions.assertThat(journey).wasHandled(0).wasDiscarded();
        assertThat(journey.message()).isEmpty();
        assertThat(journey.steps()).anyMatch(s -> s.contains("it never reached the handler"));
    }

    @Test
    @DisplayName("a batch handler's calls are recorded per message, with the batch's outcome for each")
    void batchCallsAreRecorded(ShoveKit kit) {
        kit.consumerGroup()
                .registerBatch(
                        ORDERS,
                        ConsumerGroupConfig.builder().noDeadLetterConsumer().build(),
                        BatchOptions.of(10),
                        () -> (batch, ctx) -> BatchOutcome.each(batch.stream()
                                .map(e -> e.message().cents() > 0 ? Outcome.ack() : Outcome.reject("negative"))
                                .toList()))
                .start();
        kit.publisher().publishBatch(ORDERS, List.of(new Order("b-1", 10), new Order("b-2", -10)));
        kit.awaitIdle(ORDERS);

        ShoveAssertions.assertThat(kit.journey(ORDERS, order -> order.id().equals("b-1")))
                .wasHandled(1)
                .wasAcknowledged();
        Journey<Order> rejected = kit.journey(ORDERS, order -> order.id().equals("b-2"));
        ShoveAssertions.assertThat(rejected).wasDeadLettered("rejected: negative");
        assertThat(rejected.calls()).allMatch(HandlerCall::batch);
    }

    @Test
    @DisplayName("a sequenced topic's retry waits in place, and the journey says so")
    void sequencedRetryWaitsInPlace(ShoveKit kit) {
        Topic<Order> sequenced = Topic.builder("orders-by-id", Order.class)
                .holdQueue(HOLD)
                .dlq()
                .sequenced(SequenceFailure.SKIP, Order::id)
                .build();
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        kit.consumerGroup()
                .register(
                        sequenced,
                        () -> (order, meta, ctx) -> calls.computeIfAbsent(order.id(), id -> new AtomicInteger())
                                                .incrementAndGet()
                                        == 1
                                ? Outcome.retry()
                                : Outcome.ack())
                .start();
        kit.publisher().publish(sequenced, new Order("s-1", 1));
        kit.awaitIdle(sequenced);

        Journey<Order> journey = kit.journey(sequenced, order -> order.id().equals("s-1"));
        ShoveAssertions.assertThat(journey).wasRetried(1).wasAcknowledged();
        assertThat(journey.steps()).anyMatch(s -> s.contains("waits in place to run again with retryCount 1"));
    }

    @Test
    @DisplayName("a failed assertion shows the whole journey: every delivery, call and settlement, and the fate")
    void failureShowsTheJourney(ShoveKit kit) {
        kit.consumerGroup()
                .register(
                        ORDERS,
                        ConsumerGroupConfig.builder()
                                .maxRetries(1)
                                .noDeadLetterConsumer()
                                .build(),
                        () -> (order, meta, ctx) -> Outcome.retry())
                .start();
        kit.publisher().publish(ORDERS, new Order("o-5", 5));
        kit.awaitIdle(ORDERS);

        Journey<Order> journey = kit.journey(ORDERS, order -> order.id().equals("o-5"));
        assertThatThrownBy(() -> ShoveAssertions.assertThat(journey).wasAcknowledged())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Expected message " + journey.messageId() + " of topic 'orders' to be"
                        + " acknowledged, but its fate is DEAD_LETTERED")
                .hasMessageContaining("delivered from 'orders' with retryCount 0")
                .hasMessageContaining("handler (retryCount 0) returned retry")
                .hasMessageContaining("retried: a copy with retryCount 1")
                .hasMessageContaining("handler (retryCount 1) returned retry")
                .hasMessageContaining("dead-lettered to 'orders-dlq': max-retries-exceeded")
                .hasMessageContaining("the dead-letter tools find it in 'orders-dlq'")
                .hasMessageContaining("fate: DEAD_LETTERED (\"max-retries-exceeded\")");
        assertThatThrownBy(() -> ShoveAssertions.assertThat(journey).wasRetried(2))
                .hasMessageContaining("to be retried 2 times, but it was retried 1 time");
    }

    @Test
    @DisplayName("a journey chosen by content needs exactly one matching message, and says what the kit saw")
    void journeyByContentNeedsOneMatch(ShoveKit kit) {
        kit.broker().topology().declare(ORDERS);
        kit.publisher().publish(ORDERS, new Order("o-6", 6));
        kit.publisher().publish(ORDERS, new Order("o-7", 7));

        assertThatThrownBy(() -> kit.journey(ORDERS, order -> order.id().equals("nope")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("no message of topic 'orders' matches; the kit saw 2:")
                .hasMessageContaining("Order[id=o-6, cents=6]");
        assertThatThrownBy(() -> kit.journey(ORDERS, order -> order.cents() > 0))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("2 messages of topic 'orders' match, expected one");
    }

    @Test
    @DisplayName("a message nobody consumed yet has a pending journey that says it was never delivered")
    void neverDeliveredIsPending(ShoveKit kit) {
        kit.broker().topology().declare(ORDERS);
        kit.publisher().publish(ORDERS, new Order("o-8", 8));

        Journey<Order> journey = kit.journey(ORDERS, order -> order.id().equals("o-8"));
        ShoveAssertions.assertThat(journey).isPending().wasHandled(0);
        assertThat(journey.describe()).contains("(never delivered to the group)");
        assertThatThrownBy(() -> ShoveAssertions.assertThat(journey).wasAcknowledged())
                .hasMessageContaining("did the test wait for the topic to go idle?");
    }

    @Test
    @DisplayName("a message consumed only by a group not made through the kit has no journey, and the error says why")
    void otherGroupsAreNotRecorded(ShoveKit kit) {
        kit.broker()
                .consumerGroup()
                .register(ORDERS, () -> (order, meta, ctx) -> Outcome.ack())
                .start();
        kit.publisher().publish(ORDERS, new Order("o-9", 9));
        kit.awaitIdle(ORDERS);

        assertThatThrownBy(() -> kit.journey(ORDERS, order -> order.id().equals("o-9")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("was consumed only by groups not made through kit.consumerGroup() [orders]");
    }

    @Test
    @DisplayName("journeys(topic) gives one journey per message, in the order the kit saw them")
    void journeysOfATopic(ShoveKit kit) {
        kit.consumerGroup()
                .register(ORDERS, () -> (order, meta, ctx) -> Outcome.ack())
                .start();
        kit.publisher().publish(ORDERS, new Order("j-1", 1));
        kit.publisher().publish(ORDERS, new Order("j-2", 2));
        kit.awaitIdle(ORDERS);

        List<Journey<Order>> journeys = kit.journeys(ORDERS);
        assertThat(journeys).extracting(j -> j.message().orElseThrow().id()).containsExactly("j-1", "j-2");
        assertThat(journeys).allMatch(j -> j.fate() == Journey.Fate.ACKNOWLEDGED);
    }
}
