package dev.shove.kafka;

import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * What one consumer holds between the broker and the engine, shared by its poll loop and the helpers the loop calls:
 * the state of each partition it owns, the records fetched and not yet handed out (the backlog), and the count of
 * records handed out and not yet settled (what the window limits).
 *
 * <p>The partition states are replaced by the poll thread only and read by settling threads too; the count is changed
 * by both; the backlog and {@link #withdraw} are poll thread only.
 */
final class PollState {
    final OwnedPartitions owned = new OwnedPartitions();
    final FetchedRecords backlog = new FetchedRecords();
    final AtomicInteger outstanding = new AtomicInteger();

    private final DeliverySink sink;
    private final KafkaSubscription owner;

    PollState(DeliverySink sink, KafkaSubscription owner) {
        this.sink = sink;
        this.owner = owner;
    }

    /**
     * Takes back from the engine the deliveries of this consumer that {@code which} matches and that have not started;
     * they no longer count as outstanding.
     */
    List<Delivery> withdraw(Predicate<KafkaDelivery> which) {
        List<Delivery> withdrawn =
                sink.withdraw(d -> d instanceof KafkaDelivery kd && kd.owner == owner && which.test(kd));
        outstanding.addAndGet(-withdrawn.size());
        return withdrawn;
    }
}
