package dev.shove.examples;

import static dev.shove.test.ShoveAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.examples.Quickstart.Ledger;
import dev.shove.examples.Quickstart.OrderHandler;
import dev.shove.examples.Quickstart.OrderPaid;
import dev.shove.examples.Quickstart.Shop;
import dev.shove.test.Published;
import dev.shove.test.ShoveKit;
import dev.shove.test.ShoveTest;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The quickstart's handler tested with the test kit ({@code shove-test}): the same journeys as the quickstart prints,
 * asserted on the facts the kit recorded, on whatever broker the kit chose (in memory here; set {@code
 * SHOVE_TEST_BROKER_URI} to run them on another). See {@code docs/concepts/testing.md}.
 */
// region kit-test
@ShoveTest
class OrderHandlerKitTest {
    private static final Duration HOLD = Duration.ofMillis(50);
    private static final Topic<OrderPaid> ORDERS = Quickstart.ordersTopic(HOLD);

    // the quickstart's context: a ledger that is down the first time it sees an order, and its journey log, unprinted
    private final Shop shop = new Shop(
            new Ledger(), new Quickstart.Journey(new PrintStream(OutputStream.nullOutputStream()), HOLD, HOLD));

    @Test
    @DisplayName("an order the ledger fails the first time is retried once, then booked")
    void retriedOnceThenBooked(ShoveKit kit) {
        kit.consumerGroup()
                .withContext(shop)
                .register(ORDERS, OrderHandler::new)
                .start();

        kit.publisher().publish(ORDERS, new OrderPaid("o-1", 1299));
        kit.awaitIdle(ORDERS); // nothing ready, in flight or held; no handler running

        assertThat(kit.journey(ORDERS, order -> order.orderId().equals("o-1")))
                .hasOutcomes(Outcome.retry(), Outcome.ack())
                .wasRetried(1)
                .wasAcknowledged();
    }

    @Test
    @DisplayName("an order with an invalid amount is dead-lettered with the reason, and handleDead sees it")
    void invalidAmountIsDeadLettered(ShoveKit kit) {
        kit.consumerGroup()
                .withContext(shop)
                .register(ORDERS, OrderHandler::new)
                .start();

        kit.publisher().publishWithHeaders(ORDERS, new OrderPaid("o-2", -5), Map.of("x-trace-id", "t-7"));
        kit.awaitIdle(ORDERS); // waits for the dead-letter consumer too

        assertThat(kit.journey(ORDERS, order -> order.orderId().equals("o-2")))
                .wasHandled(1)
                .wasDeadLettered("rejected: amount must be positive")
                .deadLetterWasHandled();
        Published<OrderPaid> published = kit.published(ORDERS).getFirst();
        assertThat(published.header("x-trace-id")).contains("t-7");
    }
}
// endregion kit-test
