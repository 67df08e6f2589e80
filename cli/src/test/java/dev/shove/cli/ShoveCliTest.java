package dev.shove.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.AuthenticationException;
import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** Every command on the in-memory broker, through picocli as a user types it, and the exit codes. */
class ShoveCliTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private Broker<InMemory> broker;
    private final List<String> connectedTo = new CopyOnWriteArrayList<>();
    private final Map<String, String> env = new HashMap<>();
    private final List<ConsumerGroup<InMemory, NoContext>> groups = new ArrayList<>();

    @BeforeEach
    void connect() {
        broker = Broker.connect(InMemoryConfig.ofDefaults());
    }

    @AfterEach
    void close() {
        groups.forEach(g -> g.stop(Duration.ofSeconds(5)));
        broker.close();
    }

    record Result(int status, String out, String err) {}

    /** Runs a command line on the test's in-memory broker (whatever the URI), with {@code stdin} as input. */
    private Result runWithInput(String stdin, String... args) {
        return runWithInput(false, stdin, args);
    }

    /** As {@link #runWithInput(String, String...)}, as if a person sat at a terminal and typed {@code stdin}. */
    private Result runOnTerminal(String stdin, String... args) {
        return runWithInput(true, stdin, args);
    }

    private Result runWithInput(boolean terminal, String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        ShoveCli.Connector shared = new ShoveCli.Connector() {
            @Override
            public Broker<?> connect(String uri) {
                connectedTo.add(uri);
                return broker;
            }

            @Override
            public void release(Broker<?> b) {
                // the test's broker outlives the command
            }
        };
        int status = (terminal
                        ? ShoveCli.onTerminal(
                                shared,
                                env,
                                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                                new PrintWriter(out, true),
                                new PrintWriter(err, true))
                        : ShoveCli.of(
                                shared,
                                env,
                                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                                new PrintWriter(out, true),
                                new PrintWriter(err, true)))
                .run(args);
        return new Result(status, out.toString(), err.toString());
    }

    private Result run(String... args) {
        return runWithInput("", args);
    }

    /** Runs a command line with the real connector ({@link Broker#connect(String)}). */
    private static Result runConnecting(String... args) {
        return runWith(Broker::connect, args);
    }

    /** Runs a command line with {@code connector}. */
    private static Result runWith(ShoveCli.Connector connector, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = ShoveCli.of(
                        connector,
                        Map.of(),
                        new ByteArrayInputStream(new byte[0]),
                        new PrintWriter(out, true),
                        new PrintWriter(err, true))
                .run(args);
        return new Result(status, out.toString(), err.toString());
    }

    private static Topic<byte[]> raw(String name) {
        return Topic.builder(name, byte[].class)
                .holdQueue(Duration.ofMillis(50))
                .dlq()
                .build();
    }

    /** Consumes {@code topic}: payloads containing "bad" are rejected, "boom" throws; dead letters stay. */
    private List<String> consume(Topic<byte[]> topic, List<Map<String, String>> headersSeen) {
        List<String> handled = new CopyOnWriteArrayList<>();
        ConsumerGroup<InMemory, NoContext> group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .maxRetries(0)
                        .noDeadLetterConsumer()
                        .build(),
                () -> (byte[] payload, MessageMetadata meta, NoContext ctx) -> {
                    String text = new String(payload, StandardCharsets.UTF_8);
                    if (text.contains("boom")) {
                        throw new IllegalStateException("boom in " + text);
                    }
                    if (text.contains("bad")) {
                        return Outcome.reject("bad payload");
                    }
                    handled.add(text);
                    headersSeen.add(meta.headers());
                    return Outcome.ack();
                });
        group.start();
        groups.add(group);
        return handled;
    }

    @Nested
    @DisplayName("shove ping")
    class Ping {
        @Test
        @DisplayName("reports the connection up and exits 0")
        void up() {
            Result r = run("ping", "--broker", "memory:");
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            assertThat(r.out()).startsWith("memory: connected since ");
            assertThat(connectedTo).containsExactly("memory:");
        }

        @Test
        @DisplayName("takes the broker from SHOVE_BROKER_URI when --broker is not given")
        void fromEnvironment() {
            env.put(ShoveCli.BROKER_ENV, "memory://?capacity=5");
            assertThat(run("ping").status()).isEqualTo(ShoveCli.OK);
            assertThat(connectedTo).containsExactly("memory://?capacity=5");
        }

        @Test
        @DisplayName("without a broker URI is a usage error (2) that says how to give one")
        void noBroker() {
            Result r = run("ping");
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).contains("--broker URI").contains(ShoveCli.BROKER_ENV);
            assertThat(r.err().lines()).hasSize(1);
        }

        @Test
        @DisplayName("a URI no backend reads is a usage error (2) naming the scheme")
        void unknownScheme() {
            Result r = runConnecting("ping", "--broker", "carrier-pigeon://loft");
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).startsWith("shove ping: broker URI: ").contains("carrier-pigeon");
            assertThat(r.err().lines()).hasSize(1);
        }

        @Test
        @DisplayName("a broker that does not answer is a failure (1), in one line without a stack trace")
        void unreachable() {
            Result r = runConnecting("ping", "--broker", "amqp://guest:guest@127.0.0.1:1");
            assertThat(r.status()).isEqualTo(ShoveCli.FAILURE);
            assertThat(r.err())
                    .startsWith(
                            "shove ping: cannot connect to RabbitMQ at amqp://guest:****@127.0.0.1:1/%2F (connection refused)")
                    .doesNotContain("\tat ");
            assertThat(r.err()).doesNotContain("guest:guest");
            assertThat(r.err().lines()).hasSize(1);
        }

        @Test
        @DisplayName("a broker that refuses the credentials or certificate is a failure (1), in one line that says so"
                + " with the backend's message")
        void refused() {
            String refusal = "RabbitMQ at amqps://app:****@rabbit:5671 refused user 'app': wrong user name or password";
            Result r = runWith(
                    uri -> {
                        throw new AuthenticationException(refusal);
                    },
                    "ping",
                    "--broker",
                    "amqps://app:s3cret@rabbit:5671");
            assertThat(r.status()).isEqualTo(ShoveCli.FAILURE);
            assertThat(r.err())
                    .isEqualTo("shove ping: the broker refused the connection: " + refusal + System.lineSeparator());
            assertThat(r.err()).doesNotContain("s3cret");
        }

        @Test
        @DisplayName("a broker that does not answer within --timeout is a failure (1) after that timeout, whatever the"
                + " client's own wait; a connection made later is released")
        void connectingTakesTooLong() throws InterruptedException {
            CountDownLatch answer = new CountDownLatch(1);
            CountDownLatch released = new CountDownLatch(1);
            Broker<InMemory> late = Broker.connect(InMemoryConfig.ofDefaults());
            ShoveCli.Connector slow = new ShoveCli.Connector() {
                @Override
                public Broker<?> connect(String uri) {
                    try {
                        // bounded, so that a ping that waited for it would succeed late and fail the test, not hang
                        answer.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return late;
                }

                @Override
                public void release(Broker<?> b) {
                    b.close();
                    released.countDown();
                }
            };
            Result r = runWith(slow, "ping", "--broker", "kafka://127.0.0.1:9092", "--timeout", "200ms");
            assertThat(r.status()).isEqualTo(ShoveCli.FAILURE);
            assertThat(r.err())
                    .startsWith("shove ping: cannot connect to the broker: no connection within 200 ms (--timeout)")
                    .doesNotContain("\tat ");
            assertThat(released.getCount()).isEqualTo(1);
            answer.countDown();
            assertThat(released.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
        }

        @Test
        @DisplayName("ping of a Kafka address nobody listens on says connection refused, not the client's 30 s wait")
        void kafkaNotListening() throws java.io.IOException {
            int port;
            try (java.net.ServerSocket socket =
                    new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
            Result r = runConnecting("ping", "--broker", "kafka://127.0.0.1:" + port, "--timeout", "3s");
            assertThat(r.status()).isEqualTo(ShoveCli.FAILURE);
            assertThat(r.err())
                    .startsWith("shove ping: cannot connect to Kafka at 127.0.0.1:" + port + " (connection refused)")
                    .doesNotContain("PT30S")
                    .doesNotContain("30 s");
        }

        @Test
        @DisplayName("--verbose adds the stack trace")
        void verbose() {
            Result r = runConnecting("ping", "--verbose", "--broker", "amqp://guest:guest@127.0.0.1:1");
            assertThat(r.status()).isEqualTo(ShoveCli.FAILURE);
            assertThat(r.err()).contains("\tat ");
        }
    }

    @Nested
    @DisplayName("shove topology")
    class Topology {
        @Test
        @DisplayName("show prints the main queue, hold tiers and dlq, and connects to nothing")
        void show() {
            Result r = run("topology", "show", "--topic", "orders", "--hold", "500ms", "--hold", "PT1M", "--dlq");
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            assertThat(r.out().lines().map(l -> l.replaceAll(" +", " ")))
                    .containsExactly(
                            "main orders",
                            "hold orders-hold-500ms (500 ms)",
                            "hold orders-hold-1m (1 min)",
                            "dlq orders-dlq");
            assertThat(connectedTo).isEmpty();
        }

        @Test
        @DisplayName("show of a sequenced topic prints its shards with their tiers, and a named dlq")
        void showSequenced() {
            Result r = run("topology", "show", "-t", "events", "--hold", "5s", "--dlq", "events-dead", "--shards", "2");
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            assertThat(r.out().lines().map(l -> l.replaceAll(" +", " ")))
                    .containsExactly(
                            "shard events-seq-0",
                            "hold events-seq-0-hold-5s (5 s)",
                            "shard events-seq-1",
                            "hold events-seq-1-hold-5s (5 s)",
                            "dlq events-dead");
        }

        @Test
        @DisplayName("show of a topic without --hold names the implicit tier")
        void implicitTier() {
            Result r = run("topology", "show", "-t", "plain");
            assertThat(r.out()).contains("plain-hold-1s").contains("implicit");
            assertThat(r.out()).doesNotContain("dlq");
        }

        @Test
        @DisplayName("a topic the core refuses is a usage error (2) naming the topic")
        void invalidTopic() {
            Result r = run("topology", "show", "-t", "events", "--shards", "2");
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).contains("topic 'events'").contains("dlq");
            assertThat(r.err().lines()).hasSize(1);
        }

        @Test
        @DisplayName("a duration that does not parse is a usage error (2)")
        void badDuration() {
            Result r = run("topology", "show", "-t", "x", "--hold", "soon");
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).contains("'soon' is not a duration");
        }

        @Test
        @DisplayName("declare creates the objects on the broker: a message published after waits in the main queue")
        void declare() {
            Result r = run("topology", "declare", "-b", "memory:", "-t", "declared", "--hold", "1s", "--dlq");
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            assertThat(r.out()).contains("declared topic 'declared' on memory");
            Topic<byte[]> topic = Topic.builder("declared", byte[].class)
                    .holdQueue(Duration.ofSeconds(1))
                    .dlq()
                    .build();
            broker.publisher().publish(topic, new byte[] {1});
            assertThat(InMemoryProbe.of(broker).depth("declared")).isEqualTo(1);
        }

        @Test
        @DisplayName("without a subcommand is a usage error (2)")
        void noSubcommand() {
            assertThat(run("topology").status()).isEqualTo(ShoveCli.USAGE);
        }
    }

    @Nested
    @DisplayName("shove publish")
    class Publish {
        @Test
        @DisplayName("--payload publishes the bytes as given, with the headers")
        void payload() {
            Topic<byte[]> topic = raw("pub-payload");
            List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
            List<String> handled = consume(topic, headers);
            Result r = run(
                    "publish",
                    "-b",
                    "memory:",
                    "-t",
                    "pub-payload",
                    "--hold",
                    "50ms",
                    "--dlq",
                    "-H",
                    "tenant=acme",
                    "--header",
                    "source=cli",
                    "--payload",
                    "{\"orderId\":\"o-1\"}");
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            assertThat(r.out()).contains("published 17 bytes to topic 'pub-payload'");
            await().atMost(TIMEOUT).until(() -> handled.size() == 1);
            assertThat(handled).containsExactly("{\"orderId\":\"o-1\"}");
            assertThat(headers.get(0)).containsEntry("tenant", "acme").containsEntry("source", "cli");
        }

        @Test
        @DisplayName("--file and standard input publish their bytes")
        void fileAndStdin(@TempDir Path dir) throws Exception {
            Topic<byte[]> topic = raw("pub-file");
            List<String> handled = consume(topic, new CopyOnWriteArrayList<>());
            Path file = dir.resolve("payload.json");
            Files.writeString(file, "from-file");
            assertThat(run("publish", "-b", "m:", "-t", "pub-file", "--file", file.toString())
                            .status())
                    .isEqualTo(ShoveCli.OK);
            assertThat(runWithInput("from-stdin", "publish", "-b", "m:", "-t", "pub-file")
                            .status())
                    .isEqualTo(ShoveCli.OK);
            await().atMost(TIMEOUT).until(() -> handled.size() == 2);
            assertThat(handled).containsExactlyInAnyOrder("from-file", "from-stdin");
        }

        @Test
        @DisplayName("a sequenced topic needs --key, and --key needs a sequenced topic (2)")
        void keys() {
            Result noKey = run("publish", "-b", "m:", "-t", "seq", "--hold", "1s", "--dlq", "--shards", "2", "-p", "x");
            assertThat(noKey.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(noKey.err()).contains("topic 'seq' is sequenced").contains("--key");
            Result keyOnPlain = run("publish", "-b", "m:", "-t", "plain", "--key", "k", "-p", "x");
            assertThat(keyOnPlain.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(keyOnPlain.err()).contains("topic 'plain' is not sequenced");
        }

        @Test
        @DisplayName("a sequenced topic takes the message's --key")
        void sequenced() {
            run("topology", "declare", "-b", "m:", "-t", "seq-ok", "--hold", "1s", "--dlq", "--shards", "2");
            Result r = run(
                    "publish",
                    "-b",
                    "m:",
                    "-t",
                    "seq-ok",
                    "--hold",
                    "1s",
                    "--dlq",
                    "--shards",
                    "2",
                    "-k",
                    "k1",
                    "-p",
                    "x");
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            InMemoryProbe probe = InMemoryProbe.of(broker);
            assertThat(probe.depth("seq-ok-seq-0") + probe.depth("seq-ok-seq-1"))
                    .isEqualTo(1);
        }

        @Test
        @DisplayName("a reserved shove- header is a usage error (2) naming the topic")
        void reservedHeader() {
            run("topology", "declare", "-b", "m:", "-t", "pub-reserved");
            Result r = run("publish", "-b", "m:", "-t", "pub-reserved", "-H", "shove-retry-count=3", "-p", "x");
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).contains("topic 'pub-reserved'").contains("shove-retry-count");
        }

        @Test
        @DisplayName("--payload and --file together are a usage error (2)")
        void twoSources() {
            Result r = run("publish", "-b", "m:", "-t", "x", "-p", "a", "-f", "b");
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).contains("mutually exclusive");
        }
    }

    @Nested
    @DisplayName("shove dlq")
    class Dlq {
        private static final String[] TOPIC = {"-b", "memory:", "-t", "payments", "--hold", "50ms"};

        private String[] args(String... more) {
            List<String> all = new ArrayList<>(List.of(more));
            all.addAll(List.of(TOPIC));
            return all.toArray(String[]::new);
        }

        /** Three dead letters: two rejected (bad-1, bad-2), one whose handler threw (boom-1); good-1 handled. */
        private List<String> deadLetters() {
            Topic<byte[]> topic = raw("payments");
            List<String> handled = consume(topic, new CopyOnWriteArrayList<>());
            for (String payload : List.of("bad-1", "boom-1", "good-1", "bad-2")) {
                assertThat(run(args("publish", "-p", payload)).status()).isEqualTo(ShoveCli.OK);
            }
            await().atMost(TIMEOUT)
                    .until(() -> broker.deadLetters(topic).count().orElse(0) == 3 && handled.size() == 1);
            return handled;
        }

        @Test
        @DisplayName("count prints how many dead letters wait; a queue not declared is a failure (1)")
        void count() {
            Result undeclared = run(args("dlq", "count"));
            assertThat(undeclared.status()).isEqualTo(ShoveCli.FAILURE);
            assertThat(undeclared.err()).contains("'payments-dlq' is not declared");
            assertThat(undeclared.err())
                    .as("the advice is a CLI command, not a Java call")
                    .contains("shove topology declare --topic")
                    .doesNotContain("broker.topology()");
            assertThat(run(args("topology", "declare", "--dlq")).status()).isEqualTo(ShoveCli.OK);
            assertThat(run(args("dlq", "count")).out()).isEqualTo("0\n");
            deadLetters();
            Result r = run(args("dlq", "count"));
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            assertThat(r.out()).isEqualTo("3\n");
        }

        @Test
        @DisplayName("list prints reason, counts, exception, headers and payload; --json one object a line")
        void list() {
            deadLetters();
            Result text = run(args("dlq", "list", "--limit", "2"));
            assertThat(text.status()).as(text.err()).isEqualTo(ShoveCli.OK);
            assertThat(text.out())
                    .contains("reason:    rejected: bad payload")
                    .contains("queue:     payments  deaths: 1  replays: 0")
                    .contains("exception: java.lang.IllegalStateException: boom in boom-1")
                    .contains("header:    shove-death-reason=")
                    .contains("payload:   bad-1")
                    .doesNotContain("bad-2")
                    .contains("2 dead letter(s) shown from 'payments-dlq'");
            Result json = run(args("dlq", "list", "--json"));
            assertThat(json.out().lines()).hasSize(3).allMatch(l -> l.startsWith("{\"id\":"));
            assertThat(json.out().lines().toList().get(1))
                    .contains("\"exceptionClass\":\"java.lang.IllegalStateException\"")
                    .contains("\"payload\":\"boom-1\"")
                    .contains("\"deathCount\":1")
                    .contains("\"replayCount\":0");
        }

        @Test
        @DisplayName("replay --dry-run reports what would move, moves nothing, and exits 3")
        void dryRun() {
            deadLetters();
            Result r = run(args("dlq", "replay", "--dry-run", "--reason", "rejected"));
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.ATTENTION);
            assertThat(r.out()).contains("payments-dlq (dry run): 3 scanned, 2 matched, 2 would move, 0 refused");
            assertThat(r.out().lines().filter(l -> l.startsWith("would replay ")))
                    .hasSize(2);
            assertThat(run(args("dlq", "count")).out()).isEqualTo("3\n");
            Result nothing = run(args("dlq", "replay", "--dry-run", "--reason", "no-such-reason"));
            assertThat(nothing.status()).isEqualTo(ShoveCli.OK);
        }

        @Test
        @DisplayName("replay with a filter sends the chosen letters back to the topic, with progress on stderr")
        void replay() {
            List<String> handled = deadLetters();
            Result r = run(args("dlq", "replay", "--exception", "IllegalState", "--rate", "100"));
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            assertThat(r.out()).contains("payments-dlq: 3 scanned, 1 matched, 1 moved, 0 refused");
            assertThat(r.out().lines().filter(l -> l.startsWith("replayed "))).hasSize(1);
            assertThat(r.err()).contains("replay payments-dlq: 3 scanned");
            // the handler throws again, so it comes back with its replay count
            await().atMost(TIMEOUT).until(() -> run(args("dlq", "count")).out().equals("3\n"));
            assertThat(run(args("dlq", "list", "--json")).out()).contains("\"replayCount\":1");
            assertThat(handled).containsExactly("good-1");
        }

        @Test
        @DisplayName("replay refuses letters replayed --max-replays times already and exits 3")
        void refused() {
            deadLetters();
            Result r = run(args("dlq", "replay", "--max-replays", "0", "--limit", "1", "-q"));
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.ATTENTION);
            assertThat(r.out()).contains("3 refused");
            assertThat(r.out().lines().filter(l -> l.startsWith("refused "))).hasSize(3);
            assertThat(r.err()).isEmpty();
        }

        @Test
        @DisplayName("purge removes the chosen letters for good; the rest stay")
        void purge() {
            deadLetters();
            Result r = run(args("dlq", "purge", "--contains", "bad"));
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
            assertThat(r.out()).contains("2 moved").contains("purged ");
            assertThat(run(args("dlq", "count")).out()).isEqualTo("1\n");
            assertThat(run(args("dlq", "list", "--json")).out()).contains("boom-1");
        }

        @Test
        @DisplayName("purge without a filter and without --yes, off a terminal, is a usage error (2) and removes"
                + " nothing")
        void purgeEverythingNeedsYes() {
            deadLetters();
            Result r = run(args("dlq", "purge"));
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).contains("--yes");
            assertThat(run(args("dlq", "count")).out()).isEqualTo("3\n");

            Result yes = run(args("dlq", "purge", "--yes", "-q"));
            assertThat(yes.status()).as(yes.err()).isEqualTo(ShoveCli.OK);
            assertThat(yes.out()).contains("3 moved");
            assertThat(run(args("dlq", "count")).out()).isEqualTo("0\n");
        }

        @Test
        @DisplayName("purge without a filter on a terminal asks first: anything but yes removes nothing (2), yes"
                + " removes every dead letter")
        void purgeEverythingAsksOnTerminal() {
            deadLetters();
            Result no = runOnTerminal("no\n", args("dlq", "purge", "-q"));
            assertThat(no.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(no.err())
                    .contains("Remove 3 dead letters of 'payments-dlq' for good?")
                    .contains("not confirmed");
            assertThat(run(args("dlq", "count")).out()).isEqualTo("3\n");

            Result yes = runOnTerminal("yes\n", args("dlq", "purge", "-q"));
            assertThat(yes.status()).as(yes.err()).isEqualTo(ShoveCli.OK);
            assertThat(yes.out()).contains("3 moved");
            assertThat(run(args("dlq", "count")).out()).isEqualTo("0\n");
        }

        @Test
        @DisplayName("--limit and --rate are checked by the core: out of range is a usage error (2)")
        void badOptions() {
            assertThat(run(args("dlq", "replay", "--limit", "0")).status()).isEqualTo(ShoveCli.USAGE);
            Result rate = run(args("dlq", "purge", "--rate", "-1"));
            assertThat(rate.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(rate.err()).contains("ratePerSecond");
            assertThat(run(args("dlq", "list", "--limit", "0")).status()).isEqualTo(ShoveCli.USAGE);
        }

        @Test
        @DisplayName("--group reads the dead letters as that group sees them")
        void group() {
            deadLetters();
            Result r = run(args("dlq", "count", "--group", "payments"));
            assertThat(r.out()).isEqualTo("3\n");
        }
    }

    @Nested
    @DisplayName("shove asyncapi")
    class AsyncApiDocument {
        @Test
        @DisplayName("prints the document of a class's topic constants, as YAML or JSON, with the broker's server")
        void document() {
            Result yaml = run("asyncapi", "--class", Topics.class.getName(), "--broker", "kafka://kafka-1:9092");
            assertThat(yaml.status()).as(yaml.err()).isEqualTo(ShoveCli.OK);
            assertThat(yaml.out())
                    .startsWith("asyncapi: \"3.0.0\"")
                    .contains("cli-orders-dlq")
                    .contains("title: Topics")
                    .contains("kafka-1:9092");
            Result json = run("asyncapi", "-c", Topics.class.getName(), "--format", "json", "--title", "Shop");
            assertThat(json.status()).as(json.err()).isEqualTo(ShoveCli.OK);
            assertThat(json.out())
                    .startsWith("{")
                    .contains("\"title\": \"Shop\"")
                    .contains("cli-orders-hold-5s");
            assertThat(connectedTo).isEmpty();
        }

        @Test
        @DisplayName("loads the class from --classpath")
        void classpath(@TempDir Path dir) throws Exception {
            Path classes = Path.of(Topics.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            Result r = run(
                    "asyncapi",
                    "--classpath",
                    dir + java.io.File.pathSeparator + classes,
                    "-c",
                    Topics.class.getName());
            assertThat(r.status()).as(r.err()).isEqualTo(ShoveCli.OK);
        }

        @Test
        @DisplayName("an unknown class, a class without topics, a missing --classpath entry are usage errors (2)")
        void errors(@TempDir Path dir) {
            Result missing = run("asyncapi", "-c", "com.example.NoSuchTopics");
            assertThat(missing.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(missing.err())
                    .contains("class com.example.NoSuchTopics not found")
                    .contains("--classpath");
            Result empty = run("asyncapi", "-c", String.class.getName());
            assertThat(empty.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(empty.err()).contains("declares no topics");
            Result entry = run("asyncapi", "--cp", dir.resolve("nope.jar").toString(), "-c", "x.Y");
            assertThat(entry.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(entry.err()).contains("nope.jar does not exist");
        }
    }

    /** Topics as an application keeps them, for {@code shove asyncapi}. */
    public static final class Topics {
        /** An order paid. */
        public record OrderPaid(String orderId, long cents) {}

        public static final Topic<OrderPaid> ORDERS = Topic.builder("cli-orders", OrderPaid.class)
                .holdQueue(Duration.ofSeconds(5))
                .dlq()
                .build();

        private Topics() {}
    }

    @Nested
    @DisplayName("help and usage")
    class Help {
        @Test
        @DisplayName("--help on every command exits 0 and explains every option")
        void helpEverywhere() {
            List<CommandLine> all = new ArrayList<>();
            collect(
                    ShoveCli.of(
                                    ShoveCliTest::noConnect,
                                    Map.of(),
                                    System.in,
                                    new PrintWriter(new StringWriter()),
                                    new PrintWriter(new StringWriter()))
                            .commandLine(),
                    all);
            assertThat(all).hasSize(12);
            for (CommandLine command : all) {
                String name = command.getCommandSpec().qualifiedName(" ");
                List<String> args = new ArrayList<>(List.of(name.split(" ")).subList(1, name.split(" ").length));
                args.add("--help");
                Result r = run(args.toArray(String[]::new));
                assertThat(r.status()).as(name).isEqualTo(ShoveCli.OK);
                assertThat(command.getCommandSpec().usageMessage().description())
                        .as(name)
                        .isNotEmpty();
                for (OptionSpec option : command.getCommandSpec().options()) {
                    assertThat(option.description())
                            .as(name + " " + option.longestName())
                            .isNotEmpty();
                    assertThat(r.out()).as(name).contains(option.longestName());
                }
            }
        }

        private static void collect(CommandLine command, List<CommandLine> into) {
            into.add(command);
            command.getSubcommands().values().forEach(sub -> collect(sub, into));
        }

        @Test
        @DisplayName("an unknown option is a usage error (2) that points to --help")
        void unknownOption() {
            Result r = run("dlq", "count", "-t", "x", "--colour");
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).contains("Unknown option: '--colour'").contains("shove dlq count --help");
        }

        @Test
        @DisplayName("a missing required option is a usage error (2)")
        void missingTopic() {
            Result r = run("dlq", "count", "-b", "memory:");
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.err()).contains("--topic");
        }

        @Test
        @DisplayName("no command prints the usage and exits 2; --version exits 0")
        void noCommand() {
            Result r = run();
            assertThat(r.status()).isEqualTo(ShoveCli.USAGE);
            assertThat(r.out()).contains("Exit status:").contains("dlq").contains("asyncapi");
            assertThat(run("--version").status()).isEqualTo(ShoveCli.OK);
        }
    }

    private static Broker<?> noConnect(String uri) {
        throw new AssertionError("connected to " + uri);
    }
}
