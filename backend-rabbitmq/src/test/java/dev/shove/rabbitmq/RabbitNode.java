package dev.shove.rabbitmq;

import dev.shove.conformance.BrokerAvailability;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RabbitMQ node of a test class's own, for tests that stop the broker or need a listener the shared one does not
 * have (TLS). A JUnit extension; register it before the {@link RabbitAdmin} that looks into it:
 *
 * <pre>{@code
 * @RegisterExtension
 * @Order(1)
 * static final RabbitNode node = RabbitNode.plain();
 *
 * @RegisterExtension
 * @Order(2)
 * static final RabbitAdmin admin = new RabbitAdmin(node::config);
 * }</pre>
 *
 * <p>Before the class it starts {@code rabbitmq-server -detached} (the Debian package's scripts in {@code
 * /usr/lib/rabbitmq/bin}, run as the current user, not through the {@code /usr/sbin} wrapper that switches to user
 * {@code rabbitmq} and shares the system node's log directory) as node {@code shove-it-<port>@localhost}, with every
 * file in a temporary directory of its own: data, logs, {@code rabbitmq.conf}, the enabled plugins (management and
 * consistent-hash exchange, as on the shared broker) and an Erlang cookie of its own (its {@code HOME}), so {@code
 * rabbitmqctl} reaches this node and never the shared {@code rabbit@localhost}. Ports come from the tests' range:
 * AMQP 5680-5689, management 15680-15689, Erlang distribution 25680-25689, the first slot whose three ports are free.
 * The node is ready when {@code rabbitmqctl await_startup} returns and the AMQP and management ports answer (3-7 s).
 * After the class it kills the node (SIGKILL to its Erlang VM: it is thrown away) and deletes the directory.
 *
 * <p>Without RabbitMQ installed the class fails (with {@code SHOVE_IT_REQUIRED=true}, as in CI) or is skipped, with a
 * message saying what to install. Not thread-safe: one test class drives it.
 */
