package dev.shove.rabbitmq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.conformance.BrokerAvailability;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The integration tests' fixture for the real broker, a JUnit extension each IT class registers once:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RabbitAdmin admin = new RabbitAdmin();
 * }</pre>
 *
 * <p>Before the class's tests it requires the broker (the URI is env {@code SHOVE_RABBITMQ_URI}; a missing broker
 * fails or skips per {@code SHOVE_IT_REQUIRED}) and opens a plain AMQP connection to look into queues; the management
 * API reads queue arguments and closes connections. Tests name what they create with {@link #unique} (so they never
 * see each other's messages) and connect shove with {@link #connect}. After each test it deletes the queues and
 * exchanges of the topics handed to {@link #deleteLater} (the conformance kit's, many per class: quorum queues cost
 * the broker file handles, so they must not pile up over a class). After the class it closes those brokers (and with
 * them any group a test left running), deletes every queue and exchange named with {@link #unique} or handed to
 * {@link #deleteLater} since, and closes its connection. Its {@code @Nested} classes share the enclosing class's fixture.
 *
 * <p>Thread-safe for what tests do with it: handlers and hooks may call it from other threads.
 */
final class RabbitAdmin implements BeforeAllCallback, AfterEachCallback, AfterAllCallback, AutoCloseable {
    static final String URI_ENV = "SHOVE_RABBITMQ_URI";
    static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Supplier<RabbitMqConfig> target;
    private volatile @Nullable RabbitMqConfig brokerConfig;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Set<String> created = ConcurrentHashMap.newKeySet();
    private final Set<Topic<?>> declared = ConcurrentHashMap.newKeySet();
    private final List<Broker<RabbitMq>> brokers = new CopyOnWriteArrayList<>();
    private volatile @Nullable Connection connection;

    /** The fixture of the shared broker, at {@link #uri()}. */
    RabbitAdmin() {
        this(() -> RabbitMqConfig.of(uri()));
    }

    /**
     * The fixture of another broker, e.g. a test's own {@link RabbitNode}: {@code target} (its address, user and
     * management API) is read before the class.
     */
    RabbitAdmin(Supplier<RabbitMqConfig> target) {
        this.target = target;
    }

    /** The shared broker's URI: env {@code SHOVE_RABBITMQ_URI}, else {@link #DEFAULT_URI}. */
    static String uri() {
        return BrokerAvailability.env(URI_ENV, DEFAULT_URI);
    }

    private RabbitMqConfig brokerConfig() {
        RabbitMqConfig config = brokerConfig;
        if (config == null) {
            throw new IllegalStateException("RabbitAdmin is connected only while the class that registers it runs");
        }
        return config;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException, TimeoutException {
        if (isNested(context)) {
            return;
        }
        RabbitMqConfig brokerConfig = target.get();
        BrokerAvailability.require("RabbitMQ", "rabbitmq", brokerConfig.host(), brokerConfig.port());
        this.brokerConfig = brokerConfig;
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(brokerConfig.host());
        factory.setPort(brokerConfig.port());
        factory.setUsername(brokerConfig.username());
        factory.setPassword(brokerConfig.password());
        factory.setVirtualHost(brokerConfig.virtualHost());
        factory.setAutomaticRecoveryEnabled(true);
        factory.setNetworkRecoveryInterval(1000);
        connection = factory.newConnection("shove-it-admin");
    }

    /** Runs after the test class's own {@code @AfterEach} methods, so the kit's harness has closed its groups. */
    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        if (connection != null) {
            deleteDeclaredTopics();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (!isNested(context)) {
            close();
        }
    }

    private static boolean isNested(ExtensionContext context) {
        return context.getParent().flatMap(ExtensionContext::getTestClass).isPresent();
    }

    private Connection connection() {
        Connection open = connection;
        if (open == null) {
            throw new IllegalStateException("RabbitAdmin is connected only while the class that registers it runs");
        }
        return open;
    }

    /** A config for the broker under test, with a recognisable connection name. */
    RabbitMqConfig config(String connectionName) {
        return brokerConfig().toBuilder()
                .connectionName(connectionName)
                .recoveryInterval(Duration.ofSeconds(1))
                .build();
    }

    /** Connects shove with {@link #config} under a {@link #unique} name; closed after the class at the latest. */
    Broker<RabbitMq> connect(String name) {
        return connect(config(unique(name)));
    }

    /** Connects shove with {@code config}; closed after the class at the latest. */
    Broker<RabbitMq> connect(RabbitMqConfig config) {
        Broker<RabbitMq> broker = Broker.connect(config);
        brokers.add(broker);
        return broker;
    }

    /** A name no other test or run uses; the queues and exchanges it starts are deleted after the class. */
    String unique(String prefix) {
        String name = "it-" + prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        created.add(name);
        return name;
    }

    /** A topic named elsewhere (by the conformance kit): its queues, or its broadcast exchange, go after the class. */
    void deleteLater(Topic<?> topic) {
        declared.add(topic);
    }

    long depth(String queue) throws IOException {
        try (Channel ch = connection().createChannel()) {
            return ch.queueDeclarePassive(queue).getMessageCount();
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    boolean exists(String queue) throws IOException, InterruptedException {
        return managementGet("/api/queues/" + vhost() + "/" + queue).statusCode() == 200;
    }

    /** Publishes one message straight to a queue (through the default exchange) and waits for the broker's confirm. */
    void publish(String queue, AMQP.BasicProperties properties, byte[] body) throws IOException, InterruptedException {
        try (Channel ch = connection().createChannel()) {
            ch.confirmSelect();
            ch.basicPublish("", queue, true, properties, body);
            ch.waitForConfirmsOrDie(10_000);
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    /** Takes one message off a queue (acknowledged), or null. */
    GetResponse get(String queue) throws IOException {
        try (Channel ch = connection().createChannel()) {
            return ch.basicGet(queue, true);
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    /** Takes every message off a queue. */
    List<GetResponse> drain(String queue) throws IOException {
        List<GetResponse> out = new ArrayList<>();
        try (Channel ch = connection().createChannel()) {
            for (GetResponse r; (r = ch.basicGet(queue, true)) != null; ) {
                out.add(r);
            }
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
        return out;
    }

    void declareQueue(String queue, Map<String, Object> arguments) throws IOException {
        created.add(queue);
        try (Channel ch = connection().createChannel()) {
            ch.queueDeclare(queue, true, false, false, arguments);
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    void deleteQueue(String queue) throws IOException {
        try (Channel ch = connection().createChannel()) {
            ch.queueDelete(queue);
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    void declareExchange(String exchange, String type) throws IOException {
        created.add(exchange);
        try (Channel ch = connection().createChannel()) {
            ch.exchangeDeclare(exchange, type, true);
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    void deleteExchange(String exchange) throws IOException {
        try (Channel ch = connection().createChannel()) {
            ch.exchangeDelete(exchange);
        } catch (TimeoutException e) {
            throw new IOException(e);
        }
    }

    /** The management API's view of an exchange (type, durable, auto_delete, arguments...). */
    JsonNode exchangeInfo(String exchange) throws IOException, InterruptedException {
        HttpResponse<String> r = managementGet("/api/exchanges/" + vhost() + "/" + exchange);
        if (r.statusCode() != 200) {
            throw new IOException("GET exchange " + exchange + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    boolean exchangeExists(String exchange) throws IOException, InterruptedException {
        return managementGet("/api/exchanges/" + vhost() + "/" + exchange).statusCode() == 200;
    }

    /** The queues bound to an exchange (the management API's bindings with it as source). */
    List<String> queuesBoundTo(String exchange) throws IOException, InterruptedException {
        HttpResponse<String> r = managementGet("/api/exchanges/" + vhost() + "/" + exchange + "/bindings/source");
        if (r.statusCode() != 200) {
            throw new IOException("GET bindings of " + exchange + ": HTTP " + r.statusCode() + " " + r.body());
        }
        List<String> out = new ArrayList<>();
        for (JsonNode b : JSON.readTree(r.body())) {
            if ("queue".equals(b.path("destination_type").asText())) {
                out.add(b.path("destination").asText());
            }
        }
        return out;
    }

    /** Every exchange whose name starts with {@code prefix}. */
    List<String> exchangesStartingWith(String prefix) throws IOException, InterruptedException {
        HttpResponse<String> r = managementGet("/api/exchanges/" + vhost() + "?columns=name");
        List<String> out = new ArrayList<>();
        for (JsonNode x : JSON.readTree(r.body())) {
            String name = x.path("name").asText();
            if (name.startsWith(prefix)) {
                out.add(name);
            }
        }
        return out;
    }

    /** The management API's view of a queue (durable, arguments, messages_ready, consumers...). */
    JsonNode queueInfo(String queue) throws IOException, InterruptedException {
        HttpResponse<String> r = managementGet("/api/queues/" + vhost() + "/" + queue);
        if (r.statusCode() != 200) {
            throw new IOException("GET queue " + queue + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    /** Every queue whose name starts with {@code prefix}. */
    List<String> queuesStartingWith(String prefix) throws IOException, InterruptedException {
        HttpResponse<String> r = managementGet("/api/queues/" + vhost() + "?columns=name");
        List<String> out = new ArrayList<>();
        for (JsonNode q : JSON.readTree(r.body())) {
            String name = q.path("name").asText();
            if (name.startsWith(prefix)) {
                out.add(name);
            }
        }
        return out;
    }

    /** Closes, from the broker's side, every connection with this client-provided name (a network failure, seen from the client). */
    int killConnection(String connectionName) throws IOException, InterruptedException {
        HttpResponse<String> r = managementGet("/api/connections?columns=name,client_properties");
        int killed = 0;
        for (JsonNode c : JSON.readTree(r.body())) {
            if (connectionName.equals(
                    c.path("client_properties").path("connection_name").asText())) {
                String name = URLEncoder.encode(c.path("name").asText(), StandardCharsets.UTF_8)
                        .replace("+", "%20");
                HttpRequest delete = request("/api/connections/" + name)
                        .header("X-Reason", "killed by a shove integration test")
                        .DELETE()
                        .build();
                http.send(delete, HttpResponse.BodyHandlers.ofString());
                killed++;
            }
        }
        return killed;
    }

    /** How many connections with this client-provided name the broker has. */
    int connections(String connectionName) throws IOException, InterruptedException {
        HttpResponse<String> r = managementGet("/api/connections?columns=client_properties");
        int n = 0;
        for (JsonNode c : JSON.readTree(r.body())) {
            if (connectionName.equals(
                    c.path("client_properties").path("connection_name").asText())) {
                n++;
            }
        }
        return n;
    }

    private HttpResponse<String> managementGet(String path) throws IOException, InterruptedException {
        return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path) {
        RabbitMqConfig brokerConfig = brokerConfig();
        URI base = brokerConfig.managementApi().orElseThrow();
        String auth = Base64.getEncoder()
                .encodeToString((brokerConfig.managementUsername() + ":" + brokerConfig.managementPassword())
                        .getBytes(StandardCharsets.UTF_8));
        return HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + auth);
    }

    private String vhost() {
        return URLEncoder.encode(brokerConfig().virtualHost(), StandardCharsets.UTF_8);
    }

    private void deleteDeclaredTopics() throws IOException {
        for (Topic<?> topic : declared) {
            for (RabbitTopology.QueueSpec queue : RabbitTopology.queues(topic)) {
                deleteQueue(queue.name());
            }
            if (topic.isBroadcast()) {
                deleteExchange(RabbitTopology.broadcastExchange(topic));
            }
            declared.remove(topic);
        }
    }

    /** Closes the brokers, deletes what the tests created, and closes the connection; idempotent. */
    @Override
    public void close() throws IOException {
        Connection open = connection;
        if (open == null) {
            return;
        }
        try {
            for (Broker<RabbitMq> broker : brokers) {
                broker.close();
            }
            for (String prefix : created) {
                for (String queue : queuesStartingWith(prefix)) {
                    deleteQueue(queue);
                }
                for (String exchange : exchangesStartingWith(prefix)) {
                    deleteExchange(exchange);
                }
            }
            deleteDeclaredTopics();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            brokers.clear();
            created.clear();
            declared.clear();
            connection = null;
            open.abort();
        }
    }
}
