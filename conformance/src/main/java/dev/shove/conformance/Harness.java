package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.ConsumerSupervisor;
import dev.shove.MessageHandler;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Publisher;
import dev.shove.Topic;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one contract test uses: a fresh broker (with a {@link SimpleMeterRegistry}), unique names, groups that
 * are stopped when the test ends, gates that are opened when it ends, and polling with the backend's patience. One per
 * test; not shared between threads except for its thread-safe parts (recorders, gates, the registry).
 *
 * @param <B> the backend marker
 */
final class Harness<B> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Harness.class);

    /** How long cleanup lets a group drain; every gate is open by then, so handlers finish quickly. */
    private static final Duration CLEANUP_DRAIN = Duration.ofSeconds(5);

    private final BrokerConformance<B> kit;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Broker<B> broker;
    private final String suffix;
    private final AtomicInteger names = new AtomicInteger();
    private final List<AutoCloseable> running = new CopyOnWriteArrayList<>();
    private final List<Gate> gates = new CopyOnWriteArrayList<>();

    Harness(BrokerConformance<B> kit) {
        this.kit = kit;
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        this.suffix = HexFormat.of().formatHex(random);
        this.broker = Broker.builder(kit.brokerConfig())
                .meterRegistry(registry)
                .clientName("shove-conformance-" + suffix)
                .connect();
    }

    // ------------------------------------------------------------------ settings of the backend under test

    BrokerConformance<B> kit() {
        return kit;
    }

    Broker<B> broker() {
        return broker;
    }

    Publisher publisher() {
        return broker.publisher();
    }

    SimpleMeterRegistry registry() {
        return registry;
    }

    Duration patience() {
        return kit.patience();
    }

    Duration quietPeriod() {
        return kit.quietPeriod();
    }

    /** The shortest hold-tier delay the contracts use on this backend. */
    Duration tier() {
        return kit.shortestTier();
    }

    // ------------------------------------------------------------------ names and topics

    /** A broker-side name unique to this test run: {@code prefix-<random>-<n>}. */
    String name(String prefix) {
        return prefix + "-" + suffix + "-" + names.incrementAndGet();
    }

    /** A builder of a {@link Msg} topic with a unique name. */
    Topic.Builder<Msg> topic(String prefix) {
        return Topic.builder(name(prefix), Msg.class);
    }

    /** A builder of a {@code byte[]} topic (payload delivered exactly as published) with a unique name. */
    Topic.Builder<byte[]> rawTopic(String prefix) {
        return Topic.builder(name(prefix), byte[].class);
    }

    /** The most common shape: one tier of the shortest delay and a dead-letter queue. */
    Topic<Msg> plainTopic(String prefix) {
        return topic(prefix).holdQueue(tier()).dlq().build();
    }

    /**
     * A {@code byte[]} topic with the same name, tiers and dead-letter queue as {@code topic}: publishes bytes the
     * typed topic cannot decode, and reads its dead letters exactly as they are.
     */
    Topic<byte[]> rawTwin(Topic<?> topic) {
        if (topic.isSequenced()) {
            throw new IllegalArgumentException("the kit has no raw twin of a sequenced topic");
        }
        Topic.Builder<byte[]> b = Topic.builder(topic.name(), byte[].class);
        if (!topic.hasImplicitTier()) {
            topic.holdTiers().forEach(t -> b.holdQueue(t.delay()));
        }
        topic.dlq().ifPresent(b::dlq);
        return b.build();
    }

    // ------------------------------------------------------------------ groups

    /** A group config builder for {@code min..max} consumers, with the backend's own settings if it has any. */
    ConsumerGroupConfig.Builder groupConfig(int min, int max) {
        return kit.groupConfig(min, max);
    }

    /** One consumer with default options. */
    ConsumerGroupConfig config() {
        return config(c -> c);
    }

    /** One consumer with adjusted options. */
    ConsumerGroupConfig config(UnaryOperator<ConsumerGroupConfig.Builder> options) {
        return options.apply(kit.groupConfig(1, 1)).build();
    }

    /** A new consumer group, stopped when the test ends. */
    ConsumerGroup<B, NoContext> group() {
        return track(broker.consumerGroup());
    }

    /** A new supervisor, stopped when the test ends. */
    ConsumerSupervisor<B, NoContext> supervisor() {
        return track(broker.consumerSupervisor());
    }

    /** Registers {@code handler} on a new one-consumer group with default options, and starts the group. */
    <T> ConsumerGroup<B, NoContext> consume(Topic<T> topic, MessageHandler<T, Object> handler) {
        return consume(topic, config(), handler);
    }

    /** Registers {@code handler} on a new group with {@code config}, and starts the group. */
    <T> ConsumerGroup<B, NoContext> consume(
            Topic<T> topic, ConsumerGroupConfig config, MessageHandler<T, Object> handler) {
        return consume(topic, config, () -> handler);
    }

    /** Registers a handler factory on a new group with {@code config}, and starts the group. */
    <T> ConsumerGroup<B, NoContext> consume(
            Topic<T> topic, ConsumerGroupConfig config, Supplier<? extends MessageHandler<T, Object>> handlers) {
        ConsumerGroup<B, NoContext> group = group();
        group.register(topic, config, handlers);
        group.start();
        return group;
    }

    /** Registers a batch handler on a new group with {@code config} and {@code batch} options, and starts the group. */
    <T> ConsumerGroup<B, NoContext> consumeBatch(
            Topic<T> topic, ConsumerGroupConfig config, BatchOptions batch, BatchMessageHandler<T, Object> handler) {
        ConsumerGroup<B, NoContext> group = group();
        group.registerBatch(topic, config, batch, () -> handler);
        group.start();
        return group;
    }

    /**
     * Reads {@code topic}'s dead-letter queue exactly as stored, and empties it: registers its {@link #rawTwin raw
     * twin} on a new group with no main consumer (min 0) and no size limit, whose {@code handleDead} records each dead
     * letter and which removes them ({@code handleAndRemoveDeadLetters()}). The group that consumes the topic itself
     * must not remove them too (the default keeps them).
     */
    Recorder<byte[]> deadLetterReader(Topic<?> topic) {
        Recorder<byte[]> reader = acking();
        ConsumerGroupConfig config = kit.groupConfig(0, 1)
                .noMessageSizeLimit()
                .noAutoscaler()
                .handleAndRemoveDeadLetters()
                .build();
        consume(rawTwin(topic), config, reader);
        return reader;
    }

    /** Stops {@code closeable} (a group, a supervisor) when the test ends, if the test did not. */
    <T extends AutoCloseable> T track(T closeable) {
        running.add(Objects.requireNonNull(closeable));
        return closeable;
    }

    // ------------------------------------------------------------------ handlers

    /** A recorder whose handler answers with {@code behaviour} and whose {@code handleDead} only records. */
    <T> Recorder<T> recorder(Recorder.Behaviour<T> behaviour) {
        return new Recorder<>(this, behaviour, (m, d) -> {});
    }

    /** A recorder with behaviours for both {@code handle} and {@code handleDead}. */
    <T> Recorder<T> recorder(Recorder.Behaviour<T> behaviour, Recorder.DeadBehaviour<T> dead) {
        return new Recorder<>(this, behaviour, dead);
    }

    /** A batch recorder whose handler answers with {@code behaviour}. */
    <T> BatchRecorder<T> batchRecorder(BatchRecorder.Behaviour<T> behaviour) {
        return new BatchRecorder<>(this, behaviour);
    }

    /** A batch recorder that acknowledges every batch. */
    <T> BatchRecorder<T> ackingBatches() {
        return batchRecorder(b -> BatchOutcome.ackAll());
    }

    /** A recorder that acknowledges everything. */
    <T> Recorder<T> acking() {
        return recorder((m, meta, attempt) -> Outcome.ack());
    }

    /** A closed gate, opened at the latest when the test ends. */
    Gate gate() {
        Gate gate = new Gate();
        gates.add(gate);
        return gate;
    }

    // ------------------------------------------------------------------ waiting

    /** Awaitility with this backend's patience, polling often. */
    ConditionFactory await() {
        return Awaitility.await()
                .atMost(kit.patience())
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10));
    }

    /** Polls until {@code condition} holds, failing after the patience with {@code what} in the message. */
    void await(String what, Callable<Boolean> condition) {
        await(() -> what, condition);
    }

    /** Like {@link #await(String, Callable)}; {@code what} is made when the wait fails, so it can say what was seen. */
    void await(Supplier<String> what, Callable<Boolean> condition) {
        try {
            await().until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("waited " + kit.patience() + " for " + what.get(), e);
        }
    }

    /** Waits at most {@code within} (rather than the patience) until {@code condition} holds. */
    void await(String what, Duration within, Callable<Boolean> condition) {
        try {
            await().atMost(within).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("waited " + within + " for " + what, e);
        }
    }

    /**
     * Checks that {@code condition} holds throughout the quiet period: the "nothing more happens" wait, as a poll
     * rather than a sleep.
     */
    void assertStays(String what, Callable<Boolean> condition) {
        try {
            Awaitility.await()
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(10))
                    .during(kit.quietPeriod())
                    .atMost(kit.quietPeriod().plus(kit.patience()))
                    .until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("expected " + what + " to hold for " + kit.quietPeriod() + ", but it did not", e);
        }
    }

    // ------------------------------------------------------------------ metrics

    /** The count of the counter with this name and these tags (pairs), summed over any further tags; 0 if none. */
    double count(String name, String... tags) {
        return search(name, tags).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    /** The meters with this name and these tags. */
    List<Meter> meters(String name, String... tags) {
        return new ArrayList<>(search(name, tags).meters());
    }

    Search search(String name, String... tags) {
        assertThat(tags.length % 2).as("tags come in pairs").isZero();
        return registry.find(name).tags(tags);
    }

    // ------------------------------------------------------------------ cleanup

    @Override
    public void close() {
        for (Gate gate : gates) {
            gate.open();
        }
        List<Thread> stoppers = new ArrayList<>();
        for (AutoCloseable c : running) {
            stoppers.add(Thread.ofVirtual().name("shove-conformance-cleanup").start(() -> stopQuietly(c)));
        }
        for (Thread t : stoppers) {
            try {
                t.join(CLEANUP_DRAIN.multipliedBy(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        broker.close();
    }

    private static void stopQuietly(AutoCloseable c) {
        try {
            switch (c) {
                case ConsumerGroup<?, ?> g -> g.stop(CLEANUP_DRAIN);
                case ConsumerSupervisor<?, ?> s -> s.stop(CLEANUP_DRAIN);
                default -> c.close();
            }
        } catch (Exception e) {
            log.warn("stopping {} after the test failed", c, e);
        }
    }
}
