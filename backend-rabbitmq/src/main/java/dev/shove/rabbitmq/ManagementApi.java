package dev.shove.rabbitmq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.ShoveException;
import dev.shove.TopologyException;
import dev.shove.spi.QueueStats;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The few calls the backend makes to RabbitMQ's management API ({@code rabbitmq_management} plugin): the depth of a
 * queue for the autoscaler. Basic authentication in a header: the address it shows in messages never carries
 * user-info. 5 s to connect, 10 s per request. Thread-safe.
 */
final class ManagementApi {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final String vhost;
    private final String authorization;
    private final HttpClient http;

    ManagementApi(URI base, String vhost, String username, String password, @Nullable SSLContext sslContext) {
        this.base = RabbitMqConfig.withoutUserInfo(base);
        this.vhost = vhost;
        this.authorization = "Basic "
                + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT);
        if (sslContext != null && "https".equalsIgnoreCase(this.base.getScheme())) {
            builder.sslContext(sslContext);
        }
        this.http = builder.build();
    }

    /** The API's address, without user-info (the credentials travel in a header). */
    URI base() {
        return base;
    }

    @Override
    public String toString() {
        return "ManagementApi[" + base + ", vhost=" + vhost + "]";
    }

    /**
     * The depth of one queue: {@code messages_ready} and {@code messages_unacknowledged} (the broker refreshes them
     * every few seconds, {@code collect_statistics_interval}).
     *
     * @throws IOException when the API cannot be reached (the plugin is off, the address is wrong)
     * @throws TopologyException when the queue does not exist
     */
    QueueStats queueStats(String queue) throws IOException, InterruptedException {
        JsonNode node = get("/api/queues/" + encode(vhost) + "/" + encode(queue), "queue '" + queue + "'");
        return parseStats(node);
    }

    static QueueStats parseStats(JsonNode node) {
        return new QueueStats(
                Math.max(0, node.path("messages_ready").asLong(0)),
                Math.max(0, node.path("messages_unacknowledged").asLong(0)));
    }

    private JsonNode get(String path, String what) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(REQUEST_TIMEOUT)
                .header("Authorization", authorization)
                .header("Accept", "application/json")
                .GET()
                .build();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        int status = response.statusCode();
        if (status == 404) {
            throw new TopologyException(what + " does not exist on RabbitMQ (vhost '" + vhost
                    + "'); declare its topic first with broker.topology().declare(topic)");
        }
        if (status == 401 || status == 403) {
            throw new ShoveException("the RabbitMQ management API at " + base + " refused the credentials (HTTP "
                    + status + "); give the user the 'monitoring' tag or set"
                    + " RabbitMqConfig.toBuilder().managementCredentials(...).build()");
        }
        if (status / 100 != 2) {
            throw new IOException(
                    "the RabbitMQ management API at " + base + " answered HTTP " + status + " for " + what);
        }
        return JSON.readTree(response.body());
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
