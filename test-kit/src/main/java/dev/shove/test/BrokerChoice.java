package dev.shove.test;

import dev.shove.BrokerConfig;
import dev.shove.memory.InMemoryConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses a test's broker, in the order {@link ShoveTest} documents: a broker URI from a system property or the
 * environment, else a container for the backend the test asks for when Docker answers, else the in-memory broker
 * (with the reason logged once, or the test skipped when it requires the backend).
 *
 * @param property reads a system property
 * @param environment reads an environment variable
 * @param dockerUnavailable why no container can start (given {@link ShoveTest#DOCKER_PROPERTY}'s value), or null
 * @param containers starts (or reuses) the broker of a backend in an image
 */
record BrokerChoice(
        UnaryOperator<@Nullable String> property,
        UnaryOperator<@Nullable String> environment,
        UnaryOperator<@Nullable String> dockerUnavailable,
        BiFunction<String, String, RunningBroker> containers) {
    private static final Logger log = LoggerFactory.getLogger(BrokerChoice.class);

    /** The backends {@link ShoveTest#backend()} may name. */
    static final List<String> BACKENDS = List.of("memory", "kafka", "rabbitmq", "redis", "nats");

    /** The image each backend runs in when the test names none. */
    static final Map<String, String> IMAGES = Map.of(
            "kafka", "apache/kafka:4.1.0",
            "rabbitmq", "rabbitmq:3.13-management",
            "redis", "redis:7.4",
            "nats", "nats:2.10");

    /** Fallback reasons already logged: once per reason and JVM is enough. */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    BrokerChoice {
        Objects.requireNonNull(property, "property");
        Objects.requireNonNull(environment, "environment");
        Objects.requireNonNull(dockerUnavailable, "dockerUnavailable");
        Objects.requireNonNull(containers, "containers");
    }

    /** What a test's settings say, read from its {@link ShoveTest} (or the defaults). */
    record Settings(String backend, String image, boolean requireBackend, ShoveTest.Lifecycle lifecycle) {
        static final Settings DEFAULTS = new Settings("", "", false, ShoveTest.Lifecycle.PER_METHOD);

        static Settings of(@Nullable ShoveTest annotation) {
            if (annotation == null) {
                return DEFAULTS;
            }
            String backend = annotation.backend().trim().toLowerCase(Locale.ROOT);
            if (!backend.isEmpty() && !BACKENDS.contains(backend)) {
                throw new ExtensionConfigurationException("@ShoveTest(backend = \"" + annotation.backend()
                        + "\") is not a backend the test kit knows; use one of " + BACKENDS
                        + ", or leave it empty for the in-memory broker");
            }
            if (annotation.requireBackend() && backend.isEmpty()) {
                throw new ExtensionConfigurationException(
                        "@ShoveTest(requireBackend = true) needs a backend: name it, e.g. backend = \"kafka\"");
            }
            if (!annotation.image().isBlank() && (backend.isEmpty() || backend.equals("memory"))) {
                throw new ExtensionConfigurationException("@ShoveTest(image = \"" + annotation.image()
                        + "\") needs the backend that runs in it, e.g. backend = \"kafka\"");
            }
            return new Settings(
                    backend, annotation.image().trim(), annotation.requireBackend(), annotation.lifecycle());
        }

        /** The backend to run on: {@code memory} when none is named. */
        String backendOrMemory() {
            return backend.isEmpty() ? "memory" : backend;
        }
    }

    /** The chosen broker: its config, where it came from, and a description without secrets. */
    record Choice(BrokerConfig<?> config, ShoveKit.Source source, String description) {}

    /**
     * The broker for a test with {@code settings}.
     *
     * @throws TestAbortedException when the test requires a backend that neither the URI nor a container gives
     */
    Choice choose(Settings settings) {
        String uri = nonBlank(property.apply(ShoveTest.BROKER_URI_PROPERTY));
        String from = "system property " + ShoveTest.BROKER_URI_PROPERTY;
        if (uri == null) {
            uri = nonBlank(environment.apply(ShoveTest.BROKER_URI_ENV));
            from = "environment variable " + ShoveTest.BROKER_URI_ENV;
        }
        if (uri != null) {
            String description = redact(uri) + " (from the " + from + ")";
            infoOnce("shove-test: tests run on " + description);
            return new Choice(BrokerConfig.fromUri(uri), ShoveKit.Source.URI, description);
        }
        String backend = settings.backendOrMemory();
        if (backend.equals("memory")) {
            return new Choice(InMemoryConfig.ofDefaults(), ShoveKit.Source.IN_MEMORY, "the in-memory broker");
        }
        String unavailable = dockerUnavailable.apply(property.apply(ShoveTest.DOCKER_PROPERTY));
        if (unavailable == null) {
            String image = settings.image().isEmpty() ? IMAGES.get(backend) : settings.image();
            RunningBroker running = containers.apply(backend, image);
            String description = running.description() + " at " + redact(running.uri());
            infoOnce("shove-test: tests asking for " + backend + " run on " + description);
            return new Choice(BrokerConfig.fromUri(running.uri()), ShoveKit.Source.CONTAINER, description);
        }
        String reason = "@ShoveTest(backend = \"" + backend + "\") asked for a " + backend + " broker in a container,"
                + " but " + unavailable + ", and no broker URI is set (" + ShoveTest.BROKER_URI_PROPERTY + " or "
                + ShoveTest.BROKER_URI_ENV + ")";
        if (settings.requireBackend()) {
            throw new TestAbortedException(
                    reason + "; the test requires " + backend + " (requireBackend = true), so" + " it is skipped");
        }
        warnOnce("shove-test: " + reason + "; such tests run on the in-memory broker instead (set "
                + ShoveTest.BROKER_URI_ENV + " to a running broker, or requireBackend = true to skip them)");
        return new Choice(
                InMemoryConfig.ofDefaults(), ShoveKit.Source.IN_MEMORY, "the in-memory broker, because " + reason);
    }

    /**
     * The test requires a backend and the broker is another (a broker URI names it): skipped, saying which.
     *
     * @throws TestAbortedException when {@code backendName} is not the one required
     */
    static void checkRequired(Settings settings, String backendName, String description) {
        if (settings.requireBackend() && !settings.backendOrMemory().equals(backendName)) {
            throw new TestAbortedException("the test requires " + settings.backendOrMemory()
                    + " (requireBackend = true), but its broker is " + backendName + ": " + description
                    + "; it is skipped");
        }
    }

    /**
     * A broker URI as logs and descriptions may show it: without its query (settings may hold secrets) and with the
     * password of its user info masked.
     */
    static String redact(String uri) {
        int query = uri.indexOf('?');
        String base = query < 0 ? uri : uri.substring(0, query);
        int scheme = base.indexOf("://");
        if (scheme < 0) {
            return base;
        }
        int authorityStart = scheme + 3;
        int slash = base.indexOf('/', authorityStart);
        int authorityEnd = slash < 0 ? base.length() : slash;
        int at = base.lastIndexOf('@', authorityEnd - 1);
        if (at < authorityStart) {
            return base;
        }
        String userInfo = base.substring(authorityStart, at);
        int colon = userInfo.indexOf(':');
        String user = colon < 0 ? userInfo : userInfo.substring(0, colon) + ":***";
        return base.substring(0, authorityStart) + user + base.substring(at);
    }

    private static void infoOnce(String message) {
        if (LOGGED.add(message)) {
            log.info(message);
        }
    }

    private static void warnOnce(String message) {
        if (LOGGED.add(message)) {
            log.warn(message);
        }
    }

    private static @Nullable String nonBlank(@Nullable String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
