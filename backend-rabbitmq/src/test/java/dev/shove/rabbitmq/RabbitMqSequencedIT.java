package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Sequenced topics on single-active-consumer shards: order per key across retries, FAIL_ALL, shard hold tiers. */
class RabbitMqSequencedIT {
    record Step(String key, int n) {}

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    @Test
    @DisplayName("each key is handled in publish order, a retrying message holding back the later ones of its key")
    void orderAcrossRetries() {
        Topic<Step> topic = Topic.builder(admin.unique("order"), Step.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Step::key)
                .routingShards(2)
                .build();
        Map<String, List<Integer>> acked = new ConcurrentHashMap<>();
        List<String> keys = List.of("alpha", "beta", "gamma", "delta");
        try (Broker<RabbitMq> broker = admin.connect("order")) {
            broker.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder().consumers(2, 2).prefetch(4).build(),
                    () -> (m, meta, c) -> {
                        if (m.n() % 4 == 1 && meta.retryCount() < 2) {
                            return Outcome.retry();
                        }
                        acked.computeIfAbsent(m.key(), k -> new CopyOnWriteArrayList<>())
                                .add(m.n());
                        return Outcome.ack();
                    });
            group.start();
            List<Step> steps = new ArrayList<>();
            for (int n = 0; n < 10; n++) {
                for (String key : keys) {
                    steps.add(new Step(key, n));
                }
            }
            broker.publisher().publishBatch(topic, steps);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> acked.values().stream().mapToInt(List::size).sum() == 40);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        for (String key : keys) {
            assertThat(acked.get(key)).as("key %s", key).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        }
    }

    @Test
    @DisplayName("FAIL_ALL: a rejected message dead-letters the rest of its key; other keys flow on")
    void failAll() throws Exception {
        Topic<Step> topic = Topic.builder(admin.unique("failall"), Step.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .sequenced(SequenceFailure.FAIL_ALL, Step::key)
                .routingShards(2)
                .build();
        List<String> acked = new CopyOnWriteArrayList<>();
        List<String> dead = new CopyOnWriteArrayList<>();
        try (Broker<RabbitMq> broker = admin.connect("failall")) {
            broker.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> new MessageHandler<Step, NoContext>() {
                @Override
                public Outcome handle(Step m, MessageMetadata meta, NoContext c) {
                    if (m.key().equals("bad") && m.n() == 3) {
                        return Outcome.reject("broken step");
                    }
                    acked.add(m.key() + m.n());
                    return Outcome.ack();
                }

                @Override
                public void handleDead(Step m, DeadMessageMetadata meta, NoContext c) {
                    dead.add(m.key() + m.n() + ":" + meta.reason());
                }
            });
            group.start();
            List<Step> steps = new ArrayList<>();
            for (int n = 1; n <= 5; n++) {
                steps.add(new Step("bad", n));
                steps.add(new Step("good", n));
            }
            broker.publisher().publishBatch(topic, steps);
            await().atMost(Duration.ofSeconds(30)).until(() -> dead.size() == 3 && acked.size() == 7);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(acked.stream().filter(s -> s.startsWith("bad"))).containsExactly("bad1", "bad2");
        assertThat(acked.stream().filter(s -> s.startsWith("good")))
                .containsExactly("good1", "good2", "good3", "good4", "good5");
        assertThat(dead)
                .containsExactlyInAnyOrder(
                        "bad3:rejected: broken step", "bad4:sequence-poisoned", "bad5:sequence-poisoned");
        assertThat(admin.depth(topic.dlq().orElseThrow()))
                .as("the dead letters stay in the queue after handleDead")
                .isEqualTo(3);
    }

    @Test
    @DisplayName("a hold copy of a shard's message waits in that shard's own tier and returns to the same shard")
    void shardHoldTier() throws Exception {
        Topic<Step> topic = Topic.builder(admin.unique("shardhold"), Step.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Step::key)
                .routingShards(3)
                .build();
        BlockingQueue<Delivery> received = new LinkedBlockingQueue<>();
        try (Broker<RabbitMq> broker = admin.connect("shardhold")) {
            broker.topology().declare(topic);
            RabbitMqTransport transport = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            Subscription subscription = transport.subscribe(
                    new SubscriptionRequest(topic, SubscriptionRequest.Source.MAIN, topic.name(), "probe-0", 10),
                    new DeliverySink() {
                        @Override
                        public void deliver(Delivery delivery) {
                            received.add(delivery);
                        }

                        @Override
                        public List<Delivery> withdraw(Predicate<? super Delivery> which) {
                            return List.of();
                        }

                        @Override
                        public void failed(Throwable cause) {
                            throw new AssertionError("subscription failed", cause);
                        }
                    });
            try {
                broker.publisher().publishWithHeaders(topic, new Step("k-7", 1), Map.of("tenant", "acme"));
                Delivery first = received.poll(10, TimeUnit.SECONDS);
                assertThat(first).isNotNull();
                String shard = first.queue();
                assertThat(shard).startsWith(topic.name() + "-seq-");
                Map<String, String> headers = new HashMap<>(first.headers());
                headers.put(ShoveHeaders.RETRY_COUNT, "1");
                CompletableFuture<Throwable> settled = new CompletableFuture<>();
                subscription.settle(
                        first,
                        Settlement.forward(
                                new Settlement.Copy.ToHold(0, Duration.ofMillis(300), first.payload(), headers)),
                        settled::complete);
                assertThat(settled.get(10, TimeUnit.SECONDS)).isNull();
                Delivery again = received.poll(10, TimeUnit.SECONDS);
                assertThat(again).isNotNull();
                assertThat(again.queue()).isEqualTo(shard);
                assertThat(again.headers())
                        .containsEntry(ShoveHeaders.RETRY_COUNT, "1")
                        .containsEntry("tenant", "acme")
                        .containsEntry(ShoveHeaders.SEQUENCE_KEY, "k-7")
                        .containsEntry(ShoveHeaders.MESSAGE_ID, first.headers().get(ShoveHeaders.MESSAGE_ID));
                CompletableFuture<Throwable> acked = new CompletableFuture<>();
                subscription.settle(again, Settlement.ACK, acked::complete);
                assertThat(acked.get(10, TimeUnit.SECONDS)).isNull();
            } finally {
                subscription.close();
            }
        }
        for (int i = 0; i < 3; i++) {
            assertThat(admin.depth(topic.shardName(i))).isZero();
        }
    }
}
