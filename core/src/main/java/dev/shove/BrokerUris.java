package dev.shove;

import dev.shove.spi.BrokerConfigProvider;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Broker configs from text: a URI, properties or environment variables, each read by the backend that owns the URI's
 * scheme ({@link BrokerConfigProvider}, found with {@link ServiceLoader}). Settings given apart from the URI (a
 * property, a variable) are added to its query, where they override one of the same name.
 */
final class BrokerUris {
    /**
     * The variables of shove's own tools, which share the {@code SHOVE_} prefix: {@link #fromEnvironment} never reads
     * them as settings, so a shell set up for the CLI, the test kit or the project's build still starts an application
     * configured with {@code SHOVE_URI}. docs/concepts/configuration.md lists them, with what reads each.
     */
    static final Set<String> TOOL_VARIABLES = Set.of(
            "SHOVE_BROKER_URI", // the CLI
            "SHOVE_TEST_BROKER_URI", // the test kit
            "SHOVE_IT_REQUIRED", // the project's integration tests
            "SHOVE_KAFKA_BOOTSTRAP",
            "SHOVE_RABBITMQ_URI",
            "SHOVE_RABBITMQ_MANAGEMENT",
            "SHOVE_RABBITMQ_SCRIPTS",
            "SHOVE_NATS_URL",
            "SHOVE_REDIS_URI",
            "SHOVE_REDIS_CLUSTER",
            "SHOVE_SQS_ENDPOINT",
            "SHOVE_BROKERS", // the project's scripts
            "SHOVE_BROKERS_DIR",
            "SHOVE_KAFKA_RESET",
            "SHOVE_TEST_THREADS",
            "SHOVE_BENCH_JAVA_OPTS",
            "SHOVE_BENCH_STEP_TIMEOUT");

    private BrokerUris() {}

    static BrokerConfig<?> fromUri(String text) {
        URI uri = parse(text);
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        List<String> known = new ArrayList<>();
        for (BrokerConfigProvider provider :
                ServiceLoader.load(BrokerConfigProvider.class, BrokerUris.class.getClassLoader())) {
            if (provider.schemes().contains(scheme)) {
                return provider.fromUri(uri);
            }
            known.addAll(provider.schemes());
        }
        throw new IllegalArgumentException(unknownScheme(scheme, new TreeSet<>(known)));
    }

    /** The schemes of shove's own backends, and the module that reads each. */
    private static final Map<String, String> MODULES = Map.of(
            "memory", "shove-backend-memory",
            "kafka", "shove-backend-kafka",
            "amqp", "shove-backend-rabbitmq",
            "amqps", "shove-backend-rabbitmq",
            "nats", "shove-backend-nats",
            "redis", "shove-backend-redis",
            "rediss", "shove-backend-redis",
            "sqs", "shove-backend-sqs");

