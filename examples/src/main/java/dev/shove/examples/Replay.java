package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * Reading a retained log again: a handler that seeks back to a position it captured, and a new consumer group that
 * starts at the beginning of the log.
 *
 * <p>The in-memory broker keeps its queues as logs here ({@link InMemoryConfig.Builder#retention}). Topic {@code
 * deposits} holds six deposits to one account, each with the balance the bank computed after it. A projection adds
 * them up and checks its balance against the bank's after every deposit; at each match it takes a checkpoint: the
 * deposit's {@link MessageMetadata#position() position} and the balance before it.
 *
 * <ol>
 *   <li><b>Seek back.</b> The projection's store loses the write of deposit #3 (once). At #3 the balances disagree,
 *       so the handler rolls the store back to the checkpoint and returns {@code Outcome.ack().andSeek(checkpoint)}:
 *       the consumer reads #2 again, then #3 and the rest. The handler sees #1, #2, #3, #2, #3, #4, #5, #6 and ends
 *       with the bank's balance.
 *   <li><b>Start at.</b> That group stops. A new group, registered with {@code withStartAt(Position.start())}, reads
 *       all six deposits again from the start of the log and computes the same balance. (Without it, a consumer of
 *       the in-memory broker goes on from the queue's shared position, here the end of the log.)
 *   <li><b>No log, no seeking.</b> Registering a seeking handler on a broker without retention fails at once.
 * </ol>
 *
 * <p>Run it with {@code scripts/quickstart.sh Replay}.
 */
public final class Replay {

    /** How long each part may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    static final int DEPOSITS = 6;

    private Replay() {}

    /**
     * A deposit, as the bank reports it.
     *
     * @param seq its number, from 1
     * @param cents how much
     * @param balanceAfter the account's balance after it, according to the bank
     */
    public record Deposit(int seq, long cents, long balanceAfter) {}

    static final Topic<Deposit> DEPOSITS_TOPIC = Topic.builder("deposits", Deposit.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    // region seek
    /** Adds deposits up, checks each against the bank's balance, and reads again from its checkpoint on a mismatch. */
    static final class ProjectionHandler implements MessageHandler<Deposit, Projection> {
        @Override
        public Outcome handle(Deposit deposit, MessageMetadata meta, Projection projection) {
            long before = projection.balance();
            long after = projection.add(deposit); // the store may lose the write
            if (after == deposit.balanceAfter()) {
                projection.checkpoint(meta.position().orElseThrow(), before); // this deposit, and the balance before it
                return Outcome.ack();
            }
            Projection.Checkpoint checkpoint = projection.rollBack(); // the balance back to the checkpoint's
            return Outcome.ack().andSeek(checkpoint.position()); // that deposit again, then the rest
        }
    }
    // endregion seek

    /** Runs all three parts; exits 0 when each did what the class comment says. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Runs the three parts, printing what the handlers see. */
    public static Result run(PrintStream out, Duration timeout) {
        List<Deposit> deposits = IntStream.rangeClosed(1, DEPOSITS)
                .mapToObj(i -> new Deposit(i, i * 100L, i * (i + 1) * 50L))
                .toList();
        long expected = deposits.getLast().balanceAfter();
        Projection live = new Projection(out, "live   ", 3);
        Projection rebuilt = new Projection(out, "rebuilt", 0);
        SupervisorOutcome liveOutcome;
        SupervisorOutcome rebuiltOutcome;
        try (Broker<InMemory> broker =
                Broker.connect(InMemoryConfig.builder().retention(10_000).build())) { // queues keep 10,000 messages
            broker.topology().declare(DEPOSITS_TOPIC);
            broker.publisher().publishBatch(DEPOSITS_TOPIC, deposits);
            out.printf("%d deposits in the log; the bank's final balance is %d%n", DEPOSITS, expected);

            // region register-seeking
            var group = broker.consumerGroup().withContext(live);
            group.register(
                    DEPOSITS_TOPIC,
                    ConsumerGroupConfig.builder()
                            .prefetch(1) // one deposit at a time: the balance check needs order
                            .seeking() // handlers may move the subscription
                            .build(),
                    ProjectionHandler::new);
            // endregion register-seeking
            liveOutcome = group.runUntil(live.reached(expected, DEPOSITS + 2, timeout), Duration.ofSeconds(5));

            // region register-start-at
            var fresh = broker.consumerGroup().withContext(rebuilt);
            fresh.register(
                    DEPOSITS_TOPIC,
                    ConsumerGroupConfig.builder()
                            .prefetch(1)
                            .startAt(Position.start()) // on every start: from the oldest retained message
                            .groupName("deposits-rebuild")
                            .build(),
                    ProjectionHandler::new);
            // endregion register-start-at
            rebuiltOutcome = fresh.runUntil(rebuilt.reached(expected, DEPOSITS, timeout), Duration.ofSeconds(5));
        }

        String refusal;
        try (Broker<InMemory> plain = Broker.connect(InMemoryConfig.ofDefaults())) {
            plain.consumerGroup()
                    .withContext(rebuilt)
                    .register(
                            DEPOSITS_TOPIC,
                            ConsumerGroupConfig.builder().seeking().build(),
                            ProjectionHandler::new);
            refusal = "(not refused)";
        } catch (IllegalArgumentException e) {
            refusal = e.getMessage();
        }
        out.println("without retention: " + refusal);

        Result result = new Result(
                live.seen(), live.balance(), liveOutcome, rebuilt.seen(), rebuilt.balance(), rebuiltOutcome, refusal);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "the live projection healed itself by seeking back; the rebuilt one read the log from the"
                                + " start; both end at " + expected
                        : "UNEXPECTED: " + problems);
        return result;
    }

    /**
     * What the run recorded.
     *
     * @param live the deposits the live projection handled, in order
     * @param liveBalance its final balance
     * @param liveOutcome how its group stopped
     * @param rebuilt the deposits the rebuilt projection handled, in order
     * @param rebuiltBalance its final balance
     * @param rebuiltOutcome how its group stopped
     * @param refusal the message of the registration refused without retention
     */
    public record Result(
            List<Integer> live,
            long liveBalance,
            SupervisorOutcome liveOutcome,
            List<Integer> rebuilt,
            long rebuiltBalance,
            SupervisorOutcome rebuiltOutcome,
            String refusal) {

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            long expected = DEPOSITS * (DEPOSITS + 1) * 50L;
            if (!live.equals(List.of(1, 2, 3, 2, 3, 4, 5, 6)) || liveBalance != expected) {
                problems.add(
                        "the live projection should see 1, 2, 3, 2, 3, 4, 5, 6 and end at %d, saw %s and ended at %d"
                                .formatted(expected, live, liveBalance));
            }
            if (!rebuilt.equals(List.of(1, 2, 3, 4, 5, 6)) || rebuiltBalance != expected) {
                problems.add("the rebuilt projection should see 1 to 6 and end at %d, saw %s and ended at %d"
                        .formatted(expected, rebuilt, rebuiltBalance));
            }
            if (!refusal.contains("startAt/seeking need a backend whose subscriptions are logs")) {
                problems.add("registering a seeking handler without retention should fail, got: " + refusal);
            }
            if (!liveOutcome.isClean() || !rebuiltOutcome.isClean()) {
                problems.add("both groups should stop cleanly, ended with " + liveOutcome + " and " + rebuiltOutcome);
            }
            return problems;
        }
    }

    /**
     * The context: a projection's store (one balance) and its checkpoint. The store loses the write of deposit
     * {@code losesWriteOf} the first time (0: never). Thread-safe.
     */
    public static final class Projection {
        /**
         * Where to read again from, and the balance before that deposit.
         *
         * @param position the position of the last deposit that matched the bank's balance
         * @param balanceBefore the balance before that deposit
         */
        record Checkpoint(Position position, long balanceBefore) {}

        private final PrintStream out;
        private final String name;
        private final AtomicBoolean lostOnce = new AtomicBoolean();
        private final int losesWriteOf;
        private final List<Integer> seen = new CopyOnWriteArrayList<>();
        private long balance;
        private @Nullable Checkpoint checkpoint;

        Projection(PrintStream out, String name, int losesWriteOf) {
            this.out = out;
            this.name = name;
            this.losesWriteOf = losesWriteOf;
        }

        synchronized long balance() {
            return balance;
        }

        /** Adds a deposit and returns the new balance; the write of {@code losesWriteOf} is lost the first time. */
        synchronized long add(Deposit deposit) {
            seen.add(deposit.seq());
            if (deposit.seq() == losesWriteOf && lostOnce.compareAndSet(false, true)) {
                out.printf(
                        "%s deposit #%d: +%d lost by the store; balance %d, the bank says %d -> roll back, seek%n",
                        name, deposit.seq(), deposit.cents(), balance, deposit.balanceAfter());
                return balance;
            }
            balance += deposit.cents();
            out.printf(
                    "%s deposit #%d: +%d = %d%s%n",
                    name,
                    deposit.seq(),
                    deposit.cents(),
                    balance,
                    balance == deposit.balanceAfter() ? "" : " (the bank says " + deposit.balanceAfter() + ")");
            return balance;
        }

        synchronized void checkpoint(Position position, long balanceBefore) {
            checkpoint = new Checkpoint(position, balanceBefore);
        }

        /** Restores the balance of the checkpoint and returns it. */
        synchronized Checkpoint rollBack() {
            Checkpoint c = checkpoint;
            if (c == null) {
                throw new IllegalStateException("no checkpoint yet: the first deposit already disagrees");
            }
            out.printf("%s rolled back to %d; reading again from %s%n", name, c.balanceBefore(), c.position());
            balance = c.balanceBefore();
            return c;
        }

        List<Integer> seen() {
            return List.copyOf(seen);
        }

        /**
         * Completes once the balance is {@code target} after at least {@code deposits} deposits were handled, or when
         * {@code timeout} passes: a group's shutdown signal.
         */
        CompletableFuture<Void> reached(long target, int deposits, Duration timeout) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread.ofVirtual().name("replay-watch-" + name.trim()).start(() -> {
                long deadline = System.nanoTime() + timeout.toNanos();
                while (System.nanoTime() - deadline < 0 && !(balance() == target && seen.size() >= deposits)) {
                    try {
                        Thread.sleep(Duration.ofMillis(5));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                done.complete(null);
            });
            return done;
        }
    }
}
