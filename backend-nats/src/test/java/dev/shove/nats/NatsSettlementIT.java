package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import dev.shove.spi.TransportContext;
import dev.shove.spi.WireHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.Connection;
import io.nats.client.api.ConsumerInfo;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Settlement and depth on the real server, seen from the JetStream consumers' own counters. */
class NatsSettlementIT {
    record Msg(int n) {}

    private static final Set<String> before = new HashSet<>();

    @BeforeAll
    static void nats() throws Exception {
        NatsTestSupport.requireNats();
        before.addAll(NatsTestSupport.streams());
    }

    @AfterAll
    static void cleanUp() throws Exception {
        NatsTestSupport.deleteStreamsCreatedSince(before);
    }

    private static Topic<Msg> topic(String prefix) {
        return Topic.builder(NatsTestSupport.unique(prefix), Msg.class)
                .holdQueue(Duration.ofMillis(500))
                .dlq()
                .build();
    }

    private static ConsumerInfo consumer(String stream, String name) throws Exception {
        Connection c = NatsTestSupport.raw();
        try {
            return c.jetStreamManagement().getConsumerInfo(stream, name);
        } finally {
            c.close();
        }
    }

    @Test
    @DisplayName("a handler running three times ack_wait is kept in progress: no other consumer of the group gets its"
            + " message meanwhile")
    void longHandlerNotRedelivered() throws Exception {
        Topic<Msg> topic = topic("long-handler");
        Duration ackWait = Duration.ofSeconds(1);
        Map<Integer, AtomicInteger> calls = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(1);
        try (Broker<Nats> broker =
                Broker.connect(NatsTestSupport.config().ackWait(ackWait).build())) {
            broker.topology().declare(topic);
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .consumers(2)
                            .noAutoscaler()
                            .handlerTimeout(Duration.ofSeconds(30))
                            .build(),
                    () -> (m, meta, c) -> {
                        calls.computeIfAbsent(m.n(), k -> new AtomicInteger()).incrementAndGet();
                        Thread.sleep(ackWait.multipliedBy(3).toMillis());
                        done.countDown();
                        return Outcome.ack();
                    });
            group.start();
            broker.publisher().publish(topic, new Msg(1));
            await().atMost(Duration.ofSeconds(20)).until(() -> done.getCount() == 0);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> consumer(topic.name(), topic.name()).getNumAckPending() == 0);
            await().during(ackWait.multipliedBy(2))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> calls.get(1).get() == 1);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(calls.get(1).get()).isEqualTo(1);
    }

    @Test
    @DisplayName("acks are written in batches, and every one reaches the server: nothing stays pending, the ack floor"
            + " reaches the last message")
    void coalescedAcksReachTheServer() throws Exception {
        Topic<Msg> topic = topic("acks");
        int messages = 2_000;
        AtomicInteger handled = new AtomicInteger();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            broker.topology().declare(topic);
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, messages).mapToObj(Msg::new).toList());
            var group = broker.consumerGroup();
            group.register(topic, ConsumerGroupConfig.builder().prefetch(100).build(), () -> (m, meta, c) -> {
                handled.incrementAndGet();
                return Outcome.ack();
            });
            group.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> handled.get() >= messages);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
            ConsumerInfo info = consumer(topic.name(), topic.name());
            assertThat(info.getNumAckPending()).isZero();
            assertThat(info.getNumPending()).isZero();
            assertThat(info.getAckFloor().getStreamSequence()).isEqualTo(messages);
            assertThat(handled.get()).as("nothing was delivered twice").isEqualTo(messages);
        }
    }

    @Test
    @DisplayName("stats reads the group's consumer: messages not yet delivered are ready, delivered and unsettled ones"
            + " are in flight")
    void statsFromTheConsumer() throws Exception {
        Topic<Msg> topic = topic("stats");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch release = new CountDownLatch(1);
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build());
                NatsTransport transport = (NatsTransport) NatsTestSupport.config()
                        .build()
                        .open(new TransportContext(registry, "stats-test", new WireHeaders(registry)))) {
            broker.topology().declare(topic);
            broker.publisher()
                    .publishBatch(
                            topic, IntStream.range(0, 30).mapToObj(Msg::new).toList());
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder()
                            .prefetch(10)
                            .noAutoscaler()
                            .noHandlerTimeout()
                            .build(),
                    () -> (m, meta, c) -> {
                        release.await();
                        return Outcome.ack();
                    });
            group.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                QueueStats s = transport.stats(topic);
                return s.inFlight() == 10 && s.ready() == 20;
            });
            release.countDown();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> transport.stats(topic).equals(new QueueStats(0, 0)));
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
    }
}
