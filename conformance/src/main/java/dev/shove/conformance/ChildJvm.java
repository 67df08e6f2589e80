package dev.shove.conformance;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a class's {@code main} in a child JVM on the test's own class path, for tests that kill a consumer with
 * SIGKILL ({@link #kill}) and look at what the broker hands to the next one. The child logs warnings only; its
 * standard error is discarded and its standard output is the caller's to read.
 *
 * @since 0.1.0
 */
public final class ChildJvm {
    private ChildJvm() {}

    /**
     * {@return the command line that runs {@code main} with {@code args}: this JVM's {@code java}, its class path,
     * warnings-only logging, then {@code jvmOptions}}
     *
     * @param main the class whose {@code main} runs
     * @param jvmOptions options before the class name, e.g. {@code -Xmx256m}
     * @param args the program's arguments
     */
    public static List<String> command(Class<?> main, List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.addAll(jvmOptions);
        command.add(main.getName());
        command.addAll(args);
        return command;
    }

    /**
     * Starts {@code main} with {@code args}, standard error discarded.
     *
     * @param main the class whose {@code main} runs
     * @param args the program's arguments
     * @return the running child; read its standard output from {@link Process#getInputStream()}
     * @throws IOException if the JVM cannot be started
     */
    public static Process start(Class<?> main, String... args) throws IOException {
        return new ProcessBuilder(command(main, List.of(), List.of(args)))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /**
     * Kills the child with SIGKILL (no drain, no acknowledgement, no hand-back, no leave-group) and waits up to 30 s
     * for it to be gone.
     *
     * @param child the child to kill
     * @throws InterruptedException if interrupted while waiting
     */
    public static void kill(Process child) throws InterruptedException {
        child.destroyForcibly();
        child.waitFor(30, TimeUnit.SECONDS);
    }
}
