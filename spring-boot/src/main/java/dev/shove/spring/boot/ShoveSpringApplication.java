package dev.shove.spring.boot;

import dev.shove.ShutdownSignal;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Runs a Spring Boot application until SIGTERM or Ctrl-C and returns the exit code for {@code System.exit}, so that a
 * drain that timed out shows in the process's status (3) as it does with {@link dev.shove.ConsumerGroup#runUntil}:
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     System.exit(ShoveSpringApplication.run(Shop.class, args));
 * }
 * }</pre>
 *
 * <p>Why not {@code SpringApplication.run} alone: on SIGTERM the JVM starts its shutdown, Spring Boot's shutdown hook
 * closes the context (the group drains) and the process ends with status 143 whatever the drain did. Here a {@link
 * ShutdownSignal} handles the signal instead, then {@link SpringApplication#exit} drains the group (through {@link
 * ShoveLifecycle}'s exit code), asks every {@link org.springframework.boot.ExitCodeGenerator} bean, and closes the
 * context. A context closed another way (the Actuator's shutdown endpoint) ends the run with the group's exit code as
 * well. Stateless.
 *
 * @since 0.1.0
 */
public final class ShoveSpringApplication {
    /** How much longer than the drain timeout the JVM's shutdown hook waits for the drain, as a fallback. */
    static final Duration HOOK_MARGIN = Duration.ofSeconds(30);

    private ShoveSpringApplication() {}

    /**
     * Runs {@code primarySource} as a Spring Boot application until the process is asked to stop.
     *
     * @param primarySource the application's {@code @SpringBootApplication} class
     * @param args the command line
     * @return the exit code for {@code System.exit}
     */
    public static int run(Class<?> primarySource, String... args) {
        return run(new SpringApplication(primarySource), args);
    }

    /**
     * Runs {@code application} until the process is asked to stop.
     *
     * @param application the application, configured as the caller likes
     * @param args the command line
     * @return the exit code for {@code System.exit}
     */
    public static int run(SpringApplication application, String... args) {
        Objects.requireNonNull(application, "application");
        ConfigurableApplicationContext context = application.run(args);
        Duration drain = context.getEnvironment()
                .getProperty("shove.group.drain-timeout", Duration.class, Duration.ofSeconds(30));
        ShutdownSignal signal = ShutdownSignal.onJvmShutdown(drain.plus(HOOK_MARGIN));
        return runUntil(context, signal);
    }

    /** Waits for {@code signal} (or the context's close), then ends the application and returns its exit code. */
    static int runUntil(ConfigurableApplicationContext context, ShutdownSignal signal) {
        ShoveLifecycle lifecycle = context.getBeanProvider(ShoveLifecycle.class).getIfAvailable();
        AtomicBoolean closedElsewhere = new AtomicBoolean();
        context.addApplicationListener(event -> {
            if (event instanceof ContextClosedEvent && !signal.isDone()) {
                closedElsewhere.set(true);
                signal.complete(null);
            }
        });
        try {
            signal.join();
            if (closedElsewhere.get()) {
                // the closing thread drains the group; its outcome is there once the lifecycle stopped
                if (lifecycle == null) {
                    return 0;
                }
                return lifecycle.getExitCode();
            }
            return SpringApplication.exit(context);
        } finally {
            signal.drained();
        }
    }
}
