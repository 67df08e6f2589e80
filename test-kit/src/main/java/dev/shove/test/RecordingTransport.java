package dev.shove.test;

import dev.shove.BrokerConfig;
import dev.shove.Position;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A transport that passes everything to the backend's own and tells the {@link Ledger} what went by: publishes the
 * broker accepted, deliveries handed to the engine, the settlements the engine asked for (their copies and replies),
 * and dead letters removed by the dead-letter tools. It changes nothing on the way: the engine and the broker see
 * each other exactly as without it.
 */
final class RecordingTransport implements Transport {
    private final Transport delegate;
    private final Ledger ledger;

    private RecordingTransport(Transport delegate, Ledger ledger) {
        this.delegate = delegate;
        this.ledger = ledger;
    }

    /** A broker config whose transport is the backend's own, recorded into a ledger. */
    static final class Config<B> implements BrokerConfig<B> {
        private final BrokerConfig<B> config;
        private final Ledger ledger;
        private volatile @Nullable RecordingTransport opened;

        Config(BrokerConfig<B> config, Ledger ledger) {
            this.config = config;
            this.ledger = ledger;
        }

        @Override
        public Transport open(TransportContext context) {
            ledger.opened(context.wireHeaders());
            RecordingTransport transport = new RecordingTransport(config.open(context), ledger);
            opened = transport;
            return transport;
        }

        /** The transport {@link #open} made. */
        RecordingTransport transport() {
            RecordingTransport transport = opened;
            if (transport == null) {
                throw new IllegalStateException("the broker is not connected");
            }
            return transport;
        }

        @Override
        public String toString() {
            return config.toString();
        }
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public Capabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public Map<String, String> objectNames(Topic<?> topic) {
        return delegate.objectNames(topic);
    }

    @Override
    public void declare(Topic<?> topic) {
        delegate.declare(topic);
    }

    @Override
    public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
        ledger.publishing(topic);
        CompletableFuture<Void> accepted;
        try {
            accepted = delegate.publish(topic, message);
        } catch (RuntimeException | Error e) {
            ledger.published(topic, message, false);
            throw e;
        }
        return recorded(topic, message, accepted);
    }

    @Override
    public List<CompletableFuture<Void>> publishAll(Topic<?> topic, List<OutboundMessage> messages) {
        messages.forEach(m -> ledger.publishing(topic));
        List<CompletableFuture<Void>> accepted;
        try {
            accepted = delegate.publishAll(topic, messages);
        } catch (RuntimeException | Error e) {
            messages.forEach(m -> ledger.published(topic, m, false));
            throw e;
        }
        List<CompletableFuture<Void>> out = new ArrayList<>(accepted.size());
        for (int i = 0; i < accepted.size(); i++) {
            out.add(recorded(topic, messages.get(i), accepted.get(i)));
        }
        return out;
    }

