package dev.shove.redis;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A {@code redis-server} of a test's own, on its own port and data directory, for the tests that restart or kill Redis
 * or need a configuration of their own (the shared Redis on 6379 is never touched). Runs in the foreground as a child
 * process; {@link #kill()} is SIGKILL; {@link #close()} kills it and deletes its directory.
 */
final class RedisServerProcess implements AutoCloseable {
    private final int port;
    private final List<String> arguments;
    private final Path dir;
    private Process process;

    private RedisServerProcess(int port, List<String> arguments, Path dir) {
        this.port = port;
        this.arguments = arguments;
        this.dir = dir;
    }

    /**
     * Starts {@code redis-server} on 127.0.0.1:{@code port} with these extra arguments ({@code --name value} pairs) and
     * waits until it accepts connections on {@code readyPort}. Skips (or fails with {@code SHOVE_IT_REQUIRED=true})
     * when {@code redis-server} is not installed.
     */
    static RedisServerProcess start(int port, int readyPort, String... extra) throws IOException {
        if (!onPath("redis-server")) {
            String message = "redis-server is not installed; run `scripts/brokers.sh up redis` (it installs it)";
            if (dev.shove.conformance.BrokerAvailability.required()) {
                throw new AssertionError(message);
            }
            Assumptions.abort(message);
        }
        Path dir = Files.createTempDirectory("shove-redis-" + port + "-");
        List<String> args = new ArrayList<>(List.of(
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--daemonize",
                "no",
                "--logfile",
                dir.resolve("redis.log").toString()));
        args.addAll(List.of(extra));
        RedisServerProcess server = new RedisServerProcess(readyPort, args, dir);
        try {
            server.launch();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /**
     * Like {@link #start}, on the first of {@code attempts} ports from {@code firstPort} that is free: ports in this
     * range can be taken for a moment as the local end of another process's outgoing connection.
     *
     * @param arguments the extra arguments for a port: the port to listen on is {@code port}
     * @param tlsOnly whether {@code port} is a TLS port ({@code --tls-port}), the plain port being off
     */
    static RedisServerProcess startOnFreePort(
            int firstPort, int attempts, boolean tlsOnly, java.util.function.IntFunction<String[]> arguments)
            throws IOException {
        IllegalStateException last = null;
        for (int port = firstPort; port < firstPort + attempts; port++) {
            try {
                return start(tlsOnly ? 0 : port, port, arguments.apply(port));
            } catch (IllegalStateException e) {
                last = e; // most likely taken: try the next one
            }
        }
        throw new IllegalStateException(
                "no free port for redis-server in " + firstPort + ".." + (firstPort + attempts - 1), last);
    }

    /** The port it accepts connections on. */
    int port() {
        return port;
    }

    Path dir() {
        return dir;
    }

    private void launch() throws IOException {
        process = new ProcessBuilder(arguments)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile())
                .start();
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(this::accepting);
    }

    private boolean accepting() {
        if (!process.isAlive()) {
            throw new IllegalStateException("redis-server exited: see " + dir.resolve("redis.log"));
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGKILL: no shutdown save, no goodbye to clients. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Starts the same server again, on the same port and directory. */
    void restart() throws IOException {
        launch();
    }

    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String d : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, command))) {
                return true;
            }
        }
        return false;
    }
}
