package dev.shove.spring.boot;

import dev.shove.ConsumerGroup;
import dev.shove.SupervisorOutcome;
import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.SpringApplication;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the starter's consumer group with the application context: {@link #start()} starts it when the context has
 * been refreshed (every bean, the group's context included, is ready), and {@link #stop(Runnable)} drains it when the
 * context closes, in the phase of Spring Boot's graceful shutdown ({@link #DEFAULT_PHASE}), within {@code
 * shove.group.drain-timeout}: intake stops, in-flight handlers finish and settle, unstarted messages go back to the
 * broker.
 *
 * <p>As an {@link ExitCodeGenerator} it gives {@link SpringApplication#exit} the group's {@link
 * SupervisorOutcome#exitCode()} (0 clean, 1 consumer error, 2 internal crash, 3 drain timed out), as {@link
 * ConsumerGroup#runUntil} does. {@code SpringApplication.exit} asks for exit codes before it closes the context, so
 * when the group still runs, asking drains it first. {@link ShoveSpringApplication#run} does this on SIGTERM.
 * Thread-safe.
 *
 * @since 0.1.0
 */
public final class ShoveLifecycle implements SmartLifecycle, ExitCodeGenerator {
    private static final Logger log = LoggerFactory.getLogger(ShoveLifecycle.class);

    /**
     * The default phase: that of Spring Boot's graceful shutdown of web servers ({@code SmartLifecycle.DEFAULT_PHASE -
     * 1024}), so the group drains side by side with in-flight web requests, before beans of lower phases stop.
     */
    public static final int DEFAULT_PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private final ConsumerGroup<?, ?> group;
    private final Duration drainTimeout;
    private final boolean autoStartup;
    private final int phase;
    private final Object lock = new Object();
    private volatile boolean running;
    private volatile @Nullable SupervisorOutcome outcome;

    /**
     * A lifecycle of {@code group}.
     *
     * @param group the group to run
     * @param drainTimeout how long in-flight handlers may take to finish when stopping; positive
     * @param autoStartup whether the group starts with the application context
     * @param phase the lifecycle phase
     */
    public ShoveLifecycle(ConsumerGroup<?, ?> group, Duration drainTimeout, boolean autoStartup, int phase) {
        this.group = Objects.requireNonNull(group, "group");
        this.drainTimeout = Objects.requireNonNull(drainTimeout, "drainTimeout");
        if (drainTimeout.isNegative() || drainTimeout.isZero()) {
            throw new IllegalArgumentException("drain timeout must be positive, was " + DurationText.of(drainTimeout));
        }
        this.autoStartup = autoStartup;
        this.phase = phase;
    }

    /** {@return the group this lifecycle runs: for pausing, resuming, scaling and its health} */
    public ConsumerGroup<?, ?> group() {
        return group;
    }

    /** Starts the group's consumers; returns at once. Idempotent while running. */
    @Override
    public void start() {
        synchronized (lock) {
            if (running) {
                return;
            }
            group.start();
            running = true;
        }
        log.info(
                "shove consumer group started: {} registration(s)",
                group.health().registrations().size());
    }

    /** Drains the group, blocking for up to the drain timeout. Idempotent. */
    @Override
    public void stop() {
        drain();
    }

    /**
     * Drains the group on a thread of its own ({@code shove-spring-drain}), so that other lifecycles of the same phase
     * (a web server's graceful shutdown) stop at the same time, then runs {@code callback}.
     *
     * @param callback tells Spring this lifecycle has stopped
     */
    @Override
    public void stop(Runnable callback) {
        if (!running) {
            callback.run();
            return;
        }
        Thread.ofPlatform().name("shove-spring-drain").start(() -> {
            try {
                drain();
            } finally {
                callback.run();
            }
        });
    }

    private SupervisorOutcome drain() {
        synchronized (lock) {
            if (running) {
                SupervisorOutcome stopped = group.stop(drainTimeout);
                outcome = outcome == null ? stopped : outcome.plus(stopped);
                running = false;
                if (stopped.isClean()) {
                    log.info("shove consumer group drained cleanly");
                } else {
                    log.warn("shove consumer group stopped with exit code {}: {}", stopped.exitCode(), stopped);
                }
            }
            return outcome == null ? SupervisorOutcome.CLEAN : outcome;
        }
    }

    /** {@return whether the group runs} */
    @Override
    public boolean isRunning() {
        return running;
    }

    /** {@return whether the group starts with the application context ({@code shove.group.auto-startup})} */
    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /** {@return the phase ({@code shove.group.phase}, default {@link #DEFAULT_PHASE})} */
    @Override
    public int getPhase() {
        return phase;
    }

    /**
     * {@return the group's exit code; drains the group first when it still runs}
     */
    @Override
    public int getExitCode() {
        return drain().exitCode();
    }

    /** {@return how the group ended, once it has been stopped; empty while it runs or before it started} */
    public Optional<SupervisorOutcome> outcome() {
        SupervisorOutcome ended = outcome;
        return running ? Optional.empty() : Optional.ofNullable(ended);
    }
}
