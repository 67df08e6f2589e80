package dev.shove.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.GroupHealth;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.RegistrationHealth;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Liveness and readiness probes for Kubernetes, served from the JDK's built-in HTTP server: {@code /health/live}
 * answers 200 while {@link GroupHealth#isLive()} and 503 otherwise, {@code /health/ready} the same for {@link
 * GroupHealth#isReady()}; both print the health report as text.
 *
 * <p>The run: the probes answer before the group starts (live, not ready), while it runs (both), and while a
 * registration is paused (both: pausing is deliberate), then after it stops (live, not ready). The example asks its
 * own endpoints and prints what they answered; it exits 0 when every answer was the expected one.
 */
public final class HealthProbes {
    /** The topic the example consumes. */
    public static final Topic<String> EVENTS = Topic.builder("events", String.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    private HealthProbes() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        Result result = run(System.out);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    // region probes
    /** Serves {@code /health/live} and {@code /health/ready} for {@code health} on {@code port} (0: any free port). */
    static HttpServer serveProbes(int port, Supplier<GroupHealth> health) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext(
                "/health/live",
                exchange -> answer(exchange, health.get(), health.get().isLive()));
        server.createContext(
                "/health/ready",
                exchange -> answer(exchange, health.get(), health.get().isReady()));
        server.start();
        return server;
    }

    private static void answer(HttpExchange exchange, GroupHealth health, boolean ok) throws IOException {
        StringBuilder body = new StringBuilder(ok ? "UP" : "DOWN").append('\n');
        body.append("connection: ")
                .append(health.connection().connected() ? "up" : "down")
                .append('\n');
        for (RegistrationHealth r : health.registrations()) {
            body.append(r.topic())
                    .append(": ")
                    .append(r.status())
                    .append(", consumers ")
                    .append(r.consumers());
            body.append('/')
                    .append(r.minConsumers())
                    .append(", stalled ")
                    .append(r.stalledHandlers().size());
            body.append('\n');
        }
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(ok ? 200 : 503, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
    // endregion probes

    /** One probe answer: which moment, which endpoint, the status code. */
    public record Answer(String moment, String endpoint, int status) {}

    /** Runs the probes through the group's lifecycle and records what they answered. */
    public static Result run(PrintStream out) throws IOException, InterruptedException {
        List<Answer> answers = new ArrayList<>();
        HttpClient client = HttpClient.newHttpClient();
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            ConsumerGroup<InMemory, NoContext> group = broker.consumerGroup();
            group.register(EVENTS, () -> (event, meta, context) -> Outcome.ack());
            HttpServer server = serveProbes(0, group::health);
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            try {
                ask(client, base, "before start", answers, out);
                group.start();
                ask(client, base, "running", answers, out);
                group.pause(EVENTS);
                ask(client, base, "paused", answers, out);
                group.resume(EVENTS);
                group.stop(Duration.ofSeconds(5));
                ask(client, base, "stopped", answers, out);
            } finally {
                server.stop(0);
            }
        }
        return new Result(answers);
    }

    private static void ask(HttpClient client, String base, String moment, List<Answer> answers, PrintStream out)
            throws IOException, InterruptedException {
        for (String endpoint : List.of("/health/live", "/health/ready")) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create(base + endpoint)).build(), HttpResponse.BodyHandlers.ofString());
            answers.add(new Answer(moment, endpoint, response.statusCode()));
            out.printf(
                    "%-12s %-14s %d %s%n",
                    moment,
                    endpoint,
                    response.statusCode(),
                    response.body().lines().findFirst().orElse(""));
        }
    }

    /**
     * What the probes answered.
     *
     * @param answers every answer, in order
     */
    public record Result(List<Answer> answers) {
        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<Answer> expected = List.of(
                    new Answer("before start", "/health/live", 200),
                    new Answer("before start", "/health/ready", 503),
                    new Answer("running", "/health/live", 200),
                    new Answer("running", "/health/ready", 200),
                    new Answer("paused", "/health/live", 200),
                    new Answer("paused", "/health/ready", 200),
                    new Answer("stopped", "/health/live", 200),
                    new Answer("stopped", "/health/ready", 503));
            return answers.equals(expected)
                    ? List.of()
                    : List.of("the probes answered " + answers + ", expected " + expected);
        }
    }
}
