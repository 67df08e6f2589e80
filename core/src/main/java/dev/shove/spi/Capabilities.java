package dev.shove.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What a transport can do. The engine adapts its decisions to it (exact delays versus hold tiers) and the
 * conformance kit skips exactly the contracts a broker cannot meet. Build with {@link #builder()}; the defaults
 * describe the most limited broker.
 *
 * @param exactDelays the transport can delay a copy by any duration up to {@link #maxExactDelay()} (a timer, a
 *     scheduled message, a delayed nak); otherwise delays are rounded up to hold tiers
 * @param maxExactDelay the longest exact delay; longer delays use hold tiers
 * @param durableRetries a copy waiting out its delay survives a crash of the consuming process
 * @param deliveryCount deliveries carry the broker's own attempt counter
 * @param redeliveryFlag deliveries carry the broker's redelivered flag
 * @param coordinates deliveries carry partition and offset
 * @param timestamps deliveries carry the broker's timestamp
 * @param competingConsumers several subscriptions of one group share the messages of a queue between them
 * @param nativeBatches the transport receives in batches and hands them over with {@link
 *     DeliverySink#deliverAll}; batch registrations then take what arrived without waiting
 * @param seek subscriptions are positions in a log: {@link Subscription#seek} and {@link
 *     SubscriptionRequest#startAt()} work, and deliveries carry a {@link Delivery#position()}
 * @param transactions a settlement's copies and its acknowledgement commit atomically (replies included)
 * @param broadcast topics built with {@code broadcast()} are supported: each subscription receives every message
 * @param durableSequencedRetries a sequenced retry waiting in place keeps its retry count and due time when its
 *     consumer stops, crashes or loses the message in a rebalance: the transport stores what {@link
 *     Subscription#waiting} reports with the message's unacknowledged position and restores it on redelivery
 * @since 0.1.0
 */
public record Capabilities(
        boolean exactDelays,
        Duration maxExactDelay,
        boolean durableRetries,
        boolean deliveryCount,
        boolean redeliveryFlag,
        boolean coordinates,
        boolean timestamps,
        boolean competingConsumers,
        boolean nativeBatches,
        boolean seek,
        boolean transactions,
        boolean broadcast,
        boolean durableSequencedRetries) {

    /**
     * Checks that {@code maxExactDelay} is present (zero when there are no exact delays).
     *
     * @param exactDelays see the class description
     * @param maxExactDelay see the class description
     * @param durableRetries see the class description
     * @param deliveryCount see the class description
     * @param redeliveryFlag see the class description
     * @param coordinates see the class description
     * @param timestamps see the class description
     * @param competingConsumers see the class description
     * @param nativeBatches see the class description
     * @param seek see the class description
     * @param transactions see the class description
     * @param broadcast see the class description
     * @param durableSequencedRetries see the class description
     */
    public Capabilities {
        Objects.requireNonNull(maxExactDelay, "maxExactDelay");
    }

    /** {@return a new builder describing the most limited broker: every flag false, no exact delays} */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link Capabilities}; every flag defaults to false. */
    public static final class Builder {
        private boolean exactDelays;
        private Duration maxExactDelay = Duration.ZERO;
        private boolean durableRetries;
        private boolean deliveryCount;
        private boolean redeliveryFlag;
        private boolean coordinates;
        private boolean timestamps;
        private boolean competingConsumers;
        private boolean nativeBatches;
        private boolean seek;
        private boolean transactions;
        private boolean broadcast;
        private boolean durableSequencedRetries;

        private Builder() {}

        /**
         * Sets {@link Capabilities#exactDelays()}: the transport delays a copy by any duration up to {@code max};
         * longer delays use hold tiers.
         *
         * @param max the longest exact delay
         * @return this builder
         */
        public Builder exactDelays(Duration max) {
            this.exactDelays = true;
            this.maxExactDelay = Objects.requireNonNull(max, "max");
            return this;
        }

        /**
         * Sets {@link Capabilities#durableRetries()}: a copy waiting out its delay survives a crash of the consumer.
         *
         * @return this builder
         */
        public Builder durableRetries() {
            this.durableRetries = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#deliveryCount()}: deliveries carry the broker's own attempt counter.
         *
         * @return this builder
         */
        public Builder deliveryCount() {
            this.deliveryCount = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#redeliveryFlag()}: deliveries carry the broker's redelivered flag.
         *
         * @return this builder
         */
        public Builder redeliveryFlag() {
            this.redeliveryFlag = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#coordinates()}: deliveries carry partition and offset.
         *
         * @return this builder
         */
        public Builder coordinates() {
            this.coordinates = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#timestamps()}: deliveries carry the broker's timestamp.
         *
         * @return this builder
         */
        public Builder timestamps() {
            this.timestamps = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#competingConsumers()}: a group's subscriptions share a queue's messages.
         *
         * @return this builder
         */
        public Builder competingConsumers() {
            this.competingConsumers = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#nativeBatches()}: the transport hands over what it receives in batches.
         *
         * @return this builder
         */
        public Builder nativeBatches() {
            this.nativeBatches = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#seek()}: subscriptions are positions in a log and can move.
         *
         * @return this builder
         */
        public Builder seek() {
            this.seek = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#transactions()}: a settlement's copies and acknowledgement commit atomically.
         *
         * @return this builder
         */
        public Builder transactions() {
            this.transactions = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#broadcast()}: broadcast topics are supported.
         *
         * @return this builder
         */
        public Builder broadcast() {
            this.broadcast = true;
            return this;
        }

        /**
         * Sets {@link Capabilities#durableSequencedRetries()}: a sequenced retry waiting in place survives its
         * consumer.
         *
         * @return this builder
         */
        public Builder durableSequencedRetries() {
            this.durableSequencedRetries = true;
            return this;
        }

        /** {@return the capabilities as set; every flag not set is false} */
        public Capabilities build() {
            return new Capabilities(
                    exactDelays,
                    maxExactDelay,
                    durableRetries,
                    deliveryCount,
                    redeliveryFlag,
                    coordinates,
                    timestamps,
                    competingConsumers,
                    nativeBatches,
                    seek,
                    transactions,
                    broadcast,
                    durableSequencedRetries);
        }
    }
}
