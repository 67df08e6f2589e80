package dev.shove.conformance.faults;

import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Envelope;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The consumer of the fault suite, run in a child JVM by {@link FaultSuite} so that the suite can kill it with SIGKILL
 * at any moment: nothing of it can clean up, acknowledge or give a lease back. Connects with {@link
 * Broker#connect(String)}, so it serves every backend on its class path.
 *
 * <p>Arguments, in order: broker URI, topic name, seed, results file, mode ({@code single}: a {@code
 * MessageHandler}; {@code batch}: a {@code BatchMessageHandler}), hold tier in milliseconds, prefetch, batch size,
 * mean handler time in milliseconds, slow handler time in milliseconds. It prints {@code STARTED} on standard output
 * once its group consumes.
 *
 * <p>The handler does what {@link Decision#of(long, long)} says for the message's id, and appends two lines per call
 * to the results file, each flushed at once: {@code B id retryCount} before it works and {@code E id retryCount
 * outcome} after ({@code outcome} is {@code ack}, {@code retry} or {@code reject}). A kill may cut the last line short;
 * the suite ignores a last line without its newline. The group does not consume the dead-letter queue, so the suite
 * can count the dead letters at the end.
 *
 * @since 0.1.0
 */
public final class FaultConsumer {
    private final long seed;
    private final long workMs;
    private final long slowMs;
    private final BufferedWriter out;

    private FaultConsumer(long seed, long workMs, long slowMs, BufferedWriter out) {
        this.seed = seed;
        this.workMs = workMs;
        this.slowMs = slowMs;
        this.out = out;
    }

    /**
     * Runs the consumer until the process is killed.
     *
     * @param args see the class description
     * @throws Exception when it cannot connect or write its results
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 10) {
            throw new IllegalArgumentException("FaultConsumer takes 10 arguments (uri topic seed results mode holdMs"
                    + " prefetch batchSize workMs slowMs), got " + args.length);
        }
        String uri = args[0];
        Topic<FaultMessage> topic = FaultSuite.topic(args[1], Duration.ofMillis(Long.parseLong(args[5])));
        long seed = Long.parseLong(args[2]);
        Path results = Path.of(args[3]);
        String mode = args[4];
        int prefetch = Integer.parseInt(args[6]);
        int batchSize = Integer.parseInt(args[7]);
        BufferedWriter out = Files.newBufferedWriter(
                results, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        FaultConsumer consumer = new FaultConsumer(seed, Long.parseLong(args[8]), Long.parseLong(args[9]), out);

        Broker<?> broker = Broker.connect(uri);
        ConsumerGroup<?, NoContext> group = broker.consumerGroup();
        ConsumerGroupConfig config = ConsumerGroupConfig.builder()
                .consumers(1)
                .prefetch(prefetch)
                .noDeadLetterConsumer()
                .build();
        switch (mode) {
            case "single" -> group.register(topic, config, () -> consumer::handle);
            case "batch" ->
                group.registerBatch(
                        topic, config, BatchOptions.of(batchSize, Duration.ofMillis(20)), () -> consumer::handleBatch);
            default -> throw new IllegalArgumentException("mode must be single or batch, got '" + mode + "'");
        }
        group.start();
        System.out.println("STARTED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed
    }

    private Outcome handle(FaultMessage m, MessageMetadata meta, NoContext context) throws InterruptedException {
        int attempt = meta.retryCount();
        line("B " + m.id() + " " + attempt);
        Decision decision = Decision.of(seed, m.id());
        Thread.sleep(pause(m.id(), decision));
        Outcome outcome = outcome(decision, attempt);
        line("E " + m.id() + " " + attempt + " " + name(outcome));
        return outcome;
    }

    private BatchOutcome handleBatch(List<Envelope<FaultMessage>> batch, NoContext context)
            throws InterruptedException {
        long longest = 0;
        for (Envelope<FaultMessage> e : batch) {
            line("B " + e.message().id() + " " + e.metadata().retryCount());
            longest = Math.max(
                    longest,
                    pause(e.message().id(), Decision.of(seed, e.message().id())));
        }
        Thread.sleep(longest);
        List<Outcome> outcomes = new ArrayList<>(batch.size());
        for (Envelope<FaultMessage> e : batch) {
            int attempt = e.metadata().retryCount();
            Outcome outcome = outcome(Decision.of(seed, e.message().id()), attempt);
            outcomes.add(outcome);
            line("E " + e.message().id() + " " + attempt + " " + name(outcome));
        }
        return BatchOutcome.each(outcomes);
    }

    /** How long a call works: slow messages {@code slowMs}, the others 0..2x the mean, fixed by the id. */
    private long pause(long id, Decision decision) {
        if (decision == Decision.SLOW) {
            return slowMs;
        }
        return workMs == 0 ? 0 : Long.remainderUnsigned(Decision.mix(~seed, id), 2 * workMs + 1);
    }

    private static Outcome outcome(Decision decision, int attempt) {
        return switch (decision) {
            case ACK, SLOW -> Outcome.ack();
            case RETRY -> attempt == 0 ? Outcome.retry() : Outcome.ack();
            case REJECT -> Outcome.reject("rejected by the fault suite's decision");
        };
    }

    private static String name(Outcome outcome) {
        if (outcome.equals(Outcome.ack())) {
            return "ack";
        }
        return outcome.equals(Outcome.retry()) ? "retry" : "reject";
    }

    private void line(String line) {
        synchronized (out) {
            try {
                out.write(line);
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
