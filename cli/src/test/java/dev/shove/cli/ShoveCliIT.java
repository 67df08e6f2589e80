package dev.shove.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.HoldTier;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the built jar ({@code shove-cli-<version>-all.jar}, from {@code package}) as its own process, {@code java -jar},
 * against real brokers: RabbitMQ ({@code SHOVE_RABBITMQ_URI}, default {@code amqp://guest:guest@127.0.0.1:5672}) and
 * Kafka ({@code SHOVE_KAFKA_BOOTSTRAP}, default {@code 127.0.0.1:9092}). A consumer in this test rejects some messages
 * the jar published, so they are dead-lettered the way an application's are; the jar then counts, lists, replays and
 * purges them. A missing broker skips the test, or fails it with {@code SHOVE_IT_REQUIRED=true}.
 */
class ShoveCliIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    @DisplayName("RabbitMQ: ping, topology declare, publish, then dlq count, list, replay and purge from the jar")
    void rabbitMq() throws Exception {
        String uri = BrokerAvailability.env("SHOVE_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:5672");
        BrokerAvailability.require("RabbitMQ", "rabbitmq", URI.create(uri), 5672);
        String name = "it-cli-" + UUID.randomUUID().toString().substring(0, 8);
        cleanUpAfter(() -> journey(uri, name, "rabbitmq"), () -> {
            ConnectionFactory factory = new ConnectionFactory();
            factory.setUri(uri);
            factory.setConnectionTimeout(30_000);
            factory.setHandshakeTimeout(30_000);
            try (Connection connection = factory.newConnection();
                    Channel channel = connection.createChannel()) {
                for (String queue : queues(topic(name))) {
                    channel.queueDelete(queue);
                }
            }
        });
    }

    @Test
    @DisplayName("Kafka: ping, topology declare, publish, then dlq count, list, replay and purge from the jar")
    void kafka() throws Exception {
        String bootstrap = BrokerAvailability.env("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
        String first = bootstrap.split(",")[0];
        int colon = first.lastIndexOf(':');
        BrokerAvailability.require(
                "Kafka", "kafka", first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
        String name = "it-cli-" + UUID.randomUUID().toString().substring(0, 8);
        cleanUpAfter(() -> journey("kafka://" + bootstrap, name, "kafka"), () -> {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                Set<String> ours = new HashSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
                ours.removeIf(t -> !t.startsWith(name));
                if (!ours.isEmpty()) {
                    admin.deleteTopics(ours).all().get(30, TimeUnit.SECONDS);
                }
            }
        });
    }

    /** Something that may throw anything. */
    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    /** Runs {@code test}, then {@code cleanUp}; a failing clean-up never hides the test's own failure. */
    private static void cleanUpAfter(Step test, Step cleanUp) throws Exception {
        try {
            test.run();
        } catch (Exception | AssertionError e) {
            try {
                cleanUp.run();
            } catch (Exception cleanUpFailure) {
                e.addSuppressed(cleanUpFailure);
            }
            throw e;
        }
        cleanUp.run();
    }

    private static Topic<byte[]> topic(String name) {
        return Topic.builder(name, byte[].class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
    }

    private static List<String> queues(Topic<byte[]> topic) {
        List<String> queues = new ArrayList<>(List.of(topic.name(), topic.dlq().orElseThrow()));
        topic.holdTiers().stream().map(HoldTier::queue).forEach(queues::add);
        return queues;
    }

    private void journey(String uri, String name, String backend) throws Exception {
        List<String> topicArgs = List.of("--broker", uri, "--topic", name, "--hold", "200ms", "--dlq");

        Run ping = cli("ping", "--broker", uri);
        assertThat(ping.status()).as(ping.toString()).isZero();
        assertThat(ping.out()).startsWith(backend + ": connected since ");

        Run declare = cli(with(topicArgs, "topology", "declare"));
        assertThat(declare.status()).as(declare.toString()).isZero();
        assertThat(declare.out()).contains("dlq        " + name + "-dlq").contains("declared topic '" + name + "'");

        Topic<byte[]> topic = topic(name);
        try (Broker<?> broker = Broker.connect(uri)) {
            AtomicBoolean fixed = new AtomicBoolean();
            List<String> handled = new CopyOnWriteArrayList<>();
            ConsumerGroup<?, NoContext> consumer = consume(broker, topic, fixed, handled);

            for (String payload : List.of("{\"n\":\"bad-1\"}", "{\"n\":\"good-1\"}", "{\"n\":\"bad-2\"}")) {
                Run publish = cli(with(topicArgs, "publish", "--header", "tenant=acme", "--payload", payload));
                assertThat(publish.status()).as(publish.toString()).isZero();
            }
            Path file = dir.resolve("payload.json");
            Files.writeString(file, "{\"n\":\"good-2\"}");
            assertThat(cli(with(topicArgs, "publish", "--file", file.toString()))
                            .status())
                    .isZero();

            await().atMost(TIMEOUT)
                    .until(() -> handled.size() == 2
                            && broker.deadLetters(topic).count().orElse(0) == 2);
            assertThat(handled).containsExactlyInAnyOrder("{\"n\":\"good-1\"}", "{\"n\":\"good-2\"}");
            consumer.stop(Duration.ofSeconds(30)); // the dead-letter tools run while the consumers are stopped

            Run count = cli(with(topicArgs, "dlq", "count"));
            assertThat(count.status()).as(count.toString()).isZero();
            assertThat(count.out()).isEqualTo("2\n");

            Run list = cli(with(topicArgs, "dlq", "list", "--json"));
            assertThat(list.status()).as(list.toString()).isZero();
            assertThat(list.out().lines())
                    .hasSize(2)
                    .allSatisfy(line -> assertThat(line)
                            .contains("\"reason\":\"rejected: bad payload\"")
                            .contains("\"tenant\":\"acme\"")
                            .contains("\"deathCount\":1"));
            assertThat(list.out()).contains("bad-1").contains("bad-2");

            Run dryRun = cli(with(topicArgs, "dlq", "replay", "--dry-run"));
            assertThat(dryRun.status()).as(dryRun.toString()).isEqualTo(ShoveCli.ATTENTION);
            assertThat(dryRun.out()).contains("2 would move");
            assertThat(cli(with(topicArgs, "dlq", "count")).out()).isEqualTo("2\n");

            Run replay = cli(with(topicArgs, "dlq", "replay", "--contains", "bad-1", "--rate", "50"));
            assertThat(replay.status()).as(replay.toString()).isZero();
            assertThat(replay.out()).contains("1 matched, 1 moved, 0 refused");
            assertThat(replay.err()).contains("replay " + name + "-dlq:");
            assertThat(cli(with(topicArgs, "dlq", "count")).out()).isEqualTo("1\n");

            // the bug is fixed: the replayed message is handled this time
            fixed.set(true);
            ConsumerGroup<?, NoContext> again = consume(broker, topic, fixed, handled);
            await().atMost(TIMEOUT).until(() -> handled.contains("{\"n\":\"bad-1\"}"));
            again.stop(Duration.ofSeconds(30));
            assertThat(handled).doesNotContain("{\"n\":\"bad-2\"}");

            Run purge = cli(with(topicArgs, "dlq", "purge", "--yes"));
            assertThat(purge.status()).as(purge.toString()).isZero();
            assertThat(purge.out()).contains("1 moved");
            assertThat(cli(with(topicArgs, "dlq", "count")).out()).isEqualTo("0\n");
        }
    }

    /** Handles the topic: rejects payloads with "bad" until {@code fixed}; dead letters stay in their queue. */
    private static ConsumerGroup<?, NoContext> consume(
            Broker<?> broker, Topic<byte[]> topic, AtomicBoolean fixed, List<String> handled) {
        ConsumerGroup<?, NoContext> group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder()
                        .maxRetries(0)
                        .noDeadLetterConsumer()
                        .build(),
                () -> (byte[] payload, MessageMetadata meta, NoContext ctx) -> {
                    String text = new String(payload, StandardCharsets.UTF_8);
                    if (text.contains("bad") && !fixed.get()) {
                        return Outcome.reject("bad payload");
                    }
                    handled.add(text);
                    return Outcome.ack();
                });
        group.start();
        return group;
    }

    private static String[] with(List<String> common, String... command) {
        List<String> all = new ArrayList<>(List.of(command));
        all.addAll(common);
        return all.toArray(String[]::new);
    }

    record Run(List<String> args, int status, String out, String err) {
        @Override
        public String toString() {
            return "shove " + String.join(" ", args) + " -> " + status + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    /** Runs {@code java -jar shove-cli-...-all.jar args} and waits for it. */
    private Run cli(String... args) throws Exception {
        String jar = System.getProperty("shove.cli.jar");
        assertThat(jar).as("system property shove.cli.jar (set by failsafe)").isNotNull();
        assertThat(Path.of(jar)).exists();
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().remove(ShoveCli.BROKER_ENV);
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("shove " + String.join(" ", args) + " did not finish within " + TIMEOUT
                    + "; stderr: " + Files.readString(err));
        }
        return new Run(List.of(args), process.exitValue(), Files.readString(out), Files.readString(err));
    }
}
