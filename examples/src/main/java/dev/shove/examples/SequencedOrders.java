package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A sequenced topic: the events of one order are handled strictly in order, across a retry, while other orders flow.
 *
 * <p>Orders {@code A} and {@code B} each publish five events, {@code created, paid, packed, shipped, delivered}.
 * Event {@code A paid} fails once (the payment provider times out), so the handler returns {@link Outcome#retry()}:
 * on a sequenced topic the message waits out the hold delay in place and order {@code A}'s later events wait behind
 * it, while order {@code B} carries on. Event {@code A packed} is invalid and rejected to the dead-letter queue. What
 * happens to {@code A shipped} and {@code A delivered} then depends on the topic's {@link SequenceFailure}:
 *
 * <ul>
 *   <li>{@link SequenceFailure#SKIP}: they are handled; only {@code packed} is dead-lettered.
 *   <li>{@link SequenceFailure#FAIL_ALL}: they are dead-lettered too, unhandled, with reason {@code
 *       sequence-poisoned}.
 * </ul>
 *
 * <p>Run it with {@code scripts/quickstart.sh SequencedOrders [SKIP|FAIL_ALL]} (both, one after the other, by
 * default).
 */
public final class SequencedOrders {

    /** How long the failed event waits before it runs again. */
    public static final Duration HOLD_DELAY = Duration.ofMillis(500);

    /** How long one run may take before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    static final List<String> STEPS = List.of("created", "paid", "packed", "shipped", "delivered");

    private SequencedOrders() {}

    /**
     * One event in an order's life.
     *
     * @param orderId the order, which is the ordering key
     * @param seq the event's position in the order's life, from 1
     * @param step what happened
     */
    public record OrderEvent(String orderId, int seq, String step) {
        @Override
        public String toString() {
            return orderId + "#" + seq + " " + step;
        }
    }

    // region topic
    static Topic<OrderEvent> orderEvents(SequenceFailure onFailure, Duration holdDelay) {
        return Topic.builder("order-events", OrderEvent.class)
                .holdQueue(holdDelay)
                .dlq()
                .sequenced(onFailure, OrderEvent::orderId) // the key: one order's events run one at a time, in order
                .build();
    }
    // endregion topic

    // region handler
    /** Fails {@code A paid} once (a transient error) and rejects {@code A packed} (a permanent one). */
    static final class OrderEventHandler implements MessageHandler<OrderEvent, Timeline> {
        @Override
        public Outcome handle(OrderEvent event, MessageMetadata meta, Timeline timeline) {
            if (event.orderId().equals("A") && event.step().equals("paid") && meta.retryCount() == 0) {
                timeline.print(event, meta.retryCount(), "payment provider timed out -> retry (A's later events wait)");
                return Outcome.retry();
            }
            if (event.orderId().equals("A") && event.step().equals("packed")) {
                timeline.print(event, meta.retryCount(), "unknown warehouse -> reject");
                return Outcome.reject("unknown warehouse");
            }
            timeline.handled(event, meta.retryCount());
            return Outcome.ack();
        }

        @Override
        public void handleDead(OrderEvent event, DeadMessageMetadata meta, Timeline timeline) {
            timeline.dead(event, meta);
        }
    }
    // endregion handler

    /** Runs {@code SKIP}, {@code FAIL_ALL}, or both (no argument); exits 0 when each run did what it describes. */
    public static void main(String[] args) {
        List<SequenceFailure> modes = args.length == 0
                ? List.of(SequenceFailure.SKIP, SequenceFailure.FAIL_ALL)
                : List.of(SequenceFailure.valueOf(args[0].toUpperCase(Locale.ROOT)));
        boolean ok = true;
        for (SequenceFailure mode : modes) {
            Result result = run(System.out, mode, HOLD_DELAY, TIMEOUT);
            ok &= result.problems().isEmpty();
            System.out.println();
        }
        System.exit(ok ? 0 : 1);
    }

    /**
     * Publishes both orders' events, consumes until every event was either handled or dead-lettered (or the timeout
     * passes), and prints each step and a summary.
     */
    public static Result run(PrintStream out, SequenceFailure onFailure, Duration holdDelay, Duration timeout) {
        out.printf("== sequenced topic with %s: orders A and B, five events each ==%n", onFailure);
        Timeline timeline = new Timeline(out, STEPS.size() * 2);
        Topic<OrderEvent> topic = orderEvents(onFailure, holdDelay);
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup().withContext(timeline);
            group.register(topic, OrderEventHandler::new);
            List<OrderEvent> events = new ArrayList<>();
            for (int i = 0; i < STEPS.size(); i++) {
                events.add(new OrderEvent("A", i + 1, STEPS.get(i)));
                events.add(new OrderEvent("B", i + 1, STEPS.get(i)));
            }
            broker.publisher().publishBatch(topic, events);
            outcome = group.runUntil(
                    timeline.allSettled().copy().completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS),
                    Duration.ofSeconds(5));
        }
        Result result = timeline.result(onFailure, outcome);
        out.printf("order A handled: %s; dead-lettered: %s%n", result.handled("A"), result.deadLettered("A"));
        out.printf("order B handled: %s; dead-lettered: %s%n", result.handled("B"), result.deadLettered("B"));
        List<String> problems = result.problems();
        out.println(problems.isEmpty() ? "as expected for " + onFailure : "UNEXPECTED: " + problems);
        return result;
    }

    /**
     * What one run did.
     *
     * @param onFailure the topic's failure mode
     * @param handled per order, the steps the handler acknowledged, in the order it did
     * @param dead per order, the dead letters seen by handleDead ({@code step: reason}), in the order of the events
     * @param outcome how the group stopped
     */
    public record Result(
            SequenceFailure onFailure,
            Map<String, List<String>> handled,
            Map<String, List<String>> dead,
            SupervisorOutcome outcome) {

        public List<String> handled(String orderId) {
            return handled.getOrDefault(orderId, List.of());
        }

        public List<String> deadLettered(String orderId) {
            return dead.getOrDefault(orderId, List.of());
        }

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            List<String> expectedA = onFailure == SequenceFailure.SKIP
                    ? List.of("created", "paid", "shipped", "delivered")
                    : List.of("created", "paid");
            List<String> expectedDeadA = onFailure == SequenceFailure.SKIP
                    ? List.of("packed: rejected: unknown warehouse")
                    : List.of(
                            "packed: rejected: unknown warehouse",
                            "shipped: sequence-poisoned",
                            "delivered: sequence-poisoned");
            if (!handled("A").equals(expectedA)) {
                problems.add("order A should be handled as " + expectedA + ", was " + handled("A"));
            }
            if (!deadLettered("A").equals(expectedDeadA)) {
                problems.add("order A should dead-letter " + expectedDeadA + ", did " + deadLettered("A"));
            }
            if (!handled("B").equals(STEPS)) {
                problems.add("order B should be handled as " + STEPS + ", was " + handled("B"));
            }
            if (!deadLettered("B").isEmpty()) {
                problems.add("order B should dead-letter nothing, did " + deadLettered("B"));
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }

    /** The context: prints steps with elapsed time and collects what happened. Thread-safe. */
    public static final class Timeline {
        private final PrintStream out;
        private final int expected;
        private final long startNanos = System.nanoTime();
        private final Map<String, List<String>> handled = new LinkedHashMap<>();
        private final Map<String, List<OrderEvent>> dead = new LinkedHashMap<>();
        private final Map<OrderEvent, String> reasons = new LinkedHashMap<>();
        private final Set<String> settled = ConcurrentHashMap.newKeySet();
        private final CompletableFuture<Void> allSettled = new CompletableFuture<>();

        Timeline(PrintStream out, int expected) {
            this.out = out;
            this.expected = expected;
        }

        synchronized void print(OrderEvent event, int retryCount, String text) {
            out.printf(
                    "[%6d ms] %-13s retryCount=%d  %s%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), event, retryCount, text);
        }

        synchronized void handled(OrderEvent event, int retryCount) {
            print(event, retryCount, "handled -> ack");
            handled.computeIfAbsent(event.orderId(), k -> new ArrayList<>()).add(event.step());
            settle(event);
        }

        synchronized void dead(OrderEvent event, DeadMessageMetadata meta) {
            print(event, meta.message().retryCount(), "handleDead: " + meta.reason());
            dead.computeIfAbsent(event.orderId(), k -> new ArrayList<>()).add(event);
            reasons.put(event, meta.reason());
            settle(event);
        }

        /** Completes when every published event was handled or dead-lettered. */
        CompletableFuture<Void> allSettled() {
            return allSettled;
        }

        synchronized Result result(SequenceFailure onFailure, SupervisorOutcome outcome) {
            Map<String, List<String>> h = new LinkedHashMap<>();
            handled.forEach((k, v) -> h.put(k, List.copyOf(v)));
            // The dead-letter consumer is not sequenced: handleDead may see a key's dead letters in any order.
            Map<String, List<String>> d = new LinkedHashMap<>();
            dead.forEach((k, v) -> d.put(
                    k,
                    v.stream()
                            .sorted(Comparator.comparingInt(OrderEvent::seq))
                            .map(e -> e.step() + ": " + reasons.get(e))
                            .toList()));
            return new Result(onFailure, Map.copyOf(h), Map.copyOf(d), outcome);
        }

        private void settle(OrderEvent event) {
            if (settled.add(event.toString()) && settled.size() == expected) {
                allSettled.complete(null);
            }
        }
    }
}
