package dev.shove.spring.boot;

import static org.awaitility.Awaitility.await;

import dev.shove.conformance.BrokerAvailability;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Assumptions;

/**
 * A single-node KRaft Kafka broker of this test's own, in a child JVM on two free loopback ports, for the test whose
 * broker goes away (the shared broker is never stopped). It runs from the jars {@code scripts/brokers.sh up kafka}
 * resolves ({@code classpath.txt} under {@code SHOVE_BROKERS_DIR}, default {@code ~/.cache/shove-brokers}); a
 * missing file skips the test, or fails it with {@code SHOVE_IT_REQUIRED=true}. {@link #kill()} ends it at once;
 * {@link #close()} also deletes its directory.
 */
final class KafkaPrivateBroker implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path dir;
    private final int port;
    private final Process process;

    private KafkaPrivateBroker(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    static KafkaPrivateBroker start() throws Exception {
        String home = System.getProperty("user.home");
        Path classpathFile = Path.of(BrokerAvailability.env("SHOVE_BROKERS_DIR", home + "/.cache/shove-brokers"))
                .resolve("kafka/classpath.txt");
        if (!Files.isRegularFile(classpathFile)) {
            String message = "the Kafka jars for this test's own broker are missing (" + classpathFile
                    + "); run scripts/brokers.sh up kafka once to resolve them";
            if (BrokerAvailability.required()) {
                throw new AssertionError(message);
            }
            Assumptions.abort(message);
        }
        String classpath = Files.readString(classpathFile).strip();
        Path dir = Files.createTempDirectory("shove-boot-kafka-");
        int port = freePort();
        int controller = freePort();
        Path config = dir.resolve("server.properties");
        Files.writeString(config, """
                process.roles=broker,controller
                node.id=1
                controller.quorum.voters=1@127.0.0.1:%2$d
                listeners=PLAINTEXT://127.0.0.1:%1$d,CONTROLLER://127.0.0.1:%2$d
                advertised.listeners=PLAINTEXT://127.0.0.1:%1$d
                controller.listener.names=CONTROLLER
                inter.broker.listener.name=PLAINTEXT
                listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
                log.dirs=%3$s
                num.partitions=1
                offsets.topic.replication.factor=1
                offsets.topic.num.partitions=1
                transaction.state.log.replication.factor=1
                transaction.state.log.min.isr=1
                share.coordinator.state.topic.replication.factor=1
                share.coordinator.state.topic.min.isr=1
                group.initial.rebalance.delay.ms=0
                """.formatted(port, controller, dir.resolve("data")));
        Process format = new ProcessBuilder(java(
                        classpath,
                        "kafka.tools.StorageTool",
                        "format",
                        "-t",
                        Uuid.randomUuid().toString(),
                        "-c",
                        config.toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("format.log").toFile())
                .start();
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
            format.destroyForcibly();
            throw new IllegalStateException(
                    "formatting this test's Kafka storage failed: " + Files.readString(dir.resolve("format.log")));
        }
        Path log = dir.resolve("kafka.log");
        Process p = new ProcessBuilder(java(classpath, "kafka.Kafka", config.toString()))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .start();
        KafkaPrivateBroker broker = new KafkaPrivateBroker(dir, port, p);
        try {
            await("this test's Kafka broker to start on port " + port + "; log: " + log)
                    .atMost(START_TIMEOUT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        if (!p.isAlive()) {
                            throw new IllegalStateException(
                                    "this test's Kafka broker exited: " + Files.readString(log));
                        }
                        return Files.readString(log).contains("Kafka Server started") && listening(port);
                    });
            return broker;
        } catch (RuntimeException | Error e) {
            broker.close();
            throw e;
        }
    }

    /** C1 only, the serial collector and a small heap: starts sooner on busy cores. */
    private static List<String> java(String classpath, String... args) {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xms128m",
                "-Xmx384m",
                "-cp",
                classpath));
        command.addAll(List.of(args));
        return command;
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** Ends the broker at once (SIGKILL), as a crashed broker host would. */
    void kill() {
        try {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // best effort: a leftover temporary directory only costs disk
        }
    }
}