    /** The future the engine waits on completes only after the ledger has the message. */
    private CompletableFuture<Void> recorded(
            Topic<?> topic, OutboundMessage message, CompletableFuture<Void> accepted) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        accepted.whenComplete((ok, failure) -> {
            try {
                ledger.published(topic, message, failure == null);
            } finally {
                if (failure == null) {
                    out.complete(null);
                } else {
                    out.completeExceptionally(failure);
                }
            }
        });
        return out;
    }

    @Override
    public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
        Ledger.Tap tap = ledger.subscribing(request);
        try {
            return new RecordingSubscription(delegate.subscribe(request, new RecordingSink(sink, tap)), tap);
        } catch (RuntimeException | Error e) {
            ledger.closed(tap);
            throw e;
        }
    }

    @Override
    public Subscription subscribeLocal(
            SubscriptionRequest request, DeliverySink sink, Function<DeliverySink, Subscription> source) {
        Ledger.Tap tap = ledger.subscribing(request);
        try {
            return new RecordingSubscription(
                    delegate.subscribeLocal(request, new RecordingSink(sink, tap), source), tap);
        } catch (RuntimeException | Error e) {
            ledger.closed(tap);
            throw e;
        }
    }

    @Override
    public QueueStats stats(Topic<?> topic) {
        return delegate.stats(topic);
    }

    @Override
    public QueueStats stats(Topic<?> topic, String group) {
        return delegate.stats(topic, group);
    }

    @Override
    public DeadLetterStore deadLetters(Topic<?> topic, String group) {
        return new RecordingStore(delegate.deadLetters(topic, group), topic);
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(this) ? Optional.of(type.cast(this)) : delegate.unwrap(type);
    }

    @Override
    public void ping(Duration timeout) {
        delegate.ping(timeout);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "recorded " + delegate;
    }

    /** Tells the ledger what the backend hands to the engine, then hands it on. */
    private final class RecordingSink implements DeliverySink {
        private final DeliverySink sink;
        private final Ledger.Tap tap;

        RecordingSink(DeliverySink sink, Ledger.Tap tap) {
            this.sink = sink;
            this.tap = tap;
        }

        @Override
        public void deliver(Delivery delivery) {
            ledger.delivered(tap, List.of(delivery));
            sink.deliver(delivery);
        }

        @Override
        public void deliverAll(List<? extends Delivery> deliveries) {
            ledger.delivered(tap, deliveries);
            sink.deliverAll(deliveries);
        }

        @Override
        public List<Delivery> withdraw(Predicate<? super Delivery> which) {
            List<Delivery> withdrawn = sink.withdraw(which);
            ledger.released(tap, withdrawn);
            return withdrawn;
        }

        @Override
        public void failed(Throwable cause) {
            sink.failed(cause);
        }
    }

    /** Tells the ledger what the engine asks of a delivery, and when the broker has done it. */
    private final class RecordingSubscription implements Subscription {
        private final Subscription delegate;
        private final Ledger.Tap tap;

        RecordingSubscription(Subscription delegate, Ledger.Tap tap) {
            this.delegate = delegate;
            this.tap = tap;
        }

        @Override
        public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
            Ledger.Settling settling = ledger.settling(tap, delivery, settlement);
            try {
                delegate.settle(delivery, settlement, failure -> {
                    try {
                        ledger.settled(tap, delivery, settling, failure);
                    } finally {
                        callback.settled(failure);
                    }
                });
            } catch (RuntimeException | Error e) {
                ledger.settled(tap, delivery, settling, e);
                throw e;
            }
        }

        @Override
        public void seek(Position position, List<Delivery> abandoned) {
            delegate.seek(position, abandoned);
            ledger.released(tap, abandoned);
        }

        @Override
        public void waiting(Delivery delivery, int retryCount, long notBeforeEpochMs) {
            ledger.waiting(tap, delivery, retryCount);
            delegate.waiting(delivery, retryCount, notBeforeEpochMs);
        }

        @Override
        public void pause() {
            ledger.paused(tap);
            delegate.pause();
        }

        @Override
        public void close() {
            try {
                delegate.close();
            } finally {
                ledger.closed(tap);
            }
        }
    }

    /** A dead-letter store whose removals the ledger hears of. */
    private final class RecordingStore implements DeadLetterStore {
        private final DeadLetterStore delegate;
        private final Topic<?> topic;

        RecordingStore(DeadLetterStore delegate, Topic<?> topic) {
            this.delegate = delegate;
            this.topic = topic;
        }

        @Override
        public String queue() {
            return delegate.queue();
        }

        @Override
        public long count() {
            return delegate.count();
        }

        @Override
        public boolean readsInPlace() {
            return delegate.readsInPlace();
        }

        @Override
        public Scan scan() {
            Scan scan = delegate.scan();
            return new Scan() {
                @Override
                public List<Delivery> next(int max) {
                    return scan.next(max);
                }

                @Override
                public void remove(List<Delivery> letters) {
                    scan.remove(letters);
                    ledger.deadLettersRemoved(topic, letters);
                }

                @Override
                public void close() {
                    scan.close();
                }
            };
        }
    }
}
