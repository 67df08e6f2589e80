package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadLetter;
import dev.shove.DeadLetterOptions;
import dev.shove.DeadLetterQueue;
import dev.shove.DeadLetterReport;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Looking into a dead-letter queue and sending its messages back once the bug is fixed.
 *
 * <p>A payment service books payments into a ledger. The ledger cannot book Swiss francs yet: it throws {@link
 * UnsupportedCurrencyException}, retries do not help, and those payments end up in the dead-letter queue. One payment
 * has a negative amount and is rejected for good.
 *
 * <ol>
 *   <li><b>Look.</b> {@code broker.deadLetters(PAYMENTS)} counts the dead letters and browses them, with why each
 *       died (the exception's class and message, or the reject's reason), without taking them out.
 *   <li><b>Dry run.</b> A replay of the payments that died of the currency bug, as a dry run: it reports what would
 *       move and moves nothing.
 *   <li><b>Replay.</b> The fix is deployed (the ledger learns CHF) and the same replay runs for real: those payments
 *       go back to the topic, keep their ids, start their retries again, and are booked.
 *   <li><b>Purge.</b> The rejected payment is thrown away.
 * </ol>
 *
 * <p>Run it with {@code scripts/quickstart.sh DeadLetterReplay}.
 */
public final class DeadLetterReplay {

    /** How long the run may take before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private DeadLetterReplay() {}

    /** A payment to book. */
    public record Payment(String id, String currency, long cents) {}

    /** The ledger does not know the currency (yet). */
    public static final class UnsupportedCurrencyException extends Exception {
        private static final long serialVersionUID = 1L;

        UnsupportedCurrencyException(String currency) {
            super("the ledger cannot book " + currency);
        }
    }

    /** The ledger: books payments in the currencies it supports. */
    static final class Ledger {
        private final Set<String> currencies = ConcurrentHashMap.newKeySet();
        private final List<String> booked = new CopyOnWriteArrayList<>();

        Ledger() {
            currencies.add("EUR");
        }

        void book(Payment payment) throws UnsupportedCurrencyException {
            if (!currencies.contains(payment.currency())) {
                throw new UnsupportedCurrencyException(payment.currency());
            }
            booked.add(payment.id());
        }

        void support(String currency) {
            currencies.add(currency);
        }

        List<String> booked() {
            return List.copyOf(booked);
        }
    }

    static final Topic<Payment> PAYMENTS = Topic.builder("payments", Payment.class)
            .holdQueue(Duration.ofMillis(50))
            .dlq()
            .build();

    /** Books each payment; a negative amount is rejected, a ledger failure is retried (then dead-lettered). */
    static final class PaymentHandler implements MessageHandler<Payment, Ledger> {
        @Override
        public Outcome handle(Payment payment, MessageMetadata meta, Ledger ledger) throws Exception {
            if (payment.cents() < 0) {
                return Outcome.reject("negative amount");
            }
            ledger.book(payment);
            return Outcome.ack();
        }
    }

    /** Runs the four steps; exits 0 when each did what the class comment says. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Runs the four steps, printing what each sees. */
    public static Result run(PrintStream out, Duration timeout) {
        Ledger ledger = new Ledger();
        List<Payment> payments = List.of(
                new Payment("p-1", "EUR", 1_000),
                new Payment("p-2", "CHF", 2_500),
                new Payment("p-3", "EUR", -300),
                new Payment("p-4", "CHF", 4_200),
                new Payment("p-5", "EUR", 700));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup().withContext(ledger);
            group.register(
                    PAYMENTS,
                    ConsumerGroupConfig.builder()
                            .maxRetries(1)
                            .noDeadLetterConsumer() // dead letters stay in the queue for a person to look at
                            .build(),
                    PaymentHandler::new);
            group.start();
            broker.publisher().publishBatch(PAYMENTS, payments);

            // region browse
            DeadLetterQueue<Payment> dlq = broker.deadLetters(PAYMENTS);
            await(() -> dlq.count().orElse(0) == 3, timeout, "three dead letters");
            for (DeadLetter<Payment> dead : dlq.browse(20)) {
                out.printf(
                        "dead: %s %s (%s%s)%n",
                        dead.message().map(Payment::id).orElse("?"),
                        dead.metadata().reason(),
                        dead.metadata().exceptionClass().map(c -> c + ": ").orElse(""),
                        dead.metadata().exceptionMessage().orElse(""));
            }
            // endregion browse

            // region replay
            Predicate<DeadLetter<Payment>> currencyBug = dead -> dead.metadata()
                    .exceptionClass()
                    .filter(UnsupportedCurrencyException.class.getName()::equals)
                    .isPresent();
            DeadLetterReport dryRun =
                    dlq.replay(currencyBug, DeadLetterOptions.builder().dryRun().build());
            out.println("dry run: " + dryRun);

            ledger.support("CHF"); // the fix is deployed
            DeadLetterReport replayed = dlq.replay(
                    currencyBug, DeadLetterOptions.builder().ratePerSecond(100).build()); // gently, for a busy ledger
            out.println("replayed: " + replayed);
            // endregion replay
            await(() -> ledger.booked().size() == 4, timeout, "the replayed payments to be booked");

            // region purge
            DeadLetterReport purged = dlq.purge(
                    dead -> dead.metadata().reason().contains("negative amount"), DeadLetterOptions.ofDefaults());
            out.println("purged: " + purged);
            // endregion purge
            long left = dlq.count().orElse(-1);
            group.stop(Duration.ofSeconds(5));

            Result result = new Result(
                    dryRun.moved(), dryRun.dryRun(), replayed.moved(), purged.moved(), left, ledger.booked());
            List<String> problems = result.problems();
            out.println(
                    problems.isEmpty()
                            ? "the CHF payments were replayed and booked once the ledger learned CHF; the rejected one"
                                    + " was purged; the dead-letter queue is empty"
                            : "UNEXPECTED: " + problems);
            return result;
        }
    }

    /** Polls {@code condition} until it holds; fails after {@code timeout}, naming {@code what}. */
    private static void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("waited " + timeout + " for " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    /**
     * What the run recorded.
     *
     * @param wouldMove what the dry run said would move
     * @param wasDryRun whether the dry run said it was one
     * @param replayed how many dead letters the replay moved
     * @param purged how many the purge removed
     * @param left dead letters left at the end
     * @param booked the payments the ledger booked, in order
     */
    public record Result(
            long wouldMove, boolean wasDryRun, long replayed, long purged, long left, List<String> booked) {

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (wouldMove != 2 || !wasDryRun) {
                problems.add("the dry run should report the 2 CHF payments, reported " + wouldMove);
            }
            if (replayed != 2) {
                problems.add("the replay should move the 2 CHF payments, moved " + replayed);
            }
            if (purged != 1 || left != 0) {
                problems.add("the purge should remove the rejected payment and leave nothing, removed " + purged
                        + " and left " + left);
            }
            if (!Set.copyOf(booked).equals(Set.of("p-1", "p-2", "p-4", "p-5")) || booked.size() != 4) {
                problems.add("the ledger should book p-1, p-2, p-4 and p-5 once each, booked " + booked);
            }
            return problems;
        }
    }
}
