package dev.shove.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * The only class that touches Testcontainers, which is an optional dependency: it is loaded only after {@link
 * Docker} found Testcontainers on the class path. Brokers run in plain {@link GenericContainer}s, so that the kit
 * needs Testcontainers' core artifact and nothing else.
 */
final class Containers {
    private static final Logger log = LoggerFactory.getLogger(Containers.class);
    private static final Duration STARTUP = Duration.ofMinutes(3);

    private Containers() {}

    /** Whether a Docker daemon answers; Testcontainers looks in the environment, the usual sockets and its config. */
    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    /** Starts {@code backend}'s broker in {@code image} and waits until it takes connections. */
    static RunningBroker start(String backend, String image) {
        log.info("shove-test: starting {} in a container ({})", backend, image);
        return switch (backend) {
            case "kafka" -> kafka(image);
            case "rabbitmq" -> rabbitmq(image);
            case "redis" ->
                started(
                        backend,
                        image,
                        new GenericContainer<>(DockerImageName.parse(image))
                                .withExposedPorts(6379)
                                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*", 1)),
                        c -> "redis://" + c.getHost() + ":" + c.getMappedPort(6379));
            case "nats" ->
                started(
                        backend,
                        image,
                        new GenericContainer<>(DockerImageName.parse(image))
                                .withCommand("-js")
                                .withExposedPorts(4222)
                                .waitingFor(Wait.forLogMessage(".*Server is ready.*", 1)),
                        c -> "nats://" + c.getHost() + ":" + c.getMappedPort(4222));
            default -> throw new IllegalArgumentException("no container for backend '" + backend + "'");
        };
    }

    /**
     * Kafka tells clients the address to reach it by, so the container's port is bound to a host port chosen first
     * and that address is advertised; a single KRaft node, replication factor 1 everywhere.
     */
    private static RunningBroker kafka(String image) {
        int port = freePort();
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image));
        String host = container.getHost();
        container
                .withExposedPorts(9092)
                .withEnv(Map.ofEntries(
                        Map.entry("KAFKA_NODE_ID", "1"),
                        Map.entry("KAFKA_PROCESS_ROLES", "broker,controller"),
                        Map.entry("KAFKA_LISTENERS", "PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093"),
                        Map.entry("KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://" + host + ":" + port),
                        Map.entry("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER"),
                        Map.entry("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"),
                        Map.entry("KAFKA_CONTROLLER_QUORUM_VOTERS", "1@localhost:9093"),
                        Map.entry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1"),
                        Map.entry("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "1"),
                        Map.entry("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1"),
                        Map.entry("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1"),
                        Map.entry("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1"),
                        Map.entry("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1"),
                        Map.entry("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")))
                .waitingFor(Wait.forLogMessage(".*Kafka Server started.*", 1));
        container.setPortBindings(List.of(port + ":9092"));
        return started("kafka", image, container, c -> "kafka://" + host + ":" + port);
    }

    /** RabbitMQ with the consistent-hash exchange (sequenced topics) and the management API (queue statistics). */
    private static RunningBroker rabbitmq(String image) {
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                .withExposedPorts(5672, 15672)
                .withCopyToContainer(
                        Transferable.of("[rabbitmq_management,rabbitmq_consistent_hash_exchange].\n"),
                        "/etc/rabbitmq/enabled_plugins")
                .waitingFor(Wait.forLogMessage(".*Server startup complete.*", 1));
        return started(
                "rabbitmq",
                image,
                container,
                c -> "amqp://guest:guest@" + c.getHost() + ":" + c.getMappedPort(5672) + "?managementApi=http://"
                        + c.getHost() + ":" + c.getMappedPort(15672));
    }

    private static RunningBroker started(
            String backend,
            String image,
            GenericContainer<?> container,
            java.util.function.Function<GenericContainer<?>, String> uri) {
        container.withStartupTimeout(STARTUP).start();
        String address = uri.apply(container);
        return new RunningBroker() {
            @Override
            public String uri() {
                return address;
            }

            @Override
            public String description() {
                return backend + " in a container (" + image + ")";
            }

            @Override
            public void close() {
                container.stop();
            }
        };
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port for the Kafka container", e);
        }
    }
}
