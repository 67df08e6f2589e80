package dev.shove.kafka;

import static org.awaitility.Awaitility.await;

import dev.shove.conformance.BrokerAvailability;
import dev.shove.conformance.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A Kafka KRaft broker of one test class's own, in a child JVM, in one of two forms:
 *
 * <ul>
 *   <li>{@link #secure()}, on the ports 19190-19192: an {@code SSL} listener, a {@code SASL_SSL} listener with
 *       SCRAM-SHA-512 and the KRaft controller. Its certificates are made when it starts: a certificate authority, a
 *       server certificate it signed for {@code localhost} and {@code 127.0.0.1}, a client trust store holding that
 *       authority, and a second trust store holding another authority (one the broker's certificate does not chain
 *       to). The SCRAM user {@link #USER} is created when the storage is formatted. SASL sessions last {@link
 *       #REAUTH} (the broker's {@code connections.max.reauth.ms}), so a client re-authenticates that often and learns
 *       soon when its credentials were revoked.
 *   <li>{@link #plain()}, on the ports 19290-19291: a {@code PLAINTEXT} listener and the controller, configured as
 *       the shared broker of {@code scripts/brokers.sh}, for tests that restart the broker ({@link #restart()}).
 * </ul>
 *
 * <p>The broker runs from the Kafka jars {@code scripts/brokers.sh up kafka} resolves (its {@code classpath.txt}
 * under {@code SHOVE_BROKERS_DIR}, default {@code ~/.cache/shove-brokers}). {@link #close()} kills it and deletes its
 * directory.
 */
final class KafkaOwnBroker implements AutoCloseable {
    static final int SSL_PORT = 19190;
    static final int SASL_SSL_PORT = 19191;
    static final int CONTROLLER_PORT = 19192;
    static final String USER = "shove-it";
    static final String PASSWORD = "scram-it-s3cret";
    static final String STORE_PASSWORD = TestCertificates.STORE_PASSWORD;
    static final Duration REAUTH = Duration.ofSeconds(2);
    static final int PLAIN_PORT = 19290;
    static final int PLAIN_CONTROLLER_PORT = 19291;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** How long {@link #restart()} waits for the broker to exit after SIGTERM before it sends SIGKILL. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    private final Path dir;
    private final boolean secure;
    private @Nullable String classpath;
    /** How often the broker's JVM was started (the log is appended to across restarts). */
    private int starts;

    private @Nullable Process process;
    /** Kills the broker if the test JVM exits without {@link #close()} (a test run stopped with Ctrl-C). */
    private final Thread killOnExit = new Thread(this::kill, "kafka-secure-broker-kill");

    private KafkaOwnBroker(Path dir, boolean secure) {
        this.dir = dir;
        this.secure = secure;
    }

    /**
     * The TLS and SASL_SSL broker: makes the certificates, formats the storage with the SCRAM user and starts the
     * broker; waits until it is up.
     */
    static KafkaOwnBroker secure() throws Exception {
        Path classpath = classpathFile();
        KafkaOwnBroker broker = new KafkaOwnBroker(Files.createTempDirectory("shove-kafka-sec-"), true);
        try {
            broker.makeCertificates();
            broker.launch(Files.readString(classpath).strip());
            return broker;
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
    }

    /** The PLAINTEXT broker on {@link #PLAIN_PORT}: formats the storage and starts the broker; waits until it is up. */
    static KafkaOwnBroker plain() throws Exception {
        Path classpath = classpathFile();
        KafkaOwnBroker broker = new KafkaOwnBroker(Files.createTempDirectory("shove-kafka-own-"), false);
        try {
            broker.launch(Files.readString(classpath).strip());
            return broker;
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
    }

    /** The Kafka classpath scripts/brokers.sh resolved; fails (or skips, outside CI) when there is none. */
    private static Path classpathFile() {
        String home = System.getProperty("user.home");
        Path state = Path.of(BrokerAvailability.env("SHOVE_BROKERS_DIR", home + "/.cache/shove-brokers"));
        Path classpath = state.resolve("kafka/classpath.txt");
        if (!Files.isRegularFile(classpath)) {
            String message = "the Kafka jars for this test's own broker are missing (" + classpath
                    + "); run scripts/brokers.sh up kafka once to resolve them";
            if (BrokerAvailability.required()) {
                throw new AssertionError(message);
            }
            Assumptions.abort(message);
        }
        return classpath;
    }

    /** {@code 127.0.0.1:19290}, the PLAINTEXT listener of a {@link #plain()} broker. */
    String plainBootstrap() {
        return "127.0.0.1:" + PLAIN_PORT;
    }

    /** {@code 127.0.0.1:19190}, the TLS listener (server-authenticated TLS, no client authentication). */
    String sslBootstrap() {
        return "127.0.0.1:" + SSL_PORT;
    }

    /** {@code 127.0.0.1:19191}, the SASL_SSL listener (SCRAM-SHA-512 over TLS). */
    String saslSslBootstrap() {
        return "127.0.0.1:" + SASL_SSL_PORT;
    }

    /** A PKCS12 trust store (password {@link #STORE_PASSWORD}) with the authority that signed the broker's certificate. */
    Path trustStore() {
        return dir.resolve("trust.p12");
    }

    /** A PKCS12 trust store (password {@link #STORE_PASSWORD}) with an authority the broker's certificate is not from. */
    Path foreignTrustStore() {
        return dir.resolve("foreign-trust.p12");
    }

    /** TLS trusting the broker's authority. */
    KafkaSsl ssl() {
        return KafkaSsl.ofTruststore(trustStore(), STORE_PASSWORD);
    }

    private void makeCertificates() throws Exception {
        TestCertificates.make(dir, "DNS:localhost", "IP:127.0.0.1").foreignTrustStore();
    }

    private int[] ports() {
        return secure
                ? new int[] {SSL_PORT, SASL_SSL_PORT, CONTROLLER_PORT}
                : new int[] {PLAIN_PORT, PLAIN_CONTROLLER_PORT};
    }

    /** Writes the config, formats the storage and starts the broker. */
    private void launch(String classpath) throws Exception {
        int[] ports = ports();
        for (int port : ports) {
            if (listening(port)) {
                throw new IllegalStateException("port " + port + " is taken: KafkaOwnBroker needs " + ports[0] + "-"
                        + ports[ports.length - 1] + " free (a broker of an earlier run left behind? look for a"
                        + " kafka.Kafka process using a shove-kafka-* directory in " + dir.getParent() + ")");
            }
        }
        this.classpath = classpath;
        String listeners = secure
                ? """
                controller.quorum.voters=1@127.0.0.1:%3$d
                listeners=SSL://127.0.0.1:%1$d,SASL_SSL://127.0.0.1:%2$d,CONTROLLER://127.0.0.1:%3$d
                advertised.listeners=SSL://127.0.0.1:%1$d,SASL_SSL://127.0.0.1:%2$d
                controller.listener.names=CONTROLLER
                inter.broker.listener.name=SSL
                listener.security.protocol.map=CONTROLLER:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL
                sasl.enabled.mechanisms=SCRAM-SHA-512
                listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=\
                org.apache.kafka.common.security.scram.ScramLoginModule required;
                connections.max.reauth.ms=%6$d
                ssl.keystore.type=PKCS12
                ssl.keystore.location=%4$s
                ssl.keystore.password=%5$s
                ssl.key.password=%5$s
                ssl.truststore.type=PKCS12
                ssl.truststore.location=%7$s
                ssl.truststore.password=%5$s
                ssl.client.auth=none
                """.formatted(
                                SSL_PORT,
                                SASL_SSL_PORT,
                                CONTROLLER_PORT,
                                dir.resolve("server.p12"),
                                STORE_PASSWORD,
                                REAUTH.toMillis(),
                                trustStore())
                : """
                controller.quorum.voters=1@127.0.0.1:%2$d
                listeners=PLAINTEXT://127.0.0.1:%1$d,CONTROLLER://127.0.0.1:%2$d
                advertised.listeners=PLAINTEXT://127.0.0.1:%1$d
                controller.listener.names=CONTROLLER
                inter.broker.listener.name=PLAINTEXT
                listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
                """.formatted(PLAIN_PORT, PLAIN_CONTROLLER_PORT);
        Path config = dir.resolve("server.properties");
        Files.writeString(config, """
                process.roles=broker,controller
                node.id=1
                %s\
                log.dirs=%s
                num.partitions=1
                offsets.topic.replication.factor=1
                offsets.topic.num.partitions=1
                transaction.state.log.replication.factor=1
                transaction.state.log.min.isr=1
                share.coordinator.state.topic.replication.factor=1
                share.coordinator.state.topic.min.isr=1
                group.initial.rebalance.delay.ms=0
                """.formatted(listeners, dir.resolve("data")));
        List<String> format = new ArrayList<>(List.of(
                java(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                classpath,
                "kafka.tools.StorageTool",
                "format",
                "-t",
                Uuid.randomUuid().toString(),
                "-c",
                config.toString()));
        if (secure) {
            format.addAll(List.of("--add-scram", "SCRAM-SHA-512=[name=" + USER + ",password=" + PASSWORD + "]"));
        }
        run(format, Duration.ofSeconds(60));
        startProcess();
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Starts the broker's JVM on the formatted storage and waits until its listeners take connections. */
    private void startProcess() throws Exception {
        Path config = dir.resolve("server.properties");
        Path log = dir.resolve("kafka.log");
        // C1 only and the serial collector: a broker for a minute's tests starts seconds sooner on two busy cores
        Process p = new ProcessBuilder(
                        java(),
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-Xms128m",
                        "-Xmx384m",
                        "-cp",
                        String.valueOf(classpath),
                        "kafka.Kafka",
                        config.toString())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .start();
        process = p;
        int start = ++starts; // the log is appended to: this start has logged its line when there are that many
        int[] ports = ports();
        await("this test's Kafka broker to start (ports " + Arrays.toString(ports) + "); log: " + log)
                .atMost(START_TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    if (!p.isAlive()) {
                        throw new IllegalStateException(
                                "this test's Kafka broker exited with " + p.exitValue() + ": " + tail(log));
                    }
                    return Files.readString(log).split("Kafka Server started", -1).length > start
                            && Arrays.stream(ports).allMatch(KafkaOwnBroker::listening);
                });
        // a plain client logs in on every listener: they work, and the first test's timing has no class loading
        // and TLS set-up in it
        List<KafkaConfig> clients = secure
                ? List.of(
                        KafkaConfig.builder(sslBootstrap()).ssl(ssl()).build(),
                        KafkaConfig.builder(saslSslBootstrap())
                                .ssl(ssl())
                                .sasl(KafkaSasl.scramSha512(USER, PASSWORD))
                                .build())
                : List.of(KafkaConfig.builder(plainBootstrap()).build());
        for (KafkaConfig client : clients) {
            Properties props = new Properties();
            props.putAll(client.commonProperties());
            try (Admin admin = Admin.create(props)) {
                admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Restarts the broker: SIGTERM, waits up to 20 s for it to exit (SIGKILL after that), then starts it again on
     * the same data directory and ports and waits until it takes connections.
     *
     * @throws Exception when it does not come back within 90 s
     */
    void restart() throws Exception {
        Process p = process;
        if (p == null) {
            throw new IllegalStateException("this test's Kafka broker is not running: start it before restarting it");
        }
        stop(p);
        startProcess();
    }

    /** SIGTERM, then SIGKILL when it has not exited within {@link #STOP_TIMEOUT}. */
    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void run(List<String> command, Duration timeout) throws Exception {
        Path out = dir.resolve(Path.of(command.get(0)).getFileName() + ".log");
        Process p;
        try {
            p = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
        } catch (IOException e) {
            String message = command.get(0) + " is needed to make this test's certificates and broker: " + e;
            if (BrokerAvailability.required()) {
                throw new AssertionError(message, e);
            }
            Assumptions.abort(message);
            return;
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " " + command.get(1) + " took over " + timeout);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(
                    command.get(0) + " " + command.get(1) + " failed (" + p.exitValue() + "): " + tail(out));
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
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

    private void kill() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
    }

    /** Kills the broker (SIGTERM, then SIGKILL after 20 s) and deletes its directory. Idempotent. */
    @Override
    public void close() {
        Process p = process;
        process = null;
        if (p != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(killOnExit);
            } catch (IllegalStateException e) {
                // the JVM is exiting: the hook kills the broker
            }
            try {
                stop(p);
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> {
                    try {
                        Files.deleteIfExists(f);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            } catch (IOException | UncheckedIOException e) {
                // best effort: a leftover temporary directory only costs disk
            }
        }
    }
}
