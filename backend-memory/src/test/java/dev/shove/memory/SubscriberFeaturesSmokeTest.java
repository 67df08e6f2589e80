package dev.shove.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DecodeFailurePolicy;
import dev.shove.Envelope;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SubscriberFeaturesSmokeTest {
    record Msg(int n) {}

    private static Topic<Msg> topic(String name) {
        return Topic.builder(name + "-" + System.nanoTime(), Msg.class)
                .holdQueue(Duration.ofMillis(50))
                .dlq()
                .build();
    }

    @Test
    void interceptorsRunOutermostFirstAndCanShortCircuit() {
        Topic<Msg> t = topic("icpt");
        List<String> trace = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup().withContext("ctx").withInterceptor(inv -> {
                trace.add("group-in");
                Outcome o = inv.proceed("enriched");
                trace.add("group-out");
                return o;
            });
            group.register(
                    t,
                    ConsumerGroupConfig.builder()
                            .prefetch(1)
                            .interceptors(inv -> ((Msg) inv.message()).n() == 2 ? Outcome.ack() : inv.proceed())
                            .build(),
                    () -> (m, meta, ctx) -> {
                        trace.add("handler:" + m.n() + ":" + ctx);
                        return Outcome.ack();
                    });
            group.start();
            broker.publisher().publish(t, new Msg(1));
            broker.publisher().publish(t, new Msg(2));
            InMemoryProbe.of(broker).awaitIdle(Duration.ofSeconds(5));
            group.stop(Duration.ofSeconds(5));
        }
        assertThat(trace).containsExactly("group-in", "handler:1:enriched", "group-out", "group-in", "group-out");
    }

    @Test
    void batchesNeverExceedTheMaximumAndSettleEachElement() {
        Topic<Msg> t = topic("batch");
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        List<Integer> dead = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            broker.topology().declare(t);
            broker.publisher()
                    .publishBatch(t, IntStream.range(0, 25).mapToObj(Msg::new).toList());
            var group = broker.consumerGroup();
            group.registerBatch(
                    t,
                    ConsumerGroupConfig.builder().prefetch(1).build(),
                    BatchOptions.of(10, Duration.ofMillis(20)),
                    () -> new dev.shove.BatchMessageHandler<Msg, dev.shove.NoContext>() {
                        @Override
                        public BatchOutcome handle(List<Envelope<Msg>> batch, dev.shove.NoContext c) {
                            sizes.add(batch.size());
                            return BatchOutcome.each(batch.stream()
                                    .map(e -> e.message().n() % 5 == 0 ? Outcome.reject() : Outcome.ack())
                                    .toList());
                        }

                        @Override
                        public void handleDead(Msg m, dev.shove.DeadMessageMetadata meta, dev.shove.NoContext c) {
                            dead.add(m.n());
                        }
                    });
            group.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> dead.size() == 5);
            group.stop(Duration.ofSeconds(5));
        }
        assertThat(sizes).allMatch(s -> s <= 10);
        assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(25);
        assertThat(dead).containsExactlyInAnyOrder(0, 5, 10, 15, 20);
    }

    @Test
    void aLogIsReadInRunsSoBatchesNeverWaitOutMaxWait() {
        Topic<Msg> t = topic("log-batch");
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker =
                Broker.connect(InMemoryConfig.builder().retention(100).build())) {
            assertThat(broker.capabilities().nativeBatches()).isTrue();
            broker.topology().declare(t);
            broker.publisher()
                    .publishBatch(t, IntStream.range(0, 25).mapToObj(Msg::new).toList());
            var group = broker.consumerGroup();
            group.registerBatch(
                    t,
                    ConsumerGroupConfig.builder()
                            .prefetch(1)
                            .startAt(Position.start())
                            .build(),
                    // gathering would hold the last, partial batch for a minute
                    BatchOptions.of(10, Duration.ofMinutes(1)),
                    () -> (batch, c) -> {
                        sizes.add(batch.size());
                        return BatchOutcome.ackAll();
                    });
            group.start();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> sizes.stream().mapToInt(Integer::intValue).sum() == 25);
            group.stop(Duration.ofSeconds(5));
        }
        assertThat(sizes).allMatch(s -> s <= 10);
    }

    @Test
    void queueModeGathersBatchesInCore() {
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            assertThat(broker.capabilities().nativeBatches()).isFalse();
        }
    }

    @Test
    void repliesArePublishedBeforeTheAck() {
        Topic<Msg> in = topic("req");
        Topic<Msg> out = topic("resp");
        List<Integer> replies = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup();
            group.register(in, () -> (m, meta, c) -> Outcome.reply(out, new Msg(m.n() * 10)));
            group.register(out, () -> (m, meta, c) -> {
                replies.add(m.n());
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(in, new Msg(4));
            await().atMost(Duration.ofSeconds(5)).until(() -> replies.size() == 1);
            group.stop(Duration.ofSeconds(5));
        }
        assertThat(replies).containsExactly(40);
    }

    @Test
    void decodeFailureSkipAcksWithoutTheHandler() {
        String name = "skip-" + System.nanoTime();
        Topic<Msg> typed = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(50))
                .dlq()
                .build();
        Topic<byte[]> raw = Topic.builder(name, byte[].class)
                .holdQueue(Duration.ofMillis(50))
                .dlq()
                .build();
        List<Integer> seen = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            broker.topology().declare(typed);
            broker.publisher().publish(raw, "not json".getBytes());
            broker.publisher().publish(typed, new Msg(7));
            var group = broker.consumerGroup();
            group.register(
                    typed,
                    ConsumerGroupConfig.builder()
                            .decodeFailurePolicy(DecodeFailurePolicy.SKIP)
                            .noDeadLetterConsumer()
                            .build(),
                    () -> (m, meta, c) -> {
                        seen.add(m.n());
                        return Outcome.ack();
                    });
            group.start();
            InMemoryProbe.of(broker).awaitIdle(Duration.ofSeconds(5));
            assertThat(InMemoryProbe.of(broker).deadLetterHeaders(typed)).isEmpty();
            group.stop(Duration.ofSeconds(5));
        }
        assertThat(seen).containsExactly(7);
    }

    @Test
    void seekReplaysFromACapturedPosition() {
        Topic<Msg> t = topic("seek");
        List<Integer> seen = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker =
                Broker.connect(InMemoryConfig.builder().retention(100).build())) {
            broker.topology().declare(t);
            broker.publisher()
                    .publishBatch(t, IntStream.range(0, 5).mapToObj(Msg::new).toList());
            var group = broker.consumerGroup();
            java.util.concurrent.atomic.AtomicBoolean replayed = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicReference<Position> second =
                    new java.util.concurrent.atomic.AtomicReference<>();
            group.register(
                    t, ConsumerGroupConfig.builder().prefetch(1).seeking().build(), () -> (m, meta, c) -> {
                        seen.add(m.n());
                        if (m.n() == 1) {
                            second.set(meta.position().orElseThrow());
                        }
                        if (m.n() == 3 && replayed.compareAndSet(false, true)) {
                            return Outcome.ack().andSeek(second.get());
                        }
                        return Outcome.ack();
                    });
            group.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 8);
            group.stop(Duration.ofSeconds(5));
        }
        assertThat(seen).containsExactly(0, 1, 2, 3, 1, 2, 3, 4);
    }

    @Test
    void broadcastReachesEverySubscriber() {
        Topic<Msg> t =
                Topic.builder("bc-" + System.nanoTime(), Msg.class).broadcast().build();
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var a = broker.consumerGroup();
            a.register(t, () -> (m, meta, c) -> {
                seen.add("a" + m.n());
                return Outcome.retry();
            });
            var b = broker.consumerGroup();
            b.register(t, () -> (m, meta, c) -> {
                seen.add("b" + m.n());
                return Outcome.ack();
            });
            a.start();
            b.start();
            broker.publisher().publish(t, new Msg(1));
            await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 2);
            InMemoryProbe.of(broker).awaitIdle(Duration.ofSeconds(5));
            a.stop(Duration.ofSeconds(5));
            b.stop(Duration.ofSeconds(5));
        }
        assertThat(seen).containsExactlyInAnyOrder("a1", "b1");
    }
}
