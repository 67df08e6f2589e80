package dev.shove.spi;

import java.util.List;
import java.util.function.Predicate;

/**
 * The engine's side of a {@link Subscription}: where a transport hands over what it received. Implemented by the
 * engine; thread-safe; every method returns quickly and never blocks on handlers.
 *
 * @since 0.1.0
 */
public interface DeliverySink {

    /**
     * One message received. Must not be called more than {@link SubscriptionRequest#window()} times ahead of settles.
     *
     * @param delivery the message and what the broker knows about it
     */
    void deliver(Delivery delivery);

    /**
     * Messages received together (one poll, one fetch). Transports that receive in batches call this so the engine
     * can form batches without waiting; the default delivers one by one.
     *
     * @param deliveries the messages, in the order received
     */
    default void deliverAll(List<? extends Delivery> deliveries) {
        for (Delivery d : deliveries) {
            deliver(d);
        }
    }

    /**
     * Takes back deliveries the engine holds but has not started handling, for example those of a partition this
     * consumer just lost in a rebalance. The engine forgets them (it will not settle them) and returns them; messages
     * whose handler already runs stay with the engine and are settled as usual.
     *
     * @param which chooses the deliveries to take back
     * @return the deliveries taken back; the transport owns them again
     */
    List<Delivery> withdraw(Predicate<? super Delivery> which);

    /**
     * The subscription failed for good (the transport gave up reconnecting, or the broker refused it). The engine
     * stops this consumer and reports it in the supervisor's outcome. Transient failures the transport recovers from
     * must not be reported here.
     *
     * @param cause why, for the log and the supervisor's outcome
     */
    void failed(Throwable cause);
}
