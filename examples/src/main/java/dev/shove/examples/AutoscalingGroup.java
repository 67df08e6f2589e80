package dev.shove.examples;

import dev.shove.AutoscalerConfig;
import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * A consumer group that scales itself: a backlog makes the autoscaler add consumers up to the maximum, and once the
 * backlog is gone it removes them again, down to the minimum.
 *
 * <p>The group runs between 1 and 4 consumers with a prefetch of 2, so one consumer handles 2 messages at once.
 * {@value #JOBS} thumbnail jobs of {@value #WORK_MS} ms each arrive at once. The built-in threshold strategy scales up
 * while more than 2 × capacity (consumers × prefetch) messages wait, and down while fewer than 0.5 × capacity wait;
 * the example uses a fast {@link AutoscalerConfig} (polls every 50 ms instead of 5 s) so the whole cycle takes a few
 * seconds. It prints every change in the number of consumers, then the autoscaler's decisions as counted by the
 * {@code shove.autoscaler.decisions} meter.
 *
 * <p>Run it with {@code scripts/quickstart.sh AutoscalingGroup}.
 */
public final class AutoscalingGroup {

    /** How many jobs are published. */
    public static final int JOBS = 200;

    /** How long one job takes, in milliseconds. */
    public static final int WORK_MS = 20;

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);

    private AutoscalingGroup() {}

    /**
     * A thumbnail to render.
     *
     * @param imageId the image
     */
    public record RenderThumbnail(int imageId) {}

    static final Topic<RenderThumbnail> THUMBNAILS = Topic.builder("thumbnails", RenderThumbnail.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    // region autoscaler
    /** The defaults poll every 5 s, want a wish to last 10 s and wait 30 s between actions; this is a demo. */
    static final AutoscalerConfig FAST = AutoscalerConfig.builder()
            .pollInterval(Duration.ofMillis(50)) // how often the queue depth is read
            .hysteresis(Duration.ofMillis(100)) // how long a wish to scale must last before it is acted on
            .cooldown(Duration.ofMillis(150)) // the quiet time after each scaling action
            .build();
    // endregion autoscaler

    /** The context: how long a job takes, and how many are done. */
    record Renderer(Duration work, AtomicInteger rendered) {}

    /** Renders one thumbnail: blocks for the job's duration, which is fine on a virtual thread. */
    static final class ThumbnailHandler implements MessageHandler<RenderThumbnail, Renderer> {
        @Override
        public Outcome handle(RenderThumbnail job, MessageMetadata meta, Renderer renderer)
                throws InterruptedException {
            Thread.sleep(renderer.work());
            renderer.rendered().incrementAndGet();
            return Outcome.ack();
        }
    }

    /** Runs the example with {@link #JOBS} jobs of {@link #WORK_MS} ms; exits 0 when the group scaled up and back. */
    public static void main(String[] args) {
        Result result = run(System.out, JOBS, Duration.ofMillis(WORK_MS), TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /**
     * Publishes {@code jobs} jobs, starts the group, watches it scale until every job is done and the group is back
     * at its minimum (or {@code timeout} passes), then stops it.
     */
    public static Result run(PrintStream out, int jobs, Duration work, Duration timeout) {
        MeterRegistry registry = new SimpleMeterRegistry();
        Renderer renderer = new Renderer(work, new AtomicInteger());
        List<Integer> counts = new ArrayList<>();
        long start = System.nanoTime();
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.builder(InMemoryConfig.ofDefaults())
                .meterRegistry(registry)
                .connect()) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            var group = broker.consumerGroup().withContext(renderer);
            // region register
            group.register(
                    THUMBNAILS,
                    ConsumerGroupConfig.builder()
                            .consumers(1, 4)
                            .prefetch(2)
                            .autoscaler(FAST)
                            .build(),
                    ThumbnailHandler::new);
            group.start();
            // endregion register
            broker.publisher()
                    .publishBatch(
                            THUMBNAILS,
                            IntStream.range(0, jobs)
                                    .mapToObj(RenderThumbnail::new)
                                    .toList());
            out.printf("%d jobs of %d ms published; consumers: min 1, max 4, prefetch 2%n", jobs, work.toMillis());
            long deadline = start + timeout.toNanos();
            int current = group.activeConsumers(THUMBNAILS);
            counts.add(current);
            boolean announcedDone = false;
            while (System.nanoTime() - deadline < 0) {
                int now = group.activeConsumers(THUMBNAILS);
                int done = renderer.rendered().get();
                long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (now != current) {
                    out.printf(
                            "[%6d ms] consumers %d -> %d   (waiting %d, done %d)%n",
                            elapsed, current, now, probe.depth(THUMBNAILS.name()), done);
                    current = now;
                    counts.add(now);
                }
                if (done == jobs && !announcedDone) {
                    out.printf("[%6d ms] all %d jobs done%n", elapsed, jobs);
                    announcedDone = true;
                }
                if (done == jobs && now == 1 && counts.size() > 1) {
                    break;
                }
                sleep(Duration.ofMillis(5));
            }
            outcome = group.stop(Duration.ofSeconds(5));
        }
        // region decisions
        Map<String, Double> decisions = new LinkedHashMap<>();
        for (String direction : List.of("up", "down", "hold")) {
            Counter c = registry.find("shove.autoscaler.decisions")
                    .tag("direction", direction)
                    .counter();
            decisions.put(direction, c == null ? 0.0 : c.count());
        }
        // endregion decisions
        out.printf(
                "autoscaler decisions (shove.autoscaler.decisions): up %.0f, down %.0f, hold %.0f%n",
                decisions.get("up"), decisions.get("down"), decisions.get("hold"));
        Result result = new Result(List.copyOf(counts), renderer.rendered().get(), jobs, decisions, outcome);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "scaled up to %d consumers under the backlog and back to 1 after it".formatted(result.peak())
                        : "UNEXPECTED: " + problems);
        return result;
    }

    /**
     * What the run did.
     *
     * @param consumerCounts the number of consumers, each time it changed, starting with the initial count
     * @param done jobs handled
     * @param jobs jobs published
     * @param decisions the {@code shove.autoscaler.decisions} count per direction ({@code up}, {@code down}, {@code
     *     hold})
     * @param outcome how the group stopped
     */
    public record Result(
            List<Integer> consumerCounts,
            int done,
            int jobs,
            Map<String, Double> decisions,
            SupervisorOutcome outcome) {

        /** The most consumers the group ran at once. */
        public int peak() {
            return consumerCounts.stream().mapToInt(Integer::intValue).max().orElse(0);
        }

        /** The number of consumers when the example stopped the group. */
        public int last() {
            return consumerCounts.getLast();
        }

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (done != jobs) {
                problems.add("%d of %d jobs were done".formatted(done, jobs));
            }
            if (peak() <= 1) {
                problems.add("the group never scaled up (consumer counts " + consumerCounts + ")");
            }
            if (last() != 1) {
                problems.add("the group did not scale back to 1 consumer (consumer counts " + consumerCounts + ")");
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while watching the group", e);
        }
    }
}
