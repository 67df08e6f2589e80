package dev.shove.rabbitmq;

import dev.shove.BrokerConfig;
import dev.shove.Topic;
import dev.shove.conformance.BrokerConformance;
import dev.shove.spi.Capabilities;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole conformance kit against the real RabbitMQ. Capability-gated contracts skip themselves: RabbitMQ (classic
 * queues) has no exact delays (tiers are TTL queues), no delivery counter, no partition/offset coordinates, no broker
 * timestamp, and no log to seek in (so a broadcast subscription cannot start before the tail). Every queue and
 * broadcast exchange a contract declares is deleted after the contract.
 */
class RabbitMqConformanceIT extends BrokerConformance<RabbitMq> {
    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    /** The backend's settings under test: publisher confirms, the default. */
    protected RabbitMqConfig rabbitConfig() {
        return RabbitMqConfig.of(RabbitAdmin.uri());
    }

    @Override
    protected final BrokerConfig<RabbitMq> brokerConfig() {
        RabbitMqConfig config = rabbitConfig();
        return context -> new Recording(config.open(context));
    }

    @Override
    protected Duration patience() {
        return Duration.ofSeconds(20);
    }

    /** The RabbitMQ transport, handing every topic declared to the fixture, which deletes its queues afterwards. */
    private record Recording(Transport delegate) implements Transport {
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
            admin.deleteLater(topic);
            delegate.declare(topic);
        }

        @Override
        public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
            return delegate.publish(topic, message);
        }

        @Override
        public List<CompletableFuture<Void>> publishAll(Topic<?> topic, List<OutboundMessage> messages) {
            return delegate.publishAll(topic, messages);
        }

        @Override
        public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
            return delegate.subscribe(request, sink);
        }

        @Override
        public QueueStats stats(Topic<?> topic) {
            return delegate.stats(topic);
        }

        @Override
        public DeadLetterStore deadLetters(Topic<?> topic, String group) {
            return delegate.deadLetters(topic, group);
        }

        @Override
        public void ping(Duration timeout) {
            delegate.ping(timeout);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
