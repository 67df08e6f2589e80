package dev.shove;

import dev.shove.spi.DurationText;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shutdown signal for {@link ConsumerGroup#runUntil}, completed by SIGTERM or Ctrl-C (SIGINT), or by the JVM's
 * shutdown ({@code System.exit} elsewhere), so that the process ends with the group's exit code:
 *
 * <pre>{@code
 * SupervisorOutcome outcome = group.runUntil(ShutdownSignal.onJvmShutdown(), Duration.ofSeconds(30));
 * System.exit(outcome.exitCode());   // 0 clean, 1 consumer error, 2 internal crash, 3 drain timed out
 * }</pre>
 *
 * <p>Why a signal handler: once the JVM's shutdown has begun (the default reaction to SIGTERM), {@code System.exit}
 * from the main thread blocks and the process ends with the signal's status (143), never the group's. So this signal
 * handles SIGTERM and SIGINT itself: the first one completes the signal and the drain starts while the JVM runs on;
 * {@code runUntil} returns the outcome and {@code System.exit} reports it. A shutdown hook stays as the fallback for
 * shutdowns that start elsewhere: it completes the signal and <em>waits for the drain</em> (up to {@code maxWait}),
 * so in-flight messages settle before the process ends. A signal that arrives while no signal of this kind is
 * waiting, or a second one while draining, ends the process the way the JVM would ({@code 128 + signal}).
 *
 * <p>Use one signal for one {@code runUntil} call. Any other {@link java.util.concurrent.CompletionStage} works as a
 * signal too; only this one handles the process's signals and holds the JVM open for the drain. Thread-safe.
 *
 * @since 0.1.0
 */
public final class ShutdownSignal extends CompletableFuture<Void> {
    private static final Logger log = LoggerFactory.getLogger(ShutdownSignal.class);

    /** How long the hook waits for the drain unless told otherwise: the drain timeout plus margin should fit. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(60);

    /** Signals not yet drained; the process's signal handlers complete them. */
    private static final Set<ShutdownSignal> WAITING = ConcurrentHashMap.newKeySet();

    private static volatile boolean handlersInstalled;

    private final CountDownLatch drained = new CountDownLatch(1);

    private ShutdownSignal() {}

    /**
     * {@return a signal completed by SIGTERM, SIGINT or JVM shutdown, whose hook waits up to 60 seconds for the drain}
     */
    public static ShutdownSignal onJvmShutdown() {
        return onJvmShutdown(DEFAULT_MAX_WAIT);
    }

    /**
     * A signal completed by SIGTERM, SIGINT or JVM shutdown, whose hook waits up to {@code maxWait} for the drain.
     *
     * @param maxWait how long the shutdown hook holds the JVM open while the group drains
     * @return the signal
     */
    public static ShutdownSignal onJvmShutdown(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait");
        ShutdownSignal signal = new ShutdownSignal();
        WAITING.add(signal);
        installSignalHandlers();
        Thread hook = new Thread(
                () -> {
                    if (signal.complete(null)) {
                        log.info("JVM shutdown requested; draining consumers (waiting up to {})", maxWait);
                    }
                    try {
                        if (!signal.drained.await(maxWait.toMillis(), TimeUnit.MILLISECONDS)) {
                            log.warn("drain did not finish within {}; the JVM exits now", DurationText.of(maxWait));
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
        WAITING.remove(this);
        drained.countDown();
    }

    /**
     * Handles SIGTERM and SIGINT with {@code sun.misc.Signal} (module {@code jdk.unsupported}, present in every JDK),
     * reached by reflection because javac reports every direct use of it as proprietary API.
     */
    private static synchronized void installSignalHandlers() {
        if (handlersInstalled) {
            return;
        }
        handlersInstalled = true;
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            Method getName = signalClass.getMethod("getName");
            Method getNumber = signalClass.getMethod("getNumber");
            InvocationHandler onSignal = (proxy, method, args) -> {
                if (method.getName().equals("handle") && args != null && args.length == 1) {
                    received((String) getName.invoke(args[0]), (Integer) getNumber.invoke(args[0]));
                    return null;
                }
                return switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> "shove signal handler";
                };
            };
            Object handler =
                    Proxy.newProxyInstance(handlerClass.getClassLoader(), new Class<?>[] {handlerClass}, onSignal);
            for (String name : new String[] {"TERM", "INT"}) {
                try {
                    handle.invoke(null, signalClass.getConstructor(String.class).newInstance(name), handler);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // the OS or the JVM (-Xrs) does not let Java handle it: the shutdown hook still drains
                    log.debug("cannot handle SIG{} ({}); relying on the shutdown hook", name, e.toString());
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log.debug("cannot handle signals ({}); relying on the shutdown hook", e.toString());
        }
    }

    /** On the JVM's signal thread: start the drain of every waiting signal, or end the process as the JVM would. */
    private static void received(String name, int number) {
        boolean started = false;
        for (ShutdownSignal s : WAITING) {
            started |= s.complete(null);
        }
        if (started) {
            log.info("SIG{} received; draining consumers", name);
            return;
        }
        int status = 128 + number;
        log.info("SIG{} received with no drain to start; exiting with status {}", name, status);
        // not on the signal thread: exit runs the shutdown hooks, which may wait for a drain in progress
        Thread.ofPlatform().name("shove-signal-exit").start(() -> System.exit(status));
    }
}