final class RabbitNode implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
    static final int FIRST_AMQP_PORT = 5680;
    static final int FIRST_MANAGEMENT_PORT = 15680;
    static final int FIRST_DISTRIBUTION_PORT = 25680;
    static final int SLOTS = 10;

    /** The Debian package's own scripts, which run as the calling user (the {@code /usr/sbin} ones switch user). */
    static final Path DEBIAN_SCRIPTS = Path.of("/usr/lib/rabbitmq/bin");

    private static final Logger log = LoggerFactory.getLogger(RabbitNode.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    /** The three ports of a node. */
    record Ports(int amqp, int management, int distribution) {}

    private final Function<Ports, String> config;
    private @Nullable Path dir;
    private @Nullable Ports ports;
    private @Nullable String nodeName;

    /**
     * A node whose {@code rabbitmq.conf} is {@code config}'s text for the ports it got. The text must put the AMQP
     * listener (plain or TLS) on {@link Ports#amqp()} and the management listener on {@link Ports#management()}, both on
     * 127.0.0.1.
     */
    RabbitNode(Function<Ports, String> config) {
        this.config = config;
    }

    /** A node like the shared one: plain AMQP and an HTTP management API, on loopback, user guest/guest. */
    static RabbitNode plain() {
        return new RabbitNode(ports -> """
                listeners.tcp.default = 127.0.0.1:%d
                management.tcp.ip = 127.0.0.1
                management.tcp.port = %d
                """.formatted(ports.amqp(), ports.management()));
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        close();
    }

    /** The node's ports; known once it has started. */
    Ports ports() {
        Ports p = ports;
        if (p == null) {
            throw new IllegalStateException("the test's RabbitMQ node has not started: register it as an extension"
                    + " (before the RabbitAdmin that uses it) or call start()");
        }
        return p;
    }

    /** The AMQP URI of a plain node, user guest. */
    String uri() {
        return "amqp://guest:guest@127.0.0.1:" + ports().amqp();
    }

    /** A config for a plain node: {@link #uri()}, and its management API over HTTP. */
    RabbitMqConfig config() {
        return RabbitMqConfig.builder(uri())
                .managementApi("http://127.0.0.1:" + ports().management())
                .build();
    }

    /** The node's own directory (data, logs, config); a test may put files there, e.g. certificates. */
    Path dir() throws IOException {
        Path d = dir;
        if (d == null) {
            d = Files.createTempDirectory("shove-rabbit-node-");
            dir = d;
        }
        return d;
    }

    /** Starts the node on the first free slot of the tests' port range and waits until it is ready. */
    RabbitNode start() throws Exception {
        if (ports != null) {
            return this;
        }
        Path scripts = scripts();
        Ports free = freePorts();
        Path home = dir();
        String name = "shove-it-" + free.amqp() + "@localhost";
        Files.writeString(home.resolve("rabbitmq.conf"), config.apply(free));
        Files.writeString(
                home.resolve("enabled_plugins"), "[rabbitmq_management,rabbitmq_consistent_hash_exchange].\n");
        Files.writeString(home.resolve("rabbitmq-env.conf"), "");
        Path cookie = home.resolve(".erlang.cookie");
        Files.writeString(
                cookie,
                "SHOVEIT" + UUID.randomUUID().toString().replace("-", "").toUpperCase());
        Files.setPosixFilePermissions(cookie, PosixFilePermissions.fromString("r--------"));
        ports = free;
        nodeName = name;
        long started = System.nanoTime();
        Process server = process(scripts.resolve("rabbitmq-server").toString(), "-detached")
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("start.log").toFile())
                .start();
        if (!server.waitFor(30, TimeUnit.SECONDS) || server.exitValue() != 0) {
            server.destroyForcibly();
            close();
            throw new IllegalStateException("rabbitmq-server -detached failed for node " + name + ": "
                    + Files.readString(home.resolve("start.log")));
        }
        try {
            awaitStartup(START_TIMEOUT);
        } catch (RuntimeException | Error e) {
            String nodeLog = log();
            close();
            throw new IllegalStateException(e.getMessage() + "; the node's log:\n" + nodeLog, e);
        }
        log.info("test RabbitMQ node {} ready in {} ms, {}", name, (System.nanoTime() - started) / 1_000_000, free);
        return this;
    }

    /** Stops the RabbitMQ application on this node (the Erlang VM stays): every connection is closed, ports close. */
    void stopApp() throws IOException, InterruptedException {
        int exit = rabbitmqctl(STOP_TIMEOUT, "stop_app");
        if (exit != 0) {
            throw new IllegalStateException(
                    "rabbitmqctl stop_app on " + nodeName + " exited " + exit + ": " + lastCtl());
        }
    }

    /** Starts the application again after {@link #stopApp()} and waits until the node takes connections. */
    void startApp() throws IOException, InterruptedException {
        int exit = rabbitmqctl(START_TIMEOUT, "start_app");
        if (exit != 0) {
            throw new IllegalStateException(
                    "rabbitmqctl start_app on " + nodeName + " exited " + exit + ": " + lastCtl());
        }
        awaitStartup(START_TIMEOUT);
    }

    /**
     * Runs {@code rabbitmqctl -n <this node> args} and returns its exit code (-2 after the timeout); its output is in
     * {@link #lastCtl()}.
     */
    int rabbitmqctl(Duration timeout, String... args) throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(List.of(scripts().resolve("rabbitmqctl").toString(), "-n", String.valueOf(nodeName)));
        command.addAll(List.of(args));
        Process p = process(command.toArray(String[]::new))
                .redirectErrorStream(true)
                .redirectOutput(dir().resolve("rabbitmqctl.log").toFile())
                .start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            return -2;
        }
        return p.exitValue();
    }

    /** What the last {@link #rabbitmqctl} call printed. */
    String lastCtl() throws IOException {
        Path out = dir().resolve("rabbitmqctl.log");
        return Files.exists(out) ? Files.readString(out).strip() : "";
    }

    /** The node's log so far (for failure messages). */
    String log() {
        try {
            Path log = dir().resolve("log").resolve(nodeName + ".log");
            return Files.exists(log) ? Files.readString(log) : "(no log at " + log + ")";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private void awaitStartup(Duration timeout) throws IOException, InterruptedException {
        Ports p = ports();
        long deadline = System.nanoTime() + timeout.toNanos();
        // await_startup exits 69 at once until the node has registered with epmd: try again until the deadline.
        while (rabbitmqctl(Duration.ofSeconds(20), "-q", "await_startup", "--timeout", "10") != 0
                || !listening(p.amqp())
                || !listening(p.management())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("RabbitMQ node " + nodeName + " was not ready within " + timeout
                        + " (AMQP port " + p.amqp() + ", management port " + p.management() + "): " + lastCtl());
            }
            TimeUnit.MILLISECONDS.sleep(200); // a process poll, not a test wait: nothing to await but the node
        }
    }

    private ProcessBuilder process(String... command) throws IOException {
        Ports p = ports();
        Path home = dir();
        ProcessBuilder b = new ProcessBuilder(command).directory(home.toFile());
        Map<String, String> env = b.environment();
        env.put("HOME", home.toString()); // the node's and rabbitmqctl's Erlang cookie
        env.put("RABBITMQ_NODENAME", String.valueOf(nodeName));
        env.put("RABBITMQ_DIST_PORT", Integer.toString(p.distribution()));
        env.put("RABBITMQ_CONFIG_FILE", home.resolve("rabbitmq.conf").toString());
        env.put("RABBITMQ_CONF_ENV_FILE", home.resolve("rabbitmq-env.conf").toString());
        env.put("RABBITMQ_ENABLED_PLUGINS_FILE", home.resolve("enabled_plugins").toString());
        env.put("RABBITMQ_MNESIA_BASE", home.resolve("mnesia").toString());
        env.put("RABBITMQ_LOG_BASE", home.resolve("log").toString());
        env.put("RABBITMQ_PID_FILE", home.resolve("node.pid").toString());
        env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
        env.put("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}");
        return b;
    }

    /** The scripts directory; fails or skips the class (as for a missing broker) when RabbitMQ is not installed. */
    private static Path scripts() {
        String override = System.getenv("SHOVE_RABBITMQ_SCRIPTS");
        Path dir = override != null && !override.isBlank() ? Path.of(override) : DEBIAN_SCRIPTS;
        if (Files.isExecutable(dir.resolve("rabbitmq-server")) && Files.isExecutable(dir.resolve("rabbitmqctl"))) {
            return dir;
        }
        String message = "this test starts a RabbitMQ node of its own and needs the RabbitMQ server installed: no"
                + " rabbitmq-server and rabbitmqctl in " + dir + ". Install it (Debian/Ubuntu: apt-get install"
                + " rabbitmq-server, which scripts/brokers.sh up rabbitmq does), or point SHOVE_RABBITMQ_SCRIPTS at the"
                + " directory of RabbitMQ's own scripts (sbin of the generic Unix build)";
        if (BrokerAvailability.required()) {
            throw new AssertionError(message + " [" + BrokerAvailability.REQUIRED_ENV + "=true]");
        }
        Assumptions.abort(message);
        throw new AssertionError(message); // not reached
    }

    private static Ports freePorts() {
        for (int slot = 0; slot < SLOTS; slot++) {
            Ports p = new Ports(FIRST_AMQP_PORT + slot, FIRST_MANAGEMENT_PORT + slot, FIRST_DISTRIBUTION_PORT + slot);
            if (free(p.amqp()) && free(p.management()) && free(p.distribution())) {
                return p;
            }
        }
        throw new IllegalStateException("no free slot for a test RabbitMQ node: ports " + FIRST_AMQP_PORT + "-"
                + (FIRST_AMQP_PORT + SLOTS - 1) + " (and their management and distribution ports) are all taken;"
                + " a node left over from a killed run? `ps aux | grep shove-it-` names it");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops the node (see {@link #stop}) and deletes its directory; idempotent. */
    @Override
    public void close() throws IOException {
        Path d = dir;
        if (d == null) {
            return;
        }
        try {
            if (ports != null) {
                long stopping = System.nanoTime();
                stop(d);
                log.info(
                        "test RabbitMQ node {} stopped in {} ms", nodeName, (System.nanoTime() - stopping) / 1_000_000);
            }
        } finally {
            dir = null;
            ports = null;
            nodeName = null;
            try (Stream<Path> files = Files.walk(d)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * SIGKILL to the node's Erlang VM (its helper processes exit with it; epmd forgets the node when its connection
     * drops). The node is thrown away with its directory, so nothing needs an orderly shutdown: {@code rabbitmqctl
     * stop} or SIGTERM take 6-8 s on a busy 2-core machine, and a wedged node ignores both.
     */
    private static void stop(Path d) throws IOException {
        Path pidFile = d.resolve("node.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip())).ifPresent(vm -> {
            vm.destroyForcibly();
            vm.onExit()
                    .orTimeout(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .handle((exited, timeout) -> exited)
                    .join();
        });
    }

    @Override
    public String toString() {
        return "RabbitNode[" + nodeName + ", " + ports + "]";
    }
}
