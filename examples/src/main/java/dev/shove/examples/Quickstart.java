package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The quickstart: two orders on an in-memory broker, and the journey each one takes.
 *
 * <ul>
 *   <li>{@code o-1}: the ledger is down on its first delivery, so the handler returns {@link Outcome#retry()}; the
 *       message waits out the topic's hold tier and comes back with {@code retryCount} 1, and is booked.
 *   <li>{@code o-2}: its amount is invalid, so the handler returns {@link Outcome#reject(String)}; the message goes to
 *       the dead-letter queue {@code orders-dlq}, where the group's dead-letter consumer passes it to {@link
 *       MessageHandler#handleDead handleDead}.
 * </ul>
 *
 * <p>Every step is printed with the message's {@code retryCount} and the milliseconds since the start. Run it with
 * {@code scripts/quickstart.sh}; it exits 0 when the journey completed and 1 otherwise.
 */
public final class Quickstart {

    /** The hold tier the quickstart declares: long enough to see the wait, short enough not to bore. */
    public static final Duration HOLD_DELAY = Duration.ofSeconds(1);

    /** How long the quickstart waits for the journey before giving up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Quickstart() {}

    // region message
    /** The message: a plain record, sent as JSON. */
    public record OrderPaid(String orderId, long cents) {}
    // endregion message

    /**
     * The topic: a main queue {@code orders}, one retry tier {@code orders-hold-<delay>} and a dead-letter queue.
     *
     * @param holdDelay how long a retried message waits before it is delivered again
     */
    // region topic
    static Topic<OrderPaid> ordersTopic(Duration holdDelay) {
        return Topic.builder("orders", OrderPaid.class)
                .holdQueue(holdDelay) // a retried message waits here, then comes back with retryCount + 1
                .dlq() // "orders-dlq": where rejected messages go
                .build();
    }
    // endregion topic

    /**
     * The context every handler receives: the application's shared state. Here a ledger and the journey log.
     *
     * @param ledger where orders are booked
     * @param journey what happened so far
     */
    public record Shop(Ledger ledger, Journey journey) {}

    // region handler
    /** The business logic: book valid orders, reject invalid ones, retry when the ledger is down. */
    static final class OrderHandler implements MessageHandler<OrderPaid, Shop> {
        @Override
        public Outcome handle(OrderPaid order, MessageMetadata meta, Shop shop) {
            if (order.cents() <= 0) {
                shop.journey().handled(order, meta, "amount " + order.cents() + " is invalid", Outcome.Kind.REJECT);
                return Outcome.reject("amount must be positive");
            }
            if (!shop.ledger().book(order)) {
                shop.journey().handled(order, meta, "the ledger is unavailable", Outcome.Kind.RETRY);
                return Outcome.retry();
            }
            shop.journey().handled(order, meta, "booked", Outcome.Kind.ACK);
            return Outcome.ack();
        }

        @Override
        public void handleDead(OrderPaid order, DeadMessageMetadata meta, Shop shop) {
            shop.journey().dead(order, meta);
        }
    }
    // endregion handler

    /** Runs the quickstart with {@link #HOLD_DELAY} and exits 0 when the journey completed, 1 otherwise. */
    public static void main(String[] args) {
        Journey journey = run(System.out, HOLD_DELAY, TIMEOUT);
        System.exit(journey.problems().isEmpty() ? 0 : 1);
    }

    /**
     * Publishes the two orders, consumes them until the journey is complete (or {@code timeout} passes), stops the
     * group and prints a verdict.
     *
     * @return the journey, whose {@link Journey#problems()} is empty when everything happened as described above
     */
    public static Journey run(PrintStream out, Duration holdDelay, Duration timeout) {
        Journey journey = new Journey(out, holdDelay, timeout);
        Shop shop = new Shop(new Ledger(), journey);
        out.printf(
                "publishing o-1 (the ledger fails its first booking) and o-2 (invalid amount); hold tier %d ms%n",
                holdDelay.toMillis());
        // region journey
        Topic<OrderPaid> orders = ordersTopic(holdDelay);
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup().withContext(shop);
            group.register(orders, OrderHandler::new);

            broker.publisher().publish(orders, new OrderPaid("o-1", 1299)); // fails once, then succeeds
            broker.publisher().publish(orders, new OrderPaid("o-2", -5)); // rejected to the dead-letter queue

            SupervisorOutcome outcome = group.runUntil(journey.finished(), Duration.ofSeconds(5));
            journey.stopped(outcome);
        }
        // endregion journey
        journey.printVerdict();
        return journey;
    }

    /**
     * A ledger that is down the first time it sees each order: the transient failure the retry is for. Thread-safe.
     */
    public static final class Ledger {
        private final Set<String> attempted = ConcurrentHashMap.newKeySet();

        /** Books the order; false when the ledger is unavailable (the first attempt of every order). */
        boolean book(OrderPaid order) {
            return !attempted.add(order.orderId());
        }
    }

    /**
     * One printed step of the journey.
     *
     * @param elapsedMs milliseconds since the quickstart started
     * @param orderId the order the step is about
     * @param where {@code handle} or {@code handleDead}
     * @param retryCount the message's retry count at this step
     * @param outcome the handler's decision ({@code ACK} for a dead letter, which is always acknowledged)
     * @param detail what happened, in words
     */
    public record Step(
            long elapsedMs, String orderId, String where, int retryCount, Outcome.Kind outcome, String detail) {}

    /**
     * Records and prints the steps, and completes {@link #finished()} once both orders reached their end: {@code o-1}
     * booked, {@code o-2} seen by {@code handleDead}. Thread-safe: handlers call it from their virtual threads.
     */
    public static final class Journey {
        private final PrintStream out;
        private final Duration holdDelay;
        private final long startNanos = System.nanoTime();
        private final List<Step> steps = new ArrayList<>();
        private final CompletableFuture<Void> finished = new CompletableFuture<>();
        private final CompletableFuture<Void> signal;
        private @Nullable SupervisorOutcome outcome;

        Journey(PrintStream out, Duration holdDelay, Duration timeout) {
            this.out = out;
            this.holdDelay = holdDelay;
            this.signal = finished.copy().completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Completes when the journey is complete, or when the timeout passes: the group's shutdown signal. */
        public CompletableFuture<Void> finished() {
            return signal;
        }

        synchronized void handled(OrderPaid order, MessageMetadata meta, String detail, Outcome.Kind outcome) {
            Step step = record(order.orderId(), "handle", meta.retryCount(), outcome, detail);
            String since = firstStep(order.orderId())
                    .filter(first -> first != step)
                    .map(first -> "  (" + (step.elapsedMs() - first.elapsedMs()) + " ms after the first delivery)")
                    .orElse("");
            print(step, detail + " -> " + outcome.tag() + since);
            if (order.orderId().equals("o-1") && outcome == Outcome.Kind.ACK) {
                completeIfDone();
            }
        }

        synchronized void dead(OrderPaid order, DeadMessageMetadata meta) {
            String detail = "reason \"%s\", from queue '%s', death count %d"
                    .formatted(meta.reason(), meta.originalQueue(), meta.deathCount());
            Step step = record(order.orderId(), "handleDead", meta.message().retryCount(), Outcome.Kind.ACK, detail);
            print(step, detail);
            completeIfDone();
        }

        void stopped(SupervisorOutcome outcome) {
            synchronized (this) {
                this.outcome = outcome;
            }
            out.printf("[%6d ms] group stopped, exit code %d%n", elapsedMs(), outcome.exitCode());
        }

        /** Every step so far, in order. */
        public synchronized List<Step> steps() {
            return List.copyOf(steps);
        }

        /** How the group ended, once it has stopped. */
        public synchronized Optional<SupervisorOutcome> outcome() {
            return Optional.ofNullable(outcome);
        }

        /**
         * What is missing or wrong compared with the journey in the class comment; empty when it completed: {@code
         * o-1} handled with retryCount 0 (retry), then with retryCount 1 (ack) at least the hold delay later; {@code
         * o-2} rejected and passed to handleDead; the group stopped cleanly.
         */
        public synchronized List<String> problems() {
            List<String> problems = new ArrayList<>();
            List<Step> o1 =
                    steps.stream().filter(s -> s.orderId().equals("o-1")).toList();
            List<Step> o2 =
                    steps.stream().filter(s -> s.orderId().equals("o-2")).toList();
            if (o1.size() != 2
                    || o1.get(0).retryCount() != 0
                    || o1.get(0).outcome() != Outcome.Kind.RETRY
                    || o1.get(1).retryCount() != 1
                    || o1.get(1).outcome() != Outcome.Kind.ACK) {
                problems.add(
                        "o-1 should be retried at retryCount 0 and booked at retryCount 1, but its steps were " + o1);
            } else if (o1.get(1).elapsedMs() - o1.get(0).elapsedMs() < holdDelay.toMillis()) {
                problems.add("o-1 came back %d ms after its first delivery, before its %d ms hold delay"
                        .formatted(o1.get(1).elapsedMs() - o1.get(0).elapsedMs(), holdDelay.toMillis()));
            }
            if (o2.size() != 2
                    || o2.get(0).outcome() != Outcome.Kind.REJECT
                    || !o2.get(1).where().equals("handleDead")
                    || !o2.get(1).detail().contains("rejected: amount must be positive")) {
                problems.add("o-2 should be rejected, then seen by handleDead, but its steps were " + o2);
            }
            if (outcome == null || !outcome.isClean()) {
                problems.add("the group should stop cleanly, but ended with " + outcome);
            }
            return problems;
        }

        void printVerdict() {
            List<String> problems = problems();
            if (problems.isEmpty()) {
                out.println("journey complete: first delivery, a retry after the hold delay with retryCount 1,"
                        + " and the dead-letter queue with handleDead");
            } else {
                out.println("journey INCOMPLETE:");
                problems.forEach(p -> out.println("  - " + p));
            }
        }

        private Step record(String orderId, String where, int retryCount, Outcome.Kind outcome, String detail) {
            Step step = new Step(elapsedMs(), orderId, where, retryCount, outcome, detail);
            steps.add(step);
            return step;
        }

        private Optional<Step> firstStep(String orderId) {
            return steps.stream().filter(s -> s.orderId().equals(orderId)).findFirst();
        }

        private void print(Step step, String text) {
            out.printf(
                    "[%6d ms] %-4s %-10s retryCount=%d  %s%n",
                    step.elapsedMs(), step.orderId(), step.where(), step.retryCount(), text);
        }

        private void completeIfDone() {
            boolean booked = steps.stream().anyMatch(s -> s.orderId().equals("o-1") && s.outcome() == Outcome.Kind.ACK);
            boolean dead = steps.stream().anyMatch(s -> s.where().equals("handleDead"));
            if (booked && dead) {
                finished.complete(null);
            }
        }

        private long elapsedMs() {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        }
    }
}
