package dev.shove;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shutdown signal completed by the JVM's shutdown (SIGTERM, Ctrl-C, {@code System.exit}), for {@link
 * ConsumerGroup#runUntil}. Java only sees those through shutdown hooks, and the JVM exits as soon as its hooks return,
 * so this signal's hook completes the signal and then <em>waits for the drain to finish</em> (up to {@code maxWait}):
 * in-flight messages settle before the process ends.
 *
 * <pre>{@code
 * SupervisorOutcome outcome = group.runUntil(ShutdownSignal.onJvmShutdown(), Duration.ofSeconds(30));
 * System.exit(outcome.exitCode());
 * }</pre>
 *
 * <p>Use one signal for one {@code runUntil} call. Any other {@link java.util.concurrent.CompletionStage} works as a
 * signal too; only this one holds the JVM open for the drain.
 */
public final class ShutdownSignal extends CompletableFuture<Void> {
    private static final Logger log = LoggerFactory.getLogger(ShutdownSignal.class);

    /** How long the hook waits for the drain unless told otherwise: the drain timeout plus margin should fit. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(60);

    private final CountDownLatch drained = new CountDownLatch(1);

    private ShutdownSignal() {}

    /** A signal completed by JVM shutdown, whose hook waits up to 60 seconds for the drain. */
    public static ShutdownSignal onJvmShutdown() {
        return onJvmShutdown(DEFAULT_MAX_WAIT);
    }

    /** A signal completed by JVM shutdown, whose hook waits up to {@code maxWait} for the drain to finish. */
    public static ShutdownSignal onJvmShutdown(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait");
        ShutdownSignal signal = new ShutdownSignal();
        Thread hook = new Thread(
                () -> {
                    log.info("JVM shutdown requested; draining consumers (waiting up to {})", maxWait);
                    signal.complete(null);
                    try {
                        if (!signal.drained.await(maxWait.toMillis(), TimeUnit.MILLISECONDS)) {
                            log.warn("drain did not finish within {}; the JVM exits now", maxWait);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "shove-shutdown-hook");
        Runtime.getRuntime().addShutdownHook(hook);
        return signal;
    }

    /** Called by {@code runUntil} once the drain has finished; releases the shutdown hook. */
    public void drained() {
        drained.countDown();
    }
}
