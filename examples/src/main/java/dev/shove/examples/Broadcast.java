package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * A broadcast topic: every running subscriber receives every message, from the moment it subscribes.
 *
 * <p>Three instances of a service each keep their settings in memory and subscribe to {@code config-changes}, each
 * in a consumer group of its own (in production, one per process). Instances {@code a} and {@code b} run from the
 * start and both receive changes 1 to 3. Instance {@code b} does not know setting {@code feature.search} and returns
 * {@link Outcome#retry()}: a broadcast is best effort, so the message is not retried but discarded, logged and
 * counted in {@code shove.messages.discarded{reason=broadcast}}. Instance {@code c} starts after change 3 and
 * receives change 4 only, like {@code a} and {@code b}.
 *
 * <p>Run it with {@code scripts/quickstart.sh Broadcast}.
 */
public final class Broadcast {

    /** How long each wait may take before the example gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Broadcast() {}

    /**
     * A change of one setting.
     *
     * @param seq its number, from 1
     * @param key the setting
     * @param value its new value
     */
    public record ConfigChange(int seq, String key, String value) {}

    // region topic
    static final Topic<ConfigChange> CONFIG_CHANGES =
            Topic.builder("config-changes", ConfigChange.class).broadcast().build(); // no DLQ, no hold tiers
    // endregion topic

    /**
     * One service instance: its name, the settings it knows and their values, and the changes it received.
     *
     * @param name the instance
     * @param known the settings it can apply
     * @param settings the values it holds
     * @param received the sequence numbers of the changes it received, in order
     * @param out where to print
     */
    record Instance(
            String name, Set<String> known, Map<String, String> settings, List<Integer> received, PrintStream out) {
        Instance(String name, Set<String> known, PrintStream out) {
            this(name, known, new ConcurrentHashMap<>(), new CopyOnWriteArrayList<>(), out);
        }
    }

    // region handler
    /** Applies a change to the instance's settings; a setting it does not know is a failure. */
    static final class ConfigHandler implements MessageHandler<ConfigChange, Instance> {
        @Override
        public Outcome handle(ConfigChange change, MessageMetadata meta, Instance instance) {
            instance.received().add(change.seq());
            if (!instance.known().contains(change.key())) {
                instance.out()
                        .printf("instance %s: #%d %s unknown -> retry%n", instance.name(), change.seq(), change.key());
                return Outcome.retry(); // a broadcast never retries: discarded and counted
            }
            instance.settings().put(change.key(), change.value());
            instance.out()
                    .printf("instance %s: #%d %s = %s%n", instance.name(), change.seq(), change.key(), change.value());
            return Outcome.ack();
        }
    }
    // endregion handler

    /** Runs the example; exits 0 when every instance received what the class comment says. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Starts instances a and b, publishes three changes, starts c, publishes a fourth, and stops everything. */
    public static Result run(PrintStream out, Duration timeout) {
        MeterRegistry registry = new SimpleMeterRegistry();
        Set<String> all = Set.of("log.level", "pool.size", "feature.search");
        Instance a = new Instance("a", all, out);
        Instance b = new Instance("b", Set.of("log.level", "pool.size"), out);
        Instance c = new Instance("c", all, out);
        List<SupervisorOutcome> outcomes = new ArrayList<>();
        try (Broker<InMemory> broker = Broker.builder(InMemoryConfig.ofDefaults())
                .meterRegistry(registry)
                .connect()) {
            ConsumerGroup<InMemory, Instance> groupA = subscribe(broker, a);
            ConsumerGroup<InMemory, Instance> groupB = subscribe(broker, b);
            var publisher = broker.publisher();
            publisher.publish(CONFIG_CHANGES, new ConfigChange(1, "log.level", "debug"));
            publisher.publish(CONFIG_CHANGES, new ConfigChange(2, "feature.search", "on"));
            publisher.publish(CONFIG_CHANGES, new ConfigChange(3, "pool.size", "20"));
            awaitUntil(() -> a.received().size() == 3 && b.received().size() == 3, timeout);

            out.println("instance c starts");
            ConsumerGroup<InMemory, Instance> groupC = subscribe(broker, c);
            publisher.publish(CONFIG_CHANGES, new ConfigChange(4, "pool.size", "30"));
            awaitUntil(
                    () -> a.received().size() == 4
                            && b.received().size() == 4
                            && c.received().size() == 1,
                    timeout);
            for (var group : List.of(groupA, groupB, groupC)) {
                outcomes.add(group.stop(Duration.ofSeconds(5)));
            }
        }
        Map<String, Double> discarded = new LinkedHashMap<>();
        for (String instance : List.of("a", "b", "c")) {
            Counter counter = registry.find("shove.messages.discarded")
                    .tag("consumer_group", "instance-" + instance)
                    .tag("reason", "broadcast")
                    .counter();
            discarded.put(instance, counter == null ? 0.0 : counter.count());
        }
        out.printf("shove.messages.discarded{reason=broadcast} by instance: %s%n", discarded);
        Result result = new Result(
                List.copyOf(a.received()),
                List.copyOf(b.received()),
                List.copyOf(c.received()),
                Map.copyOf(b.settings()),
                discarded,
                outcomes);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "a and b received every change, c every change after it started; b's retry was discarded"
                        : "UNEXPECTED: " + problems);
        return result;
    }

    // region group
    /** One subscriber: a consumer group of its own, named after the instance (the consumer_group metric tag). */
    static ConsumerGroup<InMemory, Instance> subscribe(Broker<InMemory> broker, Instance instance) {
        var group = broker.consumerGroup().withContext(instance);
        group.register(
                CONFIG_CHANGES,
                ConsumerGroupConfig.builder()
                        .prefetch(1) // in order, one at a time
                        .groupName("instance-" + instance.name())
                        .build(),
                ConfigHandler::new);
        group.start(); // receives what is published from now on
        return group;
    }
    // endregion group

    private static void awaitUntil(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(Duration.ofMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * What the run recorded.
     *
     * @param a the changes instance a received
     * @param b the changes instance b received
     * @param c the changes instance c received
     * @param settingsOfB the settings instance b ended with
     * @param discarded per instance, {@code shove.messages.discarded{reason=broadcast}}
     * @param outcomes how the three groups stopped
     */
    public record Result(
            List<Integer> a,
            List<Integer> b,
            List<Integer> c,
            Map<String, String> settingsOfB,
            Map<String, Double> discarded,
            List<SupervisorOutcome> outcomes) {

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (!a.equals(List.of(1, 2, 3, 4)) || !b.equals(List.of(1, 2, 3, 4))) {
                problems.add("a and b should each receive changes 1 to 4, received " + a + " and " + b);
            }
            if (!c.equals(List.of(4))) {
                problems.add("c should receive change 4 only, received " + c);
            }
            if (!settingsOfB.equals(Map.of("log.level", "debug", "pool.size", "30"))) {
                problems.add("b should hold log.level and pool.size only, holds " + settingsOfB);
            }
            if (!discarded.equals(Map.of("a", 0.0, "b", 1.0, "c", 0.0))) {
                problems.add("only b's retry should be discarded, counted " + discarded);
            }
            if (outcomes.size() != 3 || !outcomes.stream().allMatch(SupervisorOutcome::isClean)) {
                problems.add("the three groups should stop cleanly, ended with " + outcomes);
            }
            return problems;
        }
    }
}
