package dev.shove.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs each example as a named module ({@code java --module-path ... -m dev.shove.examples/...}) in a child JVM, so
 * that the module descriptors of core, the in-memory backend and the examples are proven to work together: exports,
 * the engine found through {@code ServiceLoader}, Jackson reading records of an open package. The module path holds
 * the compiled modules and their runtime dependencies, nothing of the test scope.
 */
class ModulePathTest {
    /** Runtime dependencies by their repository path; shove's own modules come from this build's target folders. */
    private static final List<String> RUNTIME = List.of(
            "/com/fasterxml/jackson/core/",
            "/com/fasterxml/jackson/datatype/",
            "/com/fasterxml/classmate/",
            "/com/github/victools/",
            "/io/cloudevents/",
            "/io/micrometer/",
            "/org/hdrhistogram/",
            "/org/latencyutils/",
            "/org/slf4j/",
            "/org/jspecify/");

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "Quickstart",
                "SequencedOrders",
                "AutoscalingGroup",
                "AuditedHandler",
                "BatchInserts",
                "Interceptors",
                "DecodeFailures",
                "Replies",
                "Replay",
                "Broadcast",
                "RawGateway",
                "CloudEventsGateway",
                "HealthProbes",
                "DeadLetterReplay",
                "VersionedOrders",
                "AsyncApiDocument"
            })
    @DisplayName("the example runs on the module path and exits 0")
    void runsOnModulePath(String example) throws IOException, InterruptedException {
        Path log = Files.createTempFile("shove-module-path-" + example, ".log");
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--module-path",
                        modulePath(),
                        "-m",
                        "dev.shove.examples/dev.shove.examples." + example)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        boolean exited = process.waitFor(90, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        Files.deleteIfExists(log);
        assertThat(exited)
                .as("%s finished within 90 s; output:%n%s", example, output)
                .isTrue();
        assertThat(process.exitValue())
                .as("exit status of %s; output:%n%s", example, output)
                .isZero();
    }

    /** The examples' classes, shove's modules and the runtime jars, from the class path surefire gave this test. */
    private static String modulePath() {
        String testPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> entries = new ArrayList<>();
        for (String entry : testPath.split(File.pathSeparator)) {
            String normalized = entry.replace(File.separatorChar, '/');
            // this build's modules: class directories, or jars once the reactor has packaged them
            boolean shoveModule = normalized.contains("/target/") && !normalized.endsWith("/test-classes");
            boolean runtimeJar = normalized.endsWith(".jar") && RUNTIME.stream().anyMatch(normalized::contains);
            if (shoveModule || runtimeJar) {
                entries.add(entry);
            }
        }
        assertThat(entries)
                .as("module path from %s", Arrays.asList(testPath.split(File.pathSeparator)))
                .anyMatch(e -> e.replace(File.separatorChar, '/').endsWith("examples/target/classes"));
        return entries.stream().collect(Collectors.joining(File.pathSeparator));
    }
}
