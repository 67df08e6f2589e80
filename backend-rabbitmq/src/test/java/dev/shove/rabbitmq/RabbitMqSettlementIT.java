package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The settlement primitives on a real broker: hold-and-ack, dead-letter-and-ack, return, plain acks, stats. */
class RabbitMqSettlementIT {
    record Order(String id, int n) {}

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    @Test
    @DisplayName("a retry travels through the hold tier and comes back with retryCount + 1, every header kept")
    void retryThroughHoldTier() throws Exception {
        Topic<Order> topic = Topic.builder(admin.unique("retry"), Order.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        List<MessageMetadata> seen = new CopyOnWriteArrayList<>();
        try (Broker<RabbitMq> broker = admin.connect("retry")) {
            broker.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                seen.add(meta);
                return meta.retryCount() < 2 ? Outcome.retry() : Outcome.ack();
            });
            group.start();
            broker.publisher()
                    .publishWithHeaders(topic, new Order("o-1", 1), Map.of("tenant", "acme", "x-custom", "1"));
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 3);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(seen).extracting(MessageMetadata::retryCount).containsExactly(0, 1, 2);
        String id = seen.getFirst().headers().get(ShoveHeaders.MESSAGE_ID);
        for (MessageMetadata meta : seen) {
            assertThat(meta.headers())
                    .containsEntry("tenant", "acme")
                    .containsEntry("x-custom", "1")
                    .containsEntry(ShoveHeaders.MESSAGE_ID, id)
                    .doesNotContainKey("x-death");
        }
        assertThat(admin.depth(topic.name())).isZero();
        assertThat(admin.depth(topic.holdTiers().getFirst().queue())).isZero();
        assertThat(admin.depth(topic.dlq().orElseThrow())).isZero();
    }

    @Test
    @DisplayName("a rejected message is published to the DLQ with reason, original queue and death count, then acked")
    void deadLetterCopy() throws Exception {
        Topic<Order> topic = Topic.builder(admin.unique("dead"), Order.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        AtomicInteger handled = new AtomicInteger();
        try (Broker<RabbitMq> broker = admin.connect("dead")) {
            broker.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                        handled.incrementAndGet();
                        return Outcome.reject("bad order");
                    });
            group.start();
            broker.publisher().publishWithHeaders(topic, new Order("o-2", 2), Map.of("tenant", "acme"));
            String dlq = topic.dlq().orElseThrow();
            await().atMost(Duration.ofSeconds(10)).until(() -> admin.depth(dlq) == 1);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
            GetResponse dead = admin.get(dlq);
            Map<String, String> headers = AmqpMessages.toStrings(dead.getProps().getHeaders());
            assertThat(headers)
                    .containsEntry(ShoveHeaders.DEATH_REASON, "rejected: bad order")
                    .containsEntry(ShoveHeaders.ORIGINAL_QUEUE, topic.name())
                    .containsEntry(ShoveHeaders.DEATH_COUNT, "1")
                    .containsEntry("tenant", "acme");
            assertThat(dead.getProps().getHeaders()).doesNotContainKey("x-death");
            assertThat(dead.getProps().getDeliveryMode()).isEqualTo(2);
            assertThat(dead.getProps().getContentType()).isEqualTo("application/json");
            assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).contains("o-2");
        }
        assertThat(handled).hasValue(1);
        assertThat(admin.depth(topic.name())).isZero();
    }

    @Test
    @DisplayName("500 acked messages leave the queue empty with nothing unacknowledged (coalesced acks are exact)")
    void coalescedAcks() throws Exception {
        Topic<Order> topic = Topic.builder(admin.unique("acks"), Order.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (Broker<RabbitMq> broker = admin.connect("acks")) {
            broker.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder().consumers(2, 2).prefetch(20).build(),
                    () -> (m, meta, c) -> {
                        seen.add(m.id());
                        return Outcome.ack();
                    });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, 500)
                                    .mapToObj(i -> new Order("o-" + i, i))
                                    .toList());
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 500);
            RabbitMqTransport transport = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                QueueStats stats = transport.stats(topic);
                assertThat(stats.ready()).isZero();
                assertThat(stats.inFlight()).isZero();
            });
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(admin.depth(topic.name())).isZero();
    }

    @Test
    @DisplayName("at shutdown, messages received but not started go back to their queue in order (nack, requeue)")
    void returnOnShutdown() throws Exception {
        Topic<Order> topic = Topic.builder(admin.unique("return"), Order.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Order::id)
                .routingShards(1)
                .build();
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Broker<RabbitMq> broker = admin.connect("return")) {
            broker.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                first.countDown();
                release.await();
                return Outcome.ack();
            });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, 5)
                                    .mapToObj(i -> new Order("same-key", i))
                                    .toList());
            first.await();
            // Received: all five (the window is prefetch + lane buffer); started: the first only.
            await().atMost(Duration.ofSeconds(10)).until(() -> admin.depth(topic.shardName(0)) == 0);
            Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                release.countDown();
            });
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        List<GetResponse> back = admin.drain(topic.shardName(0));
        assertThat(back)
                .extracting(r -> new String(r.getBody(), StandardCharsets.UTF_8))
                .containsExactly(
                        "{\"id\":\"same-key\",\"n\":1}",
                        "{\"id\":\"same-key\",\"n\":2}",
                        "{\"id\":\"same-key\",\"n\":3}",
                        "{\"id\":\"same-key\",\"n\":4}");
        assertThat(back).allMatch(r -> r.getEnvelope().isRedeliver());
    }

    @Test
    @DisplayName("with confirms, a reply is published to its topic before the handled message is acked")
    void replyWithConfirms() throws Exception {
        Topic<Order> orders = Topic.builder(admin.unique("req"), Order.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<Order> receipts = Topic.builder(admin.unique("rep"), Order.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        try (Broker<RabbitMq> broker = admin.connect("reply")) {
            assertThat(broker.capabilities().transactions()).isFalse();
            broker.topology().declare(orders);
            broker.topology().declare(receipts);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    orders,
                    ConsumerGroupConfig.ofDefaults(),
                    () -> (m, meta, c) -> Outcome.reply(receipts, new Order(m.id() + "-receipt", m.n())));
            group.start();
            broker.publisher().publish(orders, new Order("o-5", 5));
            await().atMost(Duration.ofSeconds(10)).until(() -> admin.depth(receipts.name()) == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> admin.depth(orders.name()) == 0);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(new String(admin.get(receipts.name()).getBody(), StandardCharsets.UTF_8))
                .isEqualTo("{\"id\":\"o-5-receipt\",\"n\":5}");
    }

    @Test
    @DisplayName("stats reads the management API, and falls back to a passive declare without it")
    void stats() throws Exception {
        Topic<Order> topic = Topic.builder(admin.unique("stats"), Order.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        try (Broker<RabbitMq> broker = admin.connect("stats");
                Broker<RabbitMq> passive = admin.connect(admin.config(admin.unique("stats-passive")).toBuilder()
                        .noManagementApi()
                        .build())) {
            broker.topology().declare(topic);
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, 7)
                                    .mapToObj(i -> new Order("o-" + i, i))
                                    .toList());
            RabbitMqTransport viaApi = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            RabbitMqTransport viaDeclare =
                    passive.unwrap(RabbitMqTransport.class).orElseThrow();
            assertThat(viaDeclare.stats(topic)).isEqualTo(new QueueStats(7, 0, 0));
            Topic<Order> sequenced = Topic.builder(admin.unique("stats-seq"), Order.class)
                    .holdQueue(Duration.ofSeconds(1))
                    .dlq()
                    .sequenced(SequenceFailure.SKIP, Order::id)
                    .routingShards(3)
                    .build();
            broker.topology().declare(sequenced);
            broker.publisher()
                    .publishBatch(
                            sequenced,
                            IntStream.range(0, 9)
                                    .mapToObj(i -> new Order("k" + i, i))
                                    .toList());
            assertThat(viaDeclare.stats(sequenced)).as("summed over the shards").isEqualTo(new QueueStats(9, 0, 0));
            // The management API refreshes queue statistics every few seconds.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> viaApi.stats(topic).ready() == 7);
        }
    }
}
