package dev.shove.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The documented shutdown pattern in a real process: {@code System.exit(group.runUntil(ShutdownSignal.onJvmShutdown(),
 * drain).exitCode())} ends with the group's exit code after SIGTERM, not with the signal's 143.
 */
class ShutdownExitCodeTest {

    @Test
    @DisplayName("SIGTERM mid-handler with a drain that completes: the process exits 0")
    void cleanDrainExitsZero() throws Exception {
        assertThat(runAndTerminate(300, 10_000)).isZero();
    }

    @Test
    @DisplayName("SIGTERM mid-handler with a drain that runs out of time: the process exits 3")
    void drainTimeoutExitsThree() throws Exception {
        assertThat(runAndTerminate(60_000, 500)).isEqualTo(3);
    }

    /** Starts {@link SignalChild}, sends it SIGTERM once its handler runs, and returns its exit status. */
    private static int runAndTerminate(long workMs, long drainMs) throws IOException, InterruptedException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        classpath,
                        SignalChild.class.getName(),
                        Long.toString(workMs),
                        Long.toString(drainMs))
                .redirectErrorStream(true)
                .start();
        List<String> output = new ArrayList<>();
        CompletableFuture<Void> handling = new CompletableFuture<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    synchronized (output) {
                        output.add(line);
                    }
                    if (line.equals("HANDLING")) {
                        handling.complete(null);
                    }
                }
            } catch (IOException e) {
                handling.completeExceptionally(e);
            }
        });
        try {
            handling.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            child.destroyForcibly();
            throw new AssertionError("the child never started its handler; output: " + output, e);
        }
        child.destroy(); // SIGTERM
        boolean exited = child.waitFor(60, TimeUnit.SECONDS);
        reader.join(5_000);
        if (!exited) {
            child.destroyForcibly();
        }
        synchronized (output) {
            assertThat(exited)
                    .as("the child exited after SIGTERM; output: %s", output)
                    .isTrue();
        }
        return child.exitValue();
    }
}
