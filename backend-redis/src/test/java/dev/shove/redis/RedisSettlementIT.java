package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.Transport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The settlement primitives on a real Redis, through the transport SPI where the engine would hide the race: a hold
 * copy written together with the acknowledgement, a late first owner that may not settle an entry another consumer
 * reclaimed, and the requeuers of several processes moving each due copy exactly once.
 */
class RedisSettlementIT {
    record Msg(int n) {}

    private static RedisTestSupport redis;

    @BeforeAll
    static void redis() {
        redis = RedisTestSupport.connect();
    }

    @AfterAll
    static void cleanUp() {
        if (redis != null) {
            redis.close();
        }
    }

    /** A sink that keeps what it is given. */
    private static final class Keep implements DeliverySink {
        final List<Delivery> got = new CopyOnWriteArrayList<>();

        @Override
        public void deliver(Delivery delivery) {
            got.add(delivery);
        }

        @Override
        public List<Delivery> withdraw(Predicate<? super Delivery> which) {
            return List.of();
        }

        @Override
        public void failed(Throwable cause) {}
    }

    private static Topic<Msg> topic(String prefix) {
        String name = RedisTestSupport.unique(prefix);
        redis.forget(name);
        return Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(30))
                .dlq()
                .build();
    }

    private static @Nullable Throwable settle(Subscription s, Delivery d, Settlement settlement) throws Exception {
        CompletableFuture<@Nullable Throwable> done = new CompletableFuture<>();
        s.settle(d, settlement, done::complete);
        return done.get(10, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("a retry moves the entry into its hold tier and acknowledges it in one step; an entry reclaimed by"
            + " another consumer is not settled by its first owner, who comes back late")
    void holdIsAtomicAndOwned() throws Exception {
        Topic<Msg> topic = topic("settle-owned");
        try (Broker<Redis> broker = Broker.connect(redis.recording(RedisConfig.of(RedisTestSupport.uri())))) {
            Transport transport = broker.unwrap(Transport.class).orElseThrow();
            broker.topology().declare(topic);
            byte[] payload = "{\"n\":1}".getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < 2; i++) {
                transport
                        .publish(
                                topic,
                                new OutboundMessage(
                                        payload,
                                        Map.of(ShoveHeaders.MESSAGE_ID, "m" + i),
                                        null,
                                        -1,
                                        "application/json"))
                        .get(10, TimeUnit.SECONDS);
            }
            Keep sink = new Keep();
            Subscription sub = transport.subscribe(
                    new SubscriptionRequest(topic, SubscriptionRequest.Source.MAIN, topic.name(), "late-0", 10), sink);
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> sink.got.size() == 2);
                String stream = "shove:{" + topic.name() + "}";
                String tier = stream + ":" + topic.holdTiers().getFirst().queue();
                Delivery first = sink.got.get(0);
                Delivery second = sink.got.get(1);

                Settlement hold = Settlement.forward(
                        new Settlement.Copy.ToHold(0, Duration.ofSeconds(30), payload, first.headers()));
                assertThat(settle(sub, first, hold)).isNull();
                assertThat(redis.redis().zcard(tier)).isEqualTo(1);
                assertThat(redis.redis().xpending(stream, topic.name()).getCount())
                        .as("the original was acknowledged with the hold")
                        .isEqualTo(1);

                // another consumer reclaims the second entry while its first owner is still busy with it
                String id = second.deliveryId().substring(second.deliveryId().indexOf('@') + 1);
                redis.redis().xclaim(stream, io.lettuce.core.Consumer.from(topic.name(), "the-other"), 0, id);
                Throwable late = settle(sub, second, hold);
                assertThat(late).as("the late owner's retry is refused").isNotNull();
                assertThat(late.getMessage()).contains("no longer pending");
                Throwable lateDead = settle(
                        sub,
                        second,
                        Settlement.forward(new Settlement.Copy.ToDeadLetter(
                                topic.dlq().orElseThrow(), payload, second.headers())));
                assertThat(lateDead)
                        .as("the late owner's dead letter is refused")
                        .isNotNull();
                assertThat(redis.redis().zcard(tier))
                        .as("no second copy in the tier")
                        .isEqualTo(1);
                assertThat(redis.redis().xlen(stream + ":" + topic.dlq().orElseThrow()))
                        .as("no dead letter")
                        .isZero();
                assertThat(redis.redis().xpending(stream, topic.name()).getCount())
                        .as("still pending, to the consumer that reclaimed it")
                        .isEqualTo(1);
            } finally {
                sub.close();
            }
        }
    }

    @Test
    @DisplayName("a handler running longer than the claim idle time keeps its entry: the group's other consumer"
            + " never reclaims it")
    void longHandlerKeepsItsEntry() {
        String name = RedisTestSupport.unique("settle-lease");
        redis.forget(name);
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        RedisConfig config = RedisConfig.builder(RedisTestSupport.uri())
                .leaseRenewal(Duration.ofMillis(300))
                .claimIdle(Duration.ofSeconds(1))
                .build();
        List<String> calls = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean release = new java.util.concurrent.atomic.AtomicBoolean();
        try (Broker<Redis> broker = Broker.connect(config)) {
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .consumers(2, 2)
                            .noHandlerTimeout()
                            .build(),
                    () -> (m, meta, c) -> {
                        calls.add(m.n() + "/" + meta.deliveryCount().orElse(0));
                        await().atMost(Duration.ofSeconds(30)).untilTrue(release);
                        return Outcome.ack();
                    });
            group.start();
            broker.publisher().publish(topic, new Msg(1));
            await().atMost(Duration.ofSeconds(10)).until(() -> calls.size() == 1);
            // four claim idle times: the other consumer looks at least once a second
            await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> calls.size() == 1);
            release.set(true);
            assertThat(group.stop(Duration.ofSeconds(10)).exitCode()).isZero();
            assertThat(calls).containsExactly("1/1");
        }
    }

    @Test
    @DisplayName("the requeuers of two processes move every due copy back exactly once")
    void requeuersOfTwoProcessesMoveEachCopyOnce() throws Exception {
        String name = RedisTestSupport.unique("settle-requeue");
        redis.forget(name);
        Topic<Msg> topic = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(1_500))
                .dlq()
                .build();
        int messages = 200;
        Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();
        RedisConfig config = RedisConfig.builder(RedisTestSupport.uri())
                .holdPoll(Duration.ofMillis(10))
                .build();
        try (Broker<Redis> one = Broker.connect(config);
                Broker<Redis> two = Broker.connect(config)) {
            one.topology().declare(topic);
            for (Broker<Redis> broker : List.of(one, two)) {
                var group = broker.consumerGroup();
                group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
                    seen.computeIfAbsent(m.n(), k -> new CopyOnWriteArrayList<>())
                            .add(meta.retryCount());
                    return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
                });
                group.start();
            }
            one.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, messages).mapToObj(Msg::new).toList());
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            seen.size() == messages && seen.values().stream().allMatch(l -> l.size() >= 2));
            String tier = "shove:{" + name + "}:" + topic.holdTiers().getFirst().queue();
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().zcard(tier) == 0);
            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> seen.values().stream().allMatch(l -> l.size() == 2));
            assertThat(seen.values()).allSatisfy(l -> assertThat(l).containsExactly(0, 1));
        }
    }
}
