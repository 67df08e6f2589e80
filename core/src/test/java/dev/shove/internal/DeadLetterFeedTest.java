package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ShoveHeaders;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.Settlement;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class DeadLetterFeedTest {

    /** Records what the feed delivers, in order. */
    private static final class Sink implements DeliverySink {
        final List<Delivery> received = new CopyOnWriteArrayList<>();

        @Override
        public void deliver(Delivery delivery) {
            received.add(delivery);
        }

        @Override
        public List<Delivery> withdraw(Predicate<? super Delivery> which) {
            return List.of();
        }

        @Override
        public void failed(Throwable cause) {}

        List<String> ids() {
            return received.stream()
                    .map(d -> d.headers().get(ShoveHeaders.MESSAGE_ID))
                    .toList();
        }
    }

    private static void offer(DeadLetterFeed feed, String id) {
        feed.offer(id.getBytes(StandardCharsets.UTF_8), Map.of(ShoveHeaders.MESSAGE_ID, id));
    }

    private static void settle(DeadLetterFeed feed, Delivery delivery, Settlement settlement) {
        AtomicReference<Throwable> failure = new AtomicReference<>(new AssertionError("not called"));
        feed.settle(delivery, settlement, failure::set);
        assertThat(failure.get())
                .as("the settlement of %s is confirmed", delivery.deliveryId())
                .isNull();
    }

    @Test
    void deliversNoMoreThanTheWindowAndTheRestInOrderAsEntriesSettle() {
        DeadLetterFeed feed = new DeadLetterFeed("orders", "orders-dlq", 2, false, false);
        Sink sink = new Sink();
        feed.open(sink);
        for (String id : List.of("a", "b", "c", "d")) {
            offer(feed, id);
        }
        assertThat(sink.ids()).containsExactly("a", "b");

        settle(feed, sink.received.getFirst(), Settlement.ACK);
        assertThat(sink.ids()).containsExactly("a", "b", "c");
        settle(feed, sink.received.get(1), Settlement.ACK);
        settle(feed, sink.received.get(2), Settlement.ACK);
        assertThat(sink.ids()).containsExactly("a", "b", "c", "d");
    }

    @Test
    void entriesOfferedBeforeOpeningWaitForTheEngine() {
        DeadLetterFeed feed = new DeadLetterFeed("orders", "orders-dlq", 10, true, true);
        offer(feed, "early");
        Sink sink = new Sink();
        feed.open(sink);
        assertThat(sink.ids()).containsExactly("early");
        Delivery early = sink.received.getFirst();
        assertThat(early.queue()).isEqualTo("orders-dlq");
        assertThat(early.payload()).isEqualTo("early".getBytes(StandardCharsets.UTF_8));
        assertThat(early.deliveryCount()).isEqualTo(1);
        assertThat(early.timestampMs()).isPositive();
    }

    @Test
    void aReturnedEntryIsDeliveredAgainFirst() {
        DeadLetterFeed feed = new DeadLetterFeed("orders", "orders-dlq", 1, false, false);
        Sink sink = new Sink();
        feed.open(sink);
        offer(feed, "a");
        offer(feed, "b");
        settle(feed, sink.received.getFirst(), Settlement.RETURN);
        assertThat(sink.ids()).containsExactly("a", "a");
    }

    @Test
    void pausedOrClosedDeliversNothingMore() {
        DeadLetterFeed feed = new DeadLetterFeed("orders", "orders-dlq", 1, false, false);
        Sink sink = new Sink();
        feed.open(sink);
        offer(feed, "a");
        offer(feed, "b");
        feed.pause();
        settle(feed, sink.received.getFirst(), Settlement.ACK);
        assertThat(sink.ids()).containsExactly("a");

        feed.close();
        offer(feed, "late");
        assertThat(sink.ids()).containsExactly("a");
    }
}
