package dev.shove.spi;

import dev.shove.Position;
import java.util.List;

/**
 * A running consumption of one queue, created by {@link Transport#subscribe}. One subscription is one consumer of a
 * group (one channel, one KafkaConsumer, one pull consumer).
 *
 * <p><b>Flow control.</b> The transport hands deliveries to the {@link DeliverySink} and must never have more than
 * {@link SubscriptionRequest#window()} of them delivered and not yet passed to {@link #settle}. It should keep the
 * window full while messages are waiting.
 *
 * <p><b>Settlement.</b> {@link #settle} only submits: it returns at once, and the transport carries the settlement
 * out when it likes (coalescing acknowledgements by count or a short deadline is encouraged), then calls the
 * callback exactly once: with null when the broker has durably taken the settlement, or with the failure. A failed
 * settlement must leave the message to be redelivered by the broker (never acknowledged without its copies).
 *
 * <p>Thread-safe: {@code settle} is called from many threads at once.
 *
 * @since 0.1.0
 */
public interface Subscription extends AutoCloseable {

    /**
     * Submits the settlement of one delivery of this subscription. Copies first, each durably accepted by the broker,
     * then the acknowledgement (or, for {@link Settlement.Action#RETURN}, the message goes back to the broker for
     * redelivery, as close to its original position as the broker allows).
     *
     * @param delivery a delivery of this subscription, not yet settled
     * @param settlement what to publish and the final action
     * @param callback told once when the settlement is done or has failed
     */
    void settle(Delivery delivery, Settlement settlement, SettleCallback callback);

    /**
     * Moves a log-like subscription ({@link Capabilities#seek()}) to {@code position}: the next delivery is the message
     * at the position (a {@link dev.shove.Position.Captured captured} position: that very message), then the rest in
     * order. {@code abandoned} are deliveries the engine received and dropped without settling them because of the
     * move; the transport forgets them (frees their window; never acknowledges them). Deliveries still being handled
     * are settled as usual.
     *
     * @param position where the next delivery starts
     * @param abandoned deliveries the engine dropped unsettled because of the move
     * @throws IllegalArgumentException when the position does not exist (trimmed, out of range); the subscription
     *     then stays where it was
     * @throws UnsupportedOperationException when the transport has no log
     */
    default void seek(Position position, List<Delivery> abandoned) {
        throw new UnsupportedOperationException("this transport cannot seek");
    }

    /**
     * The engine keeps {@code delivery} unsettled and will run its handler again at {@code notBeforeEpochMs} with
     * {@code retryCount}: a retry of a sequenced topic waits in place, holding its key. Called on every such wait,
     * before the delivery is settled or returned.
     *
     * <p>A transport that can keep this beside the message's unacknowledged position (Kafka: in the committed
     * offset's metadata) does, and declares {@link Capabilities#durableSequencedRetries()}: when it delivers the
     * message again, in this subscription or another (a restart, a rebalance), it sets the {@link
     * dev.shove.ShoveHeaders#RETRY_COUNT} and {@link dev.shove.ShoveHeaders#NOT_BEFORE} headers of the delivery to
     * these values, so that the retry budget and the delay survive. The state is forgotten once the delivery is
     * settled. The default keeps nothing: a message delivered again starts from the retry count it was published
     * with.
     *
     * @param delivery the delivery that waits, unsettled
     * @param retryCount the retry count its next run will have
     * @param notBeforeEpochMs when its next run is due, in epoch milliseconds
     */
    default void waiting(Delivery delivery, int retryCount, long notBeforeEpochMs) {}

    /**
     * Stops handing over new deliveries. After this returns the sink receives nothing more. Settlements are still
     * accepted. Idempotent.
     */
    void pause();

    /**
     * Ends the subscription: waits (bounded) for submitted settlements to complete, then releases the broker
     * resources. Deliveries that were never settled go back to the broker by its own means (unacked messages are
     * requeued, uncommitted offsets re-read). Idempotent.
     */
    @Override
    void close();
}
