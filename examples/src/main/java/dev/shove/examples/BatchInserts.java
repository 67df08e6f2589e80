package dev.shove.examples;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.Envelope;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * A batch handler: sensor readings are inserted into a table in batches of up to {@value #MAX_BATCH}, one round trip
 * per batch, and every reading gets its own outcome.
 *
 * <p>{@value #READINGS} readings wait in the topic when the group starts. The table inserts a batch and answers per
 * row:
 *
 * <ul>
 *   <li>most rows are inserted: {@link Outcome#ack()};
 *   <li>{@code r-5} and {@code r-17} carry a sensor fault (999 °C) and are refused: {@link Outcome#reject(String)},
 *       so they go to the dead-letter queue and reach {@code handleDead};
 *   <li>{@code r-3} and {@code r-12} time out on a row lock the first time: {@link Outcome#retry()}, so they wait out
 *       the hold tier and come back, with {@code retryCount} 1, in a later batch, where they are inserted.
 * </ul>
 *
 * <p>Every batch is printed with its size and what became of its readings. Run it with {@code scripts/quickstart.sh
 * BatchInserts}; it exits 0 when every reading was inserted exactly once or dead-lettered, and no batch was larger
 * than asked.
 */
public final class BatchInserts {

    /** How many readings are published. */
    public static final int READINGS = 24;

    /** The most readings in one batch. */
    public static final int MAX_BATCH = 10;

    /** The hold tier a retried reading waits in. */
    public static final Duration HOLD_DELAY = Duration.ofMillis(500);

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    static final Set<String> FAULTY = Set.of("r-5", "r-17");
    static final Set<String> CONTENDED = Set.of("r-3", "r-12");

    private BatchInserts() {}

    /**
     * One temperature reading.
     *
     * @param readingId the reading
     * @param sensor where it was taken
     * @param celsius the temperature
     */
    public record Reading(String readingId, String sensor, int celsius) {}

    static Topic<Reading> readings(Duration holdDelay) {
        return Topic.builder("readings", Reading.class)
                .holdQueue(holdDelay)
                .dlq()
                .build();
    }

    // region handler
    /** Inserts a whole batch in one call, then settles each reading by what the table said about its row. */
    static final class ReadingBatchHandler implements BatchMessageHandler<Reading, SensorTable> {
        @Override
        public BatchOutcome handle(List<Envelope<Reading>> batch, SensorTable table) {
            List<Reading> readings = batch.stream().map(Envelope::message).toList();
            List<SensorTable.Row> rows = table.insertAll(readings); // one round trip for the whole batch
            List<Outcome> outcomes = new ArrayList<>(batch.size());
            for (SensorTable.Row row : rows) {
                outcomes.add(
                        switch (row) {
                            case INSERTED -> Outcome.ack();
                            case OUT_OF_RANGE -> Outcome.reject("temperature out of range");
                            case LOCK_TIMEOUT -> Outcome.retry(); // comes back with retryCount + 1, in a later batch
                        });
            }
            table.printBatch(batch, rows);
            return BatchOutcome.each(outcomes); // outcome i settles message i
        }

        @Override
        public void handleDead(Reading reading, DeadMessageMetadata meta, SensorTable table) {
            table.deadLettered(reading, meta.reason());
        }
    }
    // endregion handler

    /** Runs the example with {@link #HOLD_DELAY}; exits 0 when it did what the class comment says. */
    public static void main(String[] args) {
        Result result = run(System.out, HOLD_DELAY, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /**
     * Publishes the readings, consumes them in batches until every one was inserted or dead-lettered (or {@code
     * timeout} passes), stops the group and prints a verdict.
     */
    public static Result run(PrintStream out, Duration holdDelay, Duration timeout) {
        SensorTable table = new SensorTable(out, CONTENDED);
        Topic<Reading> topic = readings(holdDelay);
        List<Reading> readings = IntStream.range(0, READINGS)
                .mapToObj(i -> new Reading(
                        "r-" + i,
                        List.of("hall", "lab", "roof", "cellar").get(i % 4),
                        FAULTY.contains("r-" + i) ? 999 : 18 + i % 7))
                .toList();
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            broker.topology().declare(topic);
            broker.publisher().publishBatch(topic, readings);
            out.printf(
                    "%d readings waiting; batches of at most %d; hold tier %d ms%n",
                    READINGS, MAX_BATCH, holdDelay.toMillis());
            // region register
            var group = broker.consumerGroup().withContext(table);
            group.registerBatch(
                    topic,
                    ConsumerGroupConfig.builder().prefetch(1).build(), // one batch at a time
                    // at most 10 per batch; a batch shove gathers closes 100 ms after its first message
                    BatchOptions.of(MAX_BATCH, Duration.ofMillis(100)),
                    ReadingBatchHandler::new);
            group.start();
            // endregion register
            table.startClock();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!table.settled(READINGS) && System.nanoTime() - deadline < 0) {
                sleep(Duration.ofMillis(5));
            }
            outcome = group.stop(Duration.ofSeconds(5));
        }
        Result result = table.result(outcome);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "every reading inserted once or dead-lettered; no batch larger than " + MAX_BATCH
                        : "UNEXPECTED: " + problems);
        return result;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One batch as the handler saw it.
     *
     * @param readingIds the readings, in batch order
     * @param retryCounts each reading's {@code retryCount}
     * @param rows what the table answered for each
     */
    public record Batch(List<String> readingIds, List<Integer> retryCounts, List<SensorTable.Row> rows) {}

    /**
     * What the run did.
     *
     * @param batches every batch, in the order handled
     * @param inserted how many times each reading was inserted
     * @param dead the dead letters seen by handleDead: reading id to reason
     * @param outcome how the group stopped
     */
    public record Result(
            List<Batch> batches, Map<String, Integer> inserted, Map<String, String> dead, SupervisorOutcome outcome) {

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            batches.stream()
                    .filter(b -> b.readingIds().size() > MAX_BATCH)
                    .forEach(b -> problems.add("a batch of " + b.readingIds().size() + " is over " + MAX_BATCH));
            for (int i = 0; i < READINGS; i++) {
                String id = "r-" + i;
                if (FAULTY.contains(id)) {
                    if (!"rejected: temperature out of range".equals(dead.get(id))) {
                        problems.add(id + " should be dead-lettered as out of range, was " + dead.get(id));
                    }
                    if (inserted.containsKey(id)) {
                        problems.add(id + " should never be inserted");
                    }
                } else if (inserted.getOrDefault(id, 0) != 1) {
                    problems.add(id + " should be inserted exactly once, was " + inserted.getOrDefault(id, 0));
                }
            }
            for (String id : CONTENDED) {
                boolean retried = batches.stream().anyMatch(b -> {
                    int at = b.readingIds().indexOf(id);
                    return at >= 0 && b.retryCounts().get(at) == 1 && b.rows().get(at) == SensorTable.Row.INSERTED;
                });
                if (!retried) {
                    problems.add(id + " should be inserted on its retry, with retryCount 1");
                }
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }

    /**
     * The context: a table of readings that inserts in batches. Rows of {@code contended} readings time out on a lock
     * the first time they are written. Prints each batch. Thread-safe.
     */
    public static final class SensorTable {
        /** What the table says about one row of a batch insert. */
        public enum Row {
            INSERTED,
            OUT_OF_RANGE,
            LOCK_TIMEOUT
        }

        private final PrintStream out;
        private final Set<String> contended;
        private final Set<String> attempted = new HashSet<>();
        private final Map<String, Integer> inserted = new LinkedHashMap<>();
        private final Map<String, String> dead = new LinkedHashMap<>();
        private final List<Batch> batches = new ArrayList<>();
        private long startNanos = System.nanoTime();

        SensorTable(PrintStream out, Set<String> contended) {
            this.out = out;
            this.contended = contended;
        }

        /** Times what is printed from now on. */
        synchronized void startClock() {
            startNanos = System.nanoTime();
        }

        /** Inserts the readings in one statement; one row result per reading, in order. */
        synchronized List<Row> insertAll(List<Reading> readings) {
            List<Row> rows = new ArrayList<>(readings.size());
            for (Reading r : readings) {
                boolean firstAttempt = attempted.add(r.readingId());
                if (r.celsius() < -90 || r.celsius() > 60) {
                    rows.add(Row.OUT_OF_RANGE);
                } else if (firstAttempt && contended.contains(r.readingId())) {
                    rows.add(Row.LOCK_TIMEOUT);
                } else {
                    inserted.merge(r.readingId(), 1, Integer::sum);
                    rows.add(Row.INSERTED);
                }
            }
            return rows;
        }

        synchronized void printBatch(List<Envelope<Reading>> batch, List<Row> rows) {
            List<String> ids = batch.stream().map(e -> e.message().readingId()).toList();
            List<Integer> retryCounts =
                    batch.stream().map(e -> e.metadata().retryCount()).toList();
            batches.add(new Batch(ids, retryCounts, rows));
            out.printf(
                    "[%6d ms] batch %d: %2d reading(s) %s -> %d inserted, %d rejected, %d retried%s%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos),
                    batches.size(),
                    ids.size(),
                    ids.size() <= 3 ? ids : "[" + ids.getFirst() + " .. " + ids.getLast() + "]",
                    rows.stream().filter(r -> r == Row.INSERTED).count(),
                    rows.stream().filter(r -> r == Row.OUT_OF_RANGE).count(),
                    rows.stream().filter(r -> r == Row.LOCK_TIMEOUT).count(),
                    retryCounts.stream().anyMatch(c -> c > 0) ? "  (retryCount " + retryCounts + ")" : "");
        }

        synchronized void deadLettered(Reading reading, String reason) {
            dead.put(reading.readingId(), reason);
            out.printf(
                    "[%6d ms] handleDead %s (%d °C): %s%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos),
                    reading.readingId(),
                    reading.celsius(),
                    reason);
        }

        /** Whether each of the {@code total} readings was inserted or dead-lettered. */
        synchronized boolean settled(int total) {
            return inserted.size() + dead.size() >= total;
        }

        synchronized Result result(SupervisorOutcome outcome) {
            return new Result(List.copyOf(batches), Map.copyOf(inserted), Map.copyOf(dead), outcome);
        }
    }
}
