package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Proves the module descriptor of {@code dev.shove.sqs} at run time: a program of its own module ({@code
 * src/test/resources/module-path-check}) is compiled against the backend and run with {@code java --module-path} in a
 * child JVM, the backend, core and their runtime dependencies (the AWS SDK and Apache HttpClient 5 as automatic
 * modules) on the module path and nothing else, no Netty; it connects with an {@code sqs://} URI (the provider
 * declared in the module descriptor), publishes a message through SNS and receives it.
 */
class SqsModulePathIT {
    /** Runtime dependencies by their repository path; shove's own modules come from this build's target folders. */
    private static final List<String> RUNTIME = List.of(
            "/dev/shove/shove-core/",
            "/software/amazon/awssdk/",
            "/org/apache/httpcomponents/",
            "/org/reactivestreams/",
            "/com/fasterxml/jackson/",
            "/io/micrometer/",
            "/org/hdrhistogram/",
            "/org/latencyutils/",
            "/org/slf4j/",
            "/org/jspecify/");

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs();
    }

    private static String modulePath() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String unix = entry.replace(File.separatorChar, '/');
            boolean ownModule = (unix.contains("/core/target/") || unix.contains("/backend-sqs/target/"))
                    && !unix.contains("test-classes");
            boolean runtime = RUNTIME.stream().anyMatch(unix::contains) && !unix.contains("slf4j-simple");
            if (ownModule || runtime) {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    @Test
    @DisplayName("a program of its own module runs with the SQS backend on the module path: publish and receive")
    void runsOnModulePath() throws IOException, InterruptedException, URISyntaxException {
        Path sources = Path.of(SqsModulePathIT.class
                        .getResource("/module-path-check/module-info.java")
                        .toURI())
                .getParent();
        Path out = Files.createTempDirectory("shove-sqs-module-path");
        List<String> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java"))
                    .map(Path::toString)
                    .toList();
        }
        String modulePath = modulePath();
        Path log = Files.createTempFile("shove-sqs-module-path", ".log");
        List<String> javac = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                "-d",
                out.toString(),
                "--module-path",
                modulePath));
        javac.addAll(files);
        Process compile = new ProcessBuilder(javac)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        assertThat(compile.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(compile.exitValue())
                .as("javac of the module-path program: %s", Files.readString(log, StandardCharsets.UTF_8))
                .isZero();

        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--module-path",
                        out + File.pathSeparator + modulePath,
                        "-m",
                        "dev.shove.sqs.check/demo.Check",
                        SqsTestSupport.endpoint())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        boolean ended = process.waitFor(90, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(ended).as(output).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).contains("RECEIVED on the module path");
    }
}
