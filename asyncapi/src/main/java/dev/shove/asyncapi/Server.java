package dev.shove.asyncapi;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One server of the document, read from the broker URI the application connects with ({@code kafka://...}, {@code
 * amqp://...}, {@code sqs://...}, {@code redis://...}, {@code nats://...}, {@code memory:}): the host and protocol
 * AsyncAPI shows, and the layout of shove's objects on that broker.
 *
 * <p>Only what the document needs is read: the host (never the user name or password), the virtual host, and the few
 * settings that change what a topic becomes on the broker (Kafka's {@code partitions}, {@code replicationFactor},
 * {@code messageKeyHeader} and TLS; SQS's {@code namePrefix}, {@code sns} and {@code maxReceiveCount}; Redis's {@code
 * keyPrefix}). Every other setting is left alone, so a secret in the URI never reaches the document or a message.
 */
record Server(
        String name,
        String protocol,
        @Nullable String protocolVersion,
        String host,
        @Nullable String pathname,
        @Nullable String description,
        Layout layout) {

    /** Server names are component keys, and {@code #/servers/{name}} references must not need escaping. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    static final String SCHEMES = "kafka://, amqp://, amqps://, sqs://, redis://, rediss://, nats:// or memory:";

    static Server parse(String name, String uri, @Nullable String description) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "server name '" + name + "' must be 1 to 100 letters, digits, '.', '_' or '-'");
        }
        Parts p = Parts.of(name, uri);
        String what = "server '" + name + "' (" + p.safe() + ")";
        return switch (p.scheme()) {
            case "kafka" -> {
                boolean tls = p.query().containsKey("ssl.truststore")
                        || "true".equalsIgnoreCase(p.query().get("ssl"));
                var layout = new KafkaLayout(
                        positive(what, p, "partitions", KafkaLayout.DEFAULT_PARTITIONS),
                        p.query().containsKey("replicationFactor") ? positive(what, p, "replicationFactor", 1) : null,
                        p.query().get("messageKeyHeader"));
                yield new Server(name, tls ? "kafka-secure" : "kafka", null, p.host(what), null, description, layout);
            }
            case "amqp", "amqps" -> {
                String path = p.path();
                String vhost = path.isEmpty() || path.equals("/")
                        ? "/"
                        : URLDecoder.decode(path.substring(1), StandardCharsets.UTF_8);
                yield new Server(
                        name,
                        p.scheme(),
                        "0.9.1",
                        p.host(what),
                        path.isEmpty() || path.equals("/") ? null : path,
                        description,
                        new AmqpLayout(vhost));
            }
            case "sqs" -> {
                String endpoint = p.query().get("endpoint");
                String region = p.authority();
                String host;
                if (endpoint != null) {
                    host = Parts.of(name, endpoint).host(what + ": its endpoint");
                } else if (!region.isEmpty()) {
                    host = "sqs." + region + ".amazonaws.com";
                } else {
                    throw new IllegalArgumentException(what + " names neither a region (sqs://eu-west-1) nor an"
                            + " endpoint (sqs://eu-west-1?endpoint=http://localhost:4566)");
                }
                String prefix = p.query().getOrDefault("namePrefix", "");
                boolean sns = !"false".equalsIgnoreCase(p.query().get("sns"));
                int receives = positive(what, p, "maxReceiveCount", SqsLayout.DEFAULT_MAX_RECEIVE_COUNT);
                yield new Server(name, "sqs", null, host, null, description, new SqsLayout(prefix, sns, receives));
            }
            case "redis", "rediss" ->
                new Server(
                        name,
                        "redis",
                        null,
                        p.host(what),
                        null,
                        description,
                        new RedisLayout(p.query().getOrDefault("keyPrefix", RedisLayout.DEFAULT_KEY_PREFIX)));
            case "nats" -> new Server(name, "nats", null, p.host(what), null, description, Layout.PLAIN);
            case "memory" ->
                new Server(
                        name,
                        "memory",
                        null,
                        "in-process",
                        null,
                        description == null
                                ? "shove's in-memory broker, inside the application's own JVM"
                                : description,
                        Layout.PLAIN);
            default ->
                throw new IllegalArgumentException(what + " is not a broker shove runs on; expected a URI " + SCHEMES);
        };
    }

    private static int positive(String what, Parts p, String setting, int defaultValue) {
        String value = p.query().get(setting);
        if (value == null) {
            return defaultValue;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below, with the setting's name
        }
        throw new IllegalArgumentException(
                what + ": " + setting + " must be a whole number of at least 1, was '" + value + "'");
    }

    /** A URI cut into the parts the document uses; {@link #safe()} is what messages may show of it. */
    private record Parts(String scheme, String authority, String path, Map<String, String> query) {
        static Parts of(String server, String text) {
            String t = text.strip();
            int colon = t.indexOf(':');
            if (colon <= 0 || !t.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
                throw new IllegalArgumentException("server '" + server + "': a broker URI starts with its scheme, "
                        + SCHEMES + "; this one has none");
            }
            String scheme = t.substring(0, colon).toLowerCase(Locale.ROOT);
            String rest = t.substring(colon + 1);
            int hash = rest.indexOf('#');
            if (hash >= 0) {
                rest = rest.substring(0, hash);
            }
            String query = "";
            int q = rest.indexOf('?');
            if (q >= 0) {
                query = rest.substring(q + 1);
                rest = rest.substring(0, q);
            }
            String authority = "";
            if (rest.startsWith("//")) {
                rest = rest.substring(2);
                int slash = rest.indexOf('/');
                authority = slash < 0 ? rest : rest.substring(0, slash);
                rest = slash < 0 ? "" : rest.substring(slash);
            }
            int at = authority.lastIndexOf('@');
            if (at >= 0) {
                authority = authority.substring(at + 1); // the user and password stay out of the document
            }
            Map<String, String> settings = new LinkedHashMap<>();
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = decode(eq < 0 ? pair : pair.substring(0, eq));
                settings.put(key, eq < 0 ? "" : decode(pair.substring(eq + 1)));
            }
            return new Parts(scheme, authority, rest, settings);
        }

        /** The host and port(s), which AsyncAPI's {@code host} holds; required for every broker with an address. */
        String host(String what) {
            if (authority.isEmpty()) {
                throw new IllegalArgumentException(what + " names no host; expected e.g. " + scheme + "://host:port");
            }
            try {
                // a single host:port must be a valid authority; Kafka's comma-separated list is taken as it is
                if (!authority.contains(",")) {
                    new URI(scheme, authority, null, null, null);
                }
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException(what + ": '" + authority + "' is not a host[:port]");
            }
            return authority;
        }

        String safe() {
            return scheme + (authority.isEmpty() ? ":" : "://" + authority);
        }

        private static String decode(String s) {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        }
    }
}