    /**
     * What to say about a scheme no backend on the class path reads: the module to add when it is one of shove's
     * backends, else the nearest known scheme (a typo such as {@code amqq:}), else the schemes there are.
     */
    static String unknownScheme(String scheme, Set<String> found) {
        String start = "no shove backend on the class path reads '" + scheme + ":' URIs (found: " + found + ")";
        String module = MODULES.get(scheme);
        if (module != null) {
            return start + "; add the module " + module + " (dev.shove:" + module + ")";
        }
        Set<String> candidates = new TreeSet<>(found);
        candidates.addAll(MODULES.keySet());
        String nearest = null;
        int best = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = distance(scheme, candidate);
            if (d < best) {
                best = d;
                nearest = candidate;
            }
        }
        if (nearest != null && best <= (scheme.length() <= 3 ? 1 : 2)) {
            String needs = found.contains(nearest) || !MODULES.containsKey(nearest)
                    ? ""
                    : " (read by " + MODULES.get(nearest) + ", which is not on the class path)";
            return start + "; did you mean " + nearest + ":?" + needs;
        }
        return start + "; shove's backends read " + new TreeSet<>(MODULES.keySet()) + ", each from its own module";
    }

    /** The Levenshtein distance of two short strings. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }

    static BrokerConfig<?> fromSettings(String source, String uriKey, Map<String, String> settings) {
        Map<String, String> rest = new LinkedHashMap<>(settings);
        String uri = rest.remove(uriKey);
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException(source + ": '" + uriKey + "' is missing; it names the broker, e.g."
                    + " kafka://localhost:9092, amqp://guest:guest@localhost:5672, memory:");
        }
        return fromUri(withQuery(uri.strip(), rest));
    }

    static BrokerConfig<?> fromProperties(Properties properties, String prefix) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) {
            if (name.startsWith(prefix)) {
                settings.put(name.substring(prefix.length()), properties.getProperty(name));
            }
        }
        return fromSettings("properties with prefix '" + prefix + "'", "uri", settings);
    }

    static BrokerConfig<?> fromEnvironment(Map<String, String> environment, String prefix) {
        Map<String, String> settings = new LinkedHashMap<>();
        Map<String, String> variables = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(environment).entrySet()) {
            String name = e.getKey();
            if (name.startsWith(prefix) && name.length() > prefix.length() && !TOOL_VARIABLES.contains(name)) {
                String setting = settingName(name.substring(prefix.length()));
                settings.put(setting, e.getValue());
                variables.put(setting, name);
            }
        }
        String source = "environment variables " + prefix + "*";
        try {
            return fromSettings(source, "uri", settings);
        } catch (IllegalArgumentException e) {
            variables.remove("uri");
            if (variables.isEmpty()) {
                throw e;
            }
            StringBuilder read = new StringBuilder();
            variables.forEach((setting, name) -> read.append(read.isEmpty() ? "" : ", ")
                    .append(name)
                    .append(" as ")
                    .append(setting));
            throw new IllegalArgumentException(
                    e.getMessage() + " (" + source + " read: " + read
                            + "; the variables of shove's own tools, such as SHOVE_BROKER_URI, are not read)",
                    e);
        }
    }

    /**
     * {@code COMMIT_INTERVAL} to {@code commitInterval}; {@code __} to {@code .} ({@code CLIENT__FETCH_MIN_BYTES} is
     * {@code client.fetchMinBytes}); a trailing {@code _FILE} stays {@code _file}.
     */
    static String settingName(String variable) {
        boolean file = variable.endsWith("_FILE");
        String base = file ? variable.substring(0, variable.length() - "_FILE".length()) : variable;
        StringBuilder out = new StringBuilder();
        for (String dotted : base.split("__", -1)) {
            if (!out.isEmpty()) {
                out.append('.');
            }
            String[] words = dotted.toLowerCase(Locale.ROOT).split("_");
            for (int i = 0; i < words.length; i++) {
                String w = words[i];
                out.append(i == 0 || w.isEmpty() ? w : Character.toUpperCase(w.charAt(0)) + w.substring(1));
            }
        }
        return file ? out + "_file" : out.toString();
    }

    private static String withQuery(String uri, Map<String, String> extra) {
        if (extra.isEmpty()) {
            return uri;
        }
        StringBuilder query = new StringBuilder();
        for (Map.Entry<String, String> e : extra.entrySet()) {
            query.append(query.isEmpty() ? "" : "&")
                    .append(encode(e.getKey()))
                    .append('=')
                    .append(encode(e.getValue()));
        }
        URI parsed = parse(uri);
        String existing = parsed.getRawQuery();
        String merged = existing == null || existing.isEmpty() ? query.toString() : existing + "&" + query;
        int q = uri.indexOf('?');
        return (q < 0 ? uri : uri.substring(0, q)) + "?" + mergeOverriding(merged);
    }

    /** Later parameters of the same name replace earlier ones (settings override the URI's query). */
    private static String mergeOverriding(String rawQuery) {
        Map<String, String> byName = new LinkedHashMap<>();
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            byName.put(eq < 0 ? pair : pair.substring(0, eq), pair);
        }
        return String.join("&", byName.values());
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static URI parse(String text) {
        String t = text.strip();
        if (t.matches("[A-Za-z][A-Za-z0-9+.-]*:(//)?")) {
            t = t.replaceFirst(":(//)?$", ":///"); // "memory:" names a broker without an address
        } else if (t.matches("[A-Za-z][A-Za-z0-9+.-]*:\\?.*")) {
            t = t.replaceFirst(":\\?", "://?");
        }
        try {
            URI uri = new URI(t);
            if (uri.getScheme() == null) {
                throw new IllegalArgumentException("broker URI '" + redact(text) + "' has no scheme; expected e.g."
                        + " kafka://localhost:9092, amqp://guest:guest@localhost:5672 or memory:");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(invalid(text, t, e), null);
        }
    }

    /**
     * What is wrong with a URI that does not parse: the setting whose value holds the illegal character (a space,
     * most often), or the part of the URI it is in, and how to write it.
     */
    private static String invalid(String original, String parsed, URISyntaxException e) {
        int query = original.indexOf('?');
        String shown = query < 0 ? original : original.substring(0, query) + "?...";
        String start = "broker URI '" + redact(shown) + "' is not a valid URI"; // the query may hold secrets
        int at = e.getIndex();
        if (at < 0 || at >= parsed.length()) {
            return start + ": " + e.getReason();
        }
        char c = parsed.charAt(at);
        String character = c == ' ' ? "a space" : "'" + c + "'";
        int q = parsed.indexOf('?');
        if (q >= 0 && at > q) {
            int pairStart = parsed.lastIndexOf('&', at) + 1;
            pairStart = Math.max(pairStart, q + 1);
            int eq = parsed.indexOf('=', pairStart);
            String name = eq < 0 || eq > at ? parsed.substring(pairStart, at) : parsed.substring(pairStart, eq);
            boolean inName = eq < 0 || eq > at;
            return start + ": " + (inName ? "the setting name '" + name + "'" : "the value of setting '" + name + "'")
                    + " holds " + character + "; percent-encode it (" + percent(c)
                    + "), or give the setting apart from the URI (a property or environment variable)";
        }
        return start + ": " + character + " at index " + at + " (" + e.getReason() + "); percent-encode it ("
                + percent(c) + ")";
    }

    private static String percent(char c) {
        return c == ' ' ? "%20" : URLEncoder.encode(String.valueOf(c), StandardCharsets.UTF_8);
    }

    /** The URI with any password in its user-info masked, for messages. */
    static String redact(String uri) {
        return uri.replaceAll("(//[^/:@]*:)[^@/]*@", "$1****@");
    }
}
