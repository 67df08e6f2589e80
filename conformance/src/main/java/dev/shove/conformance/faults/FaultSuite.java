package dev.shove.conformance.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.DeadLetter;
import dev.shove.Topic;
import dev.shove.conformance.ChildJvm;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * The fault suite: at-least-once under random faults, on any backend. It declares a topic with a short hold tier and a
 * dead-letter queue, publishes {@code messages} unique ids, and consumes them with two {@link FaultConsumer} child
 * JVMs (one {@code MessageHandler}, one batch handler) whose handlers acknowledge, retry once then acknowledge, or
 * reject each message as {@link Decision} says. Meanwhile it kills one consumer with SIGKILL at random moments (it
 * waits, for a while, for the victim to be inside a handler call: mid-handler or mid-batch; retries waiting in their
 * hold tier make a kill mid-hold) and starts a replacement, and restarts the broker once where the {@link FaultTarget}
 * can.
 *
 * <p>At the end, once every message reached its outcome and nothing more arrived for the settle time, it checks the
 * invariant: every message decided {@code ACK}/{@code SLOW}/{@code RETRY} was handled with outcome ack, every message
 * decided {@code REJECT} is in the dead-letter queue, none is lost, no acknowledged message is in the dead-letter
 * queue, and the duplicates the handlers saw (calls beyond one per message, two for a retry) stay within the in-flight
 * bound:
 *
 * <pre>
 * bound = 2 x (kills + restarts x consumers) x window
 * window = max(prefetch, batchPrefetch x batchSize) + settlementWindow
 *          (+ prefetch x slowMs / workMs where the broker's commit cannot pass an unfinished message: Kafka)
 * </pre>
 *
 * <p>Each fault can hand back to the broker what one consumer had in flight (its window: handler slots, plus the
 * settlements the backend may still hold to coalesce them); a retried message can be seen twice more (the original
 * redelivered after its hold copy was written, and that copy); hence the factor 2.
 *
 * <pre>{@code
 * FaultReport report = FaultSuite.builder("nats", server.url() + "?ackWait=2s")
 *         .messages(1_000)
 *         .target(FaultTarget.restarting("own nats-server", server::restart))
 *         .build()
 *         .run();
 * }</pre>
 *
 * <p>System properties override the CI defaults for a soak run: {@value #MESSAGES_PROPERTY} (messages), {@value
 * #SEED_PROPERTY} (seed), {@value #WORK_PROPERTY} (mean handler milliseconds), {@value #SLOW_PROPERTY} (the slow
 * calls' milliseconds) and {@value #ROWS_PROPERTY} (a file the report's Markdown row is appended to). Not thread-safe: one run at a time.
 *
 * @since 0.1.0
 */
public final class FaultSuite {
    /** System property: how many messages to publish, overriding {@link Builder#messages(int)}. */
    public static final String MESSAGES_PROPERTY = "shove.faults.messages";
    /** System property: the seed, overriding a random one. */
    public static final String SEED_PROPERTY = "shove.faults.seed";
    /** System property: the mean handler time in milliseconds, overriding {@link Builder#workMillis(long)}. */
    public static final String WORK_PROPERTY = "shove.faults.workMs";
    /** System property: how long a slow handler call takes in milliseconds (default 1,500). */
    public static final String SLOW_PROPERTY = "shove.faults.slowMs";
    /** System property: a file each run appends its {@link FaultReport#markdownRow()} to. */
    public static final String ROWS_PROPERTY = "shove.faults.rows";

    /** Batches the batch consumer handles at once; its window is this times the batch size. */
    static final int BATCH_PREFETCH = 2;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final int PUBLISH_CHUNK = 500;

    private final Builder b;
    private final int messages;
    private final long seed;
    private final long workMs;
    private final long slowMs;
    /** Consumer processes started so far, which numbers their files. */
    private int started;

    private FaultSuite(Builder b) {
        this.b = b;
        this.messages = Integer.getInteger(MESSAGES_PROPERTY, b.messages);
        String seedProperty = System.getProperty(SEED_PROPERTY);
        this.seed = seedProperty != null ? Long.parseLong(seedProperty) : b.seed;
        this.workMs = Long.getLong(WORK_PROPERTY, b.workMs);
        this.slowMs = Long.getLong(SLOW_PROPERTY, b.slowMs);
    }

    /**
     * {@return a builder for a run against the broker at {@code uri}}
     *
     * @param backend the backend's name for the report, e.g. {@code redis}
     * @param uri the broker URI both the suite and its consumers connect with ({@link Broker#connect(String)}),
     *     carrying the backend's recovery settings (e.g. {@code ?ackWait=2s})
     */
    public static Builder builder(String backend, String uri) {
        return new Builder(backend, uri);
    }

    /** The topic of a run: one hold tier, a dead-letter queue. */
    static Topic<FaultMessage> topic(String name, Duration hold) {
        return Topic.builder(name, FaultMessage.class).holdQueue(hold).dlq().build();
    }

    /**
     * Runs the suite: publishes, injects the faults, waits until everything settled, checks the invariant and prints
     * the summary.
     *
     * @return the figures of the run
     * @throws AssertionError when a message was lost, an acknowledged message was dead-lettered or the duplicates
     *     exceed the bound; the message names the seed and the ids
     * @throws Exception when the broker or a consumer cannot be started
     */
    public FaultReport run() throws Exception {
        long started = System.nanoTime();
        Topic<FaultMessage> topic = topic(b.topicName, b.hold);
        Path dir = Files.createTempDirectory("shove-faults-" + b.backend + "-");
        Random random = new Random(seed);
        List<Child> children = new ArrayList<>();
        Results results = new Results(messages, seed);
        int kills = 0, midHandler = 0, midBatch = 0, midHold = 0, restarts = 0;
        boolean passed = false;
        try (Broker<?> broker = Broker.connect(b.uri)) {
            broker.topology().declare(topic);
            for (int from = 0; from < messages; from += PUBLISH_CHUNK) {
                List<FaultMessage> chunk = LongStream.range(from, Math.min(messages, from + PUBLISH_CHUNK))
                        .mapToObj(FaultMessage::new)
                        .toList();
                broker.publisher().publishBatch(topic, chunk);
            }
            long published = System.nanoTime();
            children.add(start(dir, "single"));
            children.add(start(dir, "batch"));
            for (Child c : children) {
                c.awaitStarted();
            }

            // the faults: kills at random moments until the work is done and the minimum was reached; one broker
            // restart as the second fault, where the target can
            long deadline = System.nanoTime() + scaled(b.faultPhase).toNanos();
            int fault = 0;
            while ((fault < b.minKills + (b.target.canRestart() ? 1 : 0) || !results.allDone(children))
                    && System.nanoTime() < deadline) {
                pause(b.killEveryMin.toMillis()
                        + random.nextLong(b.killEveryMax.toMillis() - b.killEveryMin.toMillis() + 1));
                fault++;
                if (fault == 2 && b.target.canRestart()) {
                    b.target.restart();
                    restarts++;
                    continue;
                }
                int index = random.nextInt(children.size());
                Child victim = children.get(index);
                // give the victim a moment to be inside a handler call, so most kills cut one short
                long wait = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                while (results.open(victim) == 0 && System.nanoTime() < wait) {
                    pause(5);
                }
                results.read(children);
                boolean inCall = results.open(victim) > 0;
                boolean holding = results.pendingHolds() > 0;
                victim.kill();
                kills++;
                if (inCall && victim.mode.equals("batch")) {
                    midBatch++;
                } else if (inCall) {
                    midHandler++;
                }
                if (holding) {
                    midHold++;
                }
                Child replacement = start(dir, victim.mode);
                children.set(index, replacement);
                results.retire(victim); // its whole lines still count, a torn last one does not
                replacement.awaitStarted();
            }

            long faulted = System.nanoTime();
            // drained: every message reached its outcome, the dead letters are stored, and nothing more arrives
            // each wait ends at its limit without failing: the check below then names what is missing
            settled("every message handled to its outcome", scaled(b.drainTimeout), () -> results.allDone(children));
            var dlq = broker.deadLetters(topic);
            settled(
                    "every rejected message in the dead-letter queue",
                    scaled(b.drainTimeout),
                    () -> dlq.count().orElse(Long.MAX_VALUE) >= results.rejects());
            settled(
                    "no handler call for " + b.settle + " (nothing pending or ready)",
                    scaled(b.drainTimeout).plus(b.settle),
                    () -> results.quietFor(children, b.settle));
            for (Child c : children) {
                c.kill();
            }
            results.read(children);

            Map<Long, Integer> deadLetters = new HashMap<>();
            List<DeadLetter<FaultMessage>> letters = dlq.browse((int) Math.min(Integer.MAX_VALUE, 3L * messages + 100));
            for (DeadLetter<FaultMessage> d : letters) {
                long id = d.message()
                        .map(FaultMessage::id)
                        .orElseThrow(() -> new AssertionError("unreadable dead letter " + d));
                deadLetters.merge(id, 1, Integer::sum);
            }
            int consumers = 2;
            long window = Math.max(b.prefetch, (long) BATCH_PREFETCH * b.batchSize) + b.settlementWindow;
            if (b.contiguousCommit) {
                // the messages one consumer completes while its oldest one is in a slow call, at the mean pace
                window += (long) b.prefetch * slowMs / Math.max(1, workMs);
            }
            long bound = 2L * (kills + (long) restarts * consumers) * window;
            Set<Long> lost = results.lost(deadLetters.keySet());
            Set<Long> ackDead = results.ackDeadLettered(deadLetters.keySet());
            long dlqDuplicates =
                    deadLetters.values().stream().mapToLong(n -> n - 1L).sum();
            FaultReport report = new FaultReport(
                    b.backend,
                    messages,
                    kills,
                    midHandler,
                    midBatch,
                    midHold,
                    restarts,
                    lost.size(),
                    ackDead.size(),
                    results.duplicates(),
                    dlqDuplicates,
                    bound,
                    (System.nanoTime() - started) / 1e9,
                    seed,
                    b.target.description());
            System.out.println(report.summary());
            System.out.printf(
                    java.util.Locale.ROOT,
                    "fault suite %s phases: publish %.1f s, faults %.1f s, drain and check %.1f s%n",
                    b.backend,
                    (published - started) / 1e9,
                    (faulted - published) / 1e9,
                    (System.nanoTime() - faulted) / 1e9);
            String rows = System.getProperty(ROWS_PROPERTY);
            if (rows != null) {
                Files.writeString(
                        Path.of(rows),
                        report.markdownRow() + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            }
            assertThat(lost)
                    .as(
                            "messages lost (neither acknowledged nor dead-lettered), seed %d; results in %s; the first:%n%s",
                            seed,
                            dir,
                            results.describe(lost.stream().sorted().limit(10).toList()))
                    .isEmpty();
            assertThat(ackDead)
                    .as("messages decided ack that ended in the dead-letter queue, seed %d", seed)
                    .isEmpty();
            assertThat(results.duplicates() + dlqDuplicates)
                    .as("duplicates within the in-flight bound %s, seed %d", report.summary(), seed)
                    .isLessThanOrEqualTo(bound);
            passed = true;
            return report;
        } finally {
            for (Child c : children) {
                c.kill();
            }
            for (Child c : results.retired) {
                c.kill();
            }
            if (passed) {
                delete(dir);
            } else {
                System.out.println("fault suite " + b.backend + ": results kept in " + dir + " (seed " + seed + ")");
            }
        }
    }

    private Child start(Path dir, String mode) throws IOException {
        int number = started++;
        Path results = dir.resolve("consumer-" + number + "-" + mode + ".log");
        List<String> command = ChildJvm.command(
                FaultConsumer.class,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                List.of(
                        b.uri,
                        b.topicName,
                        Long.toString(seed),
                        results.toString(),
                        mode,
                        Long.toString(b.hold.toMillis()),
                        Integer.toString(mode.equals("batch") ? BATCH_PREFETCH : b.prefetch),
                        Integer.toString(b.batchSize),
                        Long.toString(workMs),
                        Long.toString(slowMs)));
        Files.createFile(results);
        Process process = new ProcessBuilder(command)
                .redirectError(
                        dir.resolve("consumer-" + number + "-" + mode + ".err").toFile())
                .redirectOutput(
                        dir.resolve("consumer-" + number + "-" + mode + ".out").toFile())
                .start();
        return new Child(process, mode, results, dir.resolve("consumer-" + number + "-" + mode + ".out"));
    }

    /** Waits until {@code condition} holds or {@code limit} passes, saying which when it gave up. */
    private void settled(String what, Duration limit, java.util.concurrent.Callable<Boolean> condition) {
        try {
            await(what).atMost(limit).pollInterval(Duration.ofMillis(200)).until(condition);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            System.out.println("fault suite " + b.backend + ": gave up waiting for " + what + " after " + limit);
        }
    }

    /** A limit set for the builder's message count, stretched for a run with more (a soak run). */
    private Duration scaled(Duration limit) {
        return messages <= b.messages ? limit : limit.multipliedBy((messages + b.messages - 1) / b.messages);
    }

    /** Waits between faults: the fault schedule is the point here, not a condition to wait for. */
    private static void pause(long millis) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    private static void delete(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }

    /** A consumer child JVM and its results file. */
    private static final class Child {
        final Process process;
        final String mode;
        final Path results;
        final Path stdout;
        /** Bytes of the results file already read (whole lines only). */
        long offset;
        /** Handler calls begun and not ended: {@code id:attempt}. */
        final Set<String> open = new HashSet<>();

        Child(Process process, String mode, Path results, Path stdout) {
            this.process = process;
            this.mode = mode;
            this.results = results;
            this.stdout = stdout;
        }

        void awaitStarted() {
            await("consumer " + results.getFileName() + " started")
                    .atMost(START_TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException("consumer " + results.getFileName() + " exited with "
                                    + process.exitValue() + ": see its .err file beside it");
                        }
                        return Files.readString(stdout).contains("STARTED");
                    });
        }

        void kill() {
            process.destroyForcibly(); // SIGKILL
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** What the consumers wrote, read as it grows: handler calls per message and outcomes seen. */
    private static final class Results {
        final int messages;
        final long seed;
        final int[] calls;
        final BitSet done = new BitSet();
        final BitSet retried = new BitSet();
        final BitSet retryBegun = new BitSet();
        final List<Child> retired = new ArrayList<>();
        /** Every consumer ever started, in order. */
        final List<Child> children = new ArrayList<>();

        long lastLineNanos = System.nanoTime();

        Results(int messages, long seed) {
            this.messages = messages;
            this.seed = seed;
            this.calls = new int[messages];
        }

        void retire(Child child) {
            retired.add(child);
        }

        int open(Child child) {
            read(List.of(child));
            return child.open.size();
        }

        int pendingHolds() {
            BitSet waiting = (BitSet) retried.clone();
            waiting.andNot(retryBegun);
            return waiting.cardinality();
        }

        long rejects() {
            return LongStream.range(0, messages)
                    .filter(id -> Decision.of(seed, id) == Decision.REJECT)
                    .count();
        }

        boolean allDone(List<Child> children) {
            read(children);
            return done.cardinality() == messages;
        }

        boolean quietFor(List<Child> children, Duration quiet) {
            read(children);
            return System.nanoTime() - lastLineNanos >= quiet.toNanos();
        }

        long duplicates() {
            long d = 0;
            for (int id = 0; id < messages; id++) {
                d += Math.max(0, calls[id] - Decision.of(seed, id).expectedCalls());
            }
            return d;
        }

        Set<Long> lost(Set<Long> deadLettered) {
            Set<Long> lost = new HashSet<>();
            for (long id = 0; id < messages; id++) {
                boolean reject = Decision.of(seed, id) == Decision.REJECT;
                if (reject ? !deadLettered.contains(id) : !done.get((int) id)) {
                    lost.add(id);
                }
            }
            return lost;
        }

        /** The lines every consumer wrote about these messages, for a failure message. */
        String describe(List<Long> ids) {
            StringBuilder out = new StringBuilder();
            for (long id : ids) {
                out.append("  ")
                        .append(id)
                        .append(" (")
                        .append(Decision.of(seed, id))
                        .append("):");
                for (Child c : children) {
                    try (var lines = Files.lines(c.results)) {
                        lines.filter(l -> l.matches("[BE] " + id + " .*"))
                                .forEach(l -> out.append(" [")
                                        .append(c.results.getFileName())
                                        .append(": ")
                                        .append(l)
                                        .append("]"));
                    } catch (IOException e) {
                        out.append(" (").append(e).append(")");
                    }
                }
                out.append(System.lineSeparator());
            }
            return out.toString();
        }

        Set<Long> ackDeadLettered(Set<Long> deadLettered) {
            return deadLettered.stream()
                    .filter(id -> Decision.of(seed, id) != Decision.REJECT)
                    .collect(Collectors.toSet());
        }

        void read(List<Child> children) {
            for (Child c : children) {
                read(c);
            }
            for (Child c : retired) {
                read(c);
            }
        }

        private void read(Child c) {
            if (!children.contains(c)) {
                children.add(c);
            }
            try (RandomAccessFile f = new RandomAccessFile(c.results.toFile(), "r")) {
                long length = f.length();
                if (length <= c.offset) {
                    return;
                }
                byte[] bytes = new byte[(int) (length - c.offset)];
                f.seek(c.offset);
                f.readFully(bytes);
                int end = lastNewline(bytes);
                if (end < 0) {
                    return; // a line being written, or the torn last line of a killed consumer
                }
                c.offset += end + 1;
                lastLineNanos = System.nanoTime();
                for (String line : new String(bytes, 0, end, StandardCharsets.UTF_8).split("\n")) {
                    apply(c, line);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static int lastNewline(byte[] bytes) {
            for (int i = bytes.length - 1; i >= 0; i--) {
                if (bytes[i] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        private void apply(Child c, String line) {
            String[] p = line.split(" ");
            int id = Integer.parseInt(p[1]);
            int attempt = Integer.parseInt(p[2]);
            if (p[0].equals("B")) {
                calls[id]++;
                c.open.add(id + ":" + attempt);
                if (attempt > 0) {
                    retryBegun.set(id);
                }
                return;
            }
            c.open.remove(id + ":" + attempt);
            switch (p[3]) {
                case "ack", "reject" -> done.set(id);
                case "retry" -> retried.set(id);
                default -> throw new IllegalStateException("unknown outcome in " + c.results + ": " + line);
            }
        }
    }

    /**
     * Settings of a run; the defaults suit a CI run of a thousand messages. Not thread-safe.
     *
     * @since 0.1.0
     */
    public static final class Builder {
        private final String backend;
        private final String uri;
        private String topicName;
        private int messages = 1_000;
        private long seed = new Random().nextLong();
        private FaultTarget target = FaultTarget.none("none given");
        private Duration hold = Duration.ofSeconds(1);
        private int prefetch = 5;
        private int batchSize = 5;
        private long workMs = 50;
        private long slowMs = 1_500;
        private int settlementWindow = 0;
        private boolean contiguousCommit;
        private int minKills = 3;
        private Duration killEveryMin = Duration.ofSeconds(2);
        private Duration killEveryMax = Duration.ofSeconds(5);
        private Duration faultPhase = Duration.ofSeconds(60);
        private Duration settle = Duration.ofSeconds(3);
        private Duration drainTimeout = Duration.ofSeconds(90);

        private Builder(String backend, String uri) {
            this.backend = Objects.requireNonNull(backend, "backend");
            this.uri = Objects.requireNonNull(uri, "uri");
            this.topicName = "faults-" + Long.toHexString(System.nanoTime());
        }

        /**
         * Sets the topic's name; default {@code faults-<hex>}, new per run.
         *
         * @param name the topic name
         * @return this builder
         */
        public Builder topicName(String name) {
            this.topicName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Sets how many messages to publish; default 1,000. The {@value #MESSAGES_PROPERTY} system property wins.
         *
         * @param messages at least 1
         * @return this builder
         */
        public Builder messages(int messages) {
            if (messages < 1) {
                throw new IllegalArgumentException("messages must be at least 1, got " + messages);
            }
            this.messages = messages;
            return this;
        }

        /**
         * Sets the seed of the decisions and the fault schedule; default random (printed in the summary). The {@value
         * #SEED_PROPERTY} system property wins.
         *
         * @param seed any value
         * @return this builder
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Sets what restarts the broker; default none.
         *
         * @param target the broker side of the faults
         * @return this builder
         */
        public Builder target(FaultTarget target) {
            this.target = Objects.requireNonNull(target, "target");
            return this;
        }

        /**
         * Sets the handler's mean time per message (0..2x this, fixed per id), which paces the run so the faults hit
         * work in progress; default 50 ms. The {@value #WORK_PROPERTY} system property wins.
         *
         * @param millis at least 0
         * @return this builder
         */
        public Builder workMillis(long millis) {
            this.workMs = millis;
            return this;
        }

        /**
         * Sets how many settlements a backend may hold back to coalesce them, added to each consumer's in-flight
         * window in the duplicate bound; default 0.
         *
         * @param messages at least 0
         * @return this builder
         */
        public Builder settlementWindow(int messages) {
            this.settlementWindow = messages;
            return this;
        }

        /**
         * Says that the broker records consumption as one position that cannot pass an unfinished message (Kafka's
         * committed offset): a kill then hands back, besides what was in flight, every message completed after the
         * oldest unfinished one. The duplicate bound's window grows by what one consumer completes during one slow
         * call at the mean pace: {@code prefetch x slowMs / workMs}. Default: off.
         *
         * @return this builder
         */
        public Builder contiguousCommit() {
            this.contiguousCommit = true;
            return this;
        }

        /**
         * Sets the fewest consumer kills; default 3. Kills go on while messages remain, up to the fault phase.
         *
         * @param kills at least 1
         * @return this builder
         */
        public Builder minKills(int kills) {
            this.minKills = kills;
            return this;
        }

        /**
         * Sets how long the suite waits with no handler call at all before it calls the run drained: at least the
         * backend's redelivery time after a kill (ack wait, claim idle, visibility timeout, session timeout); default 3
         * s.
         *
         * @param quiet the quiet time
         * @return this builder
         */
        public Builder settle(Duration quiet) {
            this.settle = Objects.requireNonNull(quiet, "quiet");
            return this;
        }

        /**
         * Sets the random interval between faults; default 2 to 5 s.
         *
         * @param min the shortest interval
         * @param max the longest interval, at least {@code min}
         * @return this builder
         */
        public Builder faultEvery(Duration min, Duration max) {
            if (max.compareTo(min) < 0) {
                throw new IllegalArgumentException("fault interval max " + max + " is below min " + min);
            }
            this.killEveryMin = min;
            this.killEveryMax = max;
            return this;
        }

        /**
         * Sets the longest the faults go on and the longest the drain may take afterwards; defaults 60 s and 90 s, for
         * the messages set here: a run with more (the {@value #MESSAGES_PROPERTY} property) stretches both by the
         * ratio.
         *
         * @param faults the fault phase's limit
         * @param drain the limit to reach every outcome afterwards
         * @return this builder
         */
        public Builder limits(Duration faults, Duration drain) {
            this.faultPhase = Objects.requireNonNull(faults, "faults");
            this.drainTimeout = Objects.requireNonNull(drain, "drain");
            return this;
        }

        /** {@return the suite with these settings} */
        public FaultSuite build() {
            return new FaultSuite(this);
        }
    }
}
