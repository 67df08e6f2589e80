package dev.shove.nats;

import dev.shove.conformance.BrokerAvailability;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The shared setup of the NATS integration tests: where the server is ({@code SHOVE_NATS_URL}, default {@code
 * nats://127.0.0.1:4222}), the check that it answers, a config with short timings, and the clean-up of the streams a
 * test class created.
 */
final class NatsTestSupport {
    static final String URL = BrokerAvailability.env("SHOVE_NATS_URL", "nats://127.0.0.1:4222");

    private NatsTestSupport() {}

    /** A name no other test uses. */
    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Fails or skips (see {@link BrokerAvailability}) when the server does not answer. */
    static void requireNats() {
        BrokerAvailability.require("NATS", "nats", URI.create(URL), NatsConfig.DEFAULT_PORT);
    }

    /** The test server with short timings: ack_wait 2 s, shard leases 2 s. */
    static NatsConfig.Builder config() {
        return NatsConfig.builder(URL)
                .ackWait(Duration.ofSeconds(2))
                .shardLease(Duration.ofSeconds(2))
                .streamMaxAge(Duration.ofHours(1));
    }

    /** A plain jnats connection to the test server, for checks and clean-up. */
    static Connection raw() throws IOException, InterruptedException {
        return Nats.connect(Options.builder().server(URL).build());
    }

    static Set<String> streams() throws Exception {
        Connection c = raw();
        try {
            return new HashSet<>(c.jetStreamManagement().getStreamNames());
        } finally {
            c.close();
        }
    }

    /** Deletes the streams that are not in {@code before} (those the tests created), except shove's buckets. */
    static void deleteStreamsCreatedSince(Set<String> before) throws Exception {
        Connection c = raw();
        try {
            JetStreamManagement jsm = c.jetStreamManagement();
            List<String> now = jsm.getStreamNames();
            for (String s : now) {
                if (!before.contains(s) && !s.startsWith("KV_")) {
                    try {
                        jsm.deleteStream(s);
                    } catch (JetStreamApiException | IOException e) {
                        // already gone
                    }
                }
            }
        } finally {
            c.close();
        }
    }

    /**
     * A nats-server of a test's own, on its own port and store folder, for tests that kill or reconfigure the server
     * (never the shared one). Started with {@code -js} and file storage. The first {@link #start()} lets nats-server
     * choose a free port ({@code -p -1}) and reads it back from the server's log, so no other process can take the port
     * between choosing and binding it; {@link #kill()} sends SIGKILL, and {@link #start()} starts it again on the same
     * port and folder (clients reconnect to the same URL). Closing kills it and deletes the folder.
     */
    static final class OwnServer implements AutoCloseable {
        private static final Pattern LISTENING = Pattern.compile("Listening for client connections on [^\\s]*:(\\d+)");
        private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

        private final Path dir;
        private final List<String> extra;
        /** The port nats-server chose on the first start; 0 before. */
        private int port;

        private @org.jspecify.annotations.Nullable Process process;

        /** A server on a port of its choosing; {@code extra} are more command-line arguments (e.g. {@code -c file}). */
        OwnServer(String... extra) throws IOException {
            this.dir = Files.createTempDirectory("shove-nats-");
            this.extra = List.of(extra);
        }

        Path dir() {
            return dir;
        }

        /** The server's port, known once it has started. */
        int port() {
            if (port == 0) {
                throw new IllegalStateException("the test's nats-server has not started yet: call start() first");
            }
            return port;
        }

        String url() {
            return "nats://127.0.0.1:" + port();
        }

        /**
         * Starts the server and waits until it is ready: on a port of its choosing the first time, on the same port
         * after a {@link #kill()}. A restart whose port another process took meanwhile is tried again until the start
         * timeout, then fails naming the port.
         */
        OwnServer start() throws Exception {
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (true) {
                String failure = launch(deadline);
                if (failure == null) {
                    return this;
                }
                if (port == 0 || !failure.contains("address already in use") || System.nanoTime() > deadline) {
                    throw new IllegalStateException("nats-server "
                            + (port == 0 ? "(port of its choosing)" : "on port " + port) + " exited: " + failure);
                }
                // a restart: another process holds the port; try again once it lets go (or the deadline passes)
                while (listening(port) && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }

        /** One launch: null once the server is ready, else its log when it exited. */
        private @org.jspecify.annotations.Nullable String launch(long deadline) throws Exception {
            List<String> command = new ArrayList<>(List.of(
                    natsServer().toString(),
                    "-a",
                    "127.0.0.1",
                    "-p",
                    Integer.toString(port == 0 ? -1 : port),
                    "-js",
                    "-sd",
                    dir.resolve("jetstream").toString()));
            command.addAll(extra);
            Path log = dir.resolve("server.log");
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            process = p;
            while (true) {
                String text = Files.readString(log);
                Matcher listening = LISTENING.matcher(text);
                if (listening.find() && text.contains("Server is ready")) {
                    int bound = Integer.parseInt(listening.group(1));
                    if (port != 0 && bound != port) {
                        throw new IllegalStateException(
                                "nats-server was restarted on port " + port + " but listens on " + bound);
                    }
                    port = bound;
                    if (listening(port)) {
                        return null;
                    }
                }
                if (!p.isAlive()) {
                    return Files.readString(log);
                }
                if (System.nanoTime() > deadline) {
                    kill();
                    throw new IllegalStateException("nats-server did not start within " + START_TIMEOUT + ": " + text);
                }
                p.waitFor(50, TimeUnit.MILLISECONDS); // returns as soon as the server exits
            }
        }

        /** SIGKILL: the server gets no chance to flush or say goodbye. */
        void kill() {
            Process p = process;
            if (p != null) {
                p.destroyForcibly();
                try {
                    p.waitFor(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void close() throws IOException {
            kill();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
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

        /** The nats-server executable: on the PATH, or where Debian installs it (/usr/sbin is not on every PATH). */
        private static Path natsServer() {
            List<String> dirs = new ArrayList<>(
                    List.of(System.getenv().getOrDefault("PATH", "").split(":")));
            dirs.addAll(List.of("/usr/sbin", "/usr/local/bin", "/usr/bin"));
            for (String dir : dirs) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "nats-server"))) {
                    return Path.of(dir, "nats-server");
                }
            }
            String message = "nats-server is not installed; this test starts a server of its own"
                    + " (install it with scripts/brokers.sh up nats)";
            if (BrokerAvailability.required()) {
                throw new AssertionError(message);
            }
            org.junit.jupiter.api.Assumptions.abort(message);
            throw new AssertionError(message);
        }
    }
}
