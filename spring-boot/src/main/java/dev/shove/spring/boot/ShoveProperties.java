package dev.shove.spring.boot;

import dev.shove.BrokerConfig;
import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code shove.*} properties of a Spring Boot application: which broker to connect to, and how the consumer group
 * runs. Bound by Spring Boot once at start-up; immutable and thread-safe.
 *
 * <pre>{@code
 * shove.uri=kafka://kafka-1:9092,kafka-2:9092?partitions=12
 * shove.settings.commitInterval=50ms
 * shove.group.drain-timeout=20s
 * }</pre>
 *
 * @param uri the broker's URI, read by the backend that owns its scheme exactly as {@link
 *     dev.shove.Broker#connect(String)} reads it ({@code kafka://host:9092}, {@code amqp://user:pw@host/vhost}, {@code
 *     nats://host:4222}, {@code redis://host:6379}, {@code sqs://region}, {@code memory:}); the backend's module must be
 *     on the class path. Unset: the in-memory broker, so an application runs with no broker installed
 * @param settings the backend's settings, added to the URI's query where they replace one of the same name, e.g.
 *     {@code shove.settings.commitInterval=50ms} or {@code shove.settings[sasl.password]=...}; names are the
 *     backend's own (each backend's page lists them) and keep their case. Empty by default
 * @param clientName the name the broker shows for this client's connections; unset: {@code spring.application.name},
 *     else {@code shove-<pid>}
 * @param group how the consumer group of the application's {@link TopicRegistration} beans runs
 * @param tracing whether the application's {@code OpenTelemetry} traces publishing and handling
 * @since 0.1.0
 */
@ConfigurationProperties("shove")
public record ShoveProperties(
        @Nullable String uri,
        @DefaultValue Map<String, String> settings,
        @Nullable String clientName,
        @DefaultValue Group group,
        @DefaultValue Tracing tracing) {

    /** The URI of the broker when {@code shove.uri} is not set. */
    public static final String DEFAULT_URI = "memory:";

    /**
     * Checks the components; see the class description.
     *
     * @param uri the broker's URI; null for the in-memory broker
     * @param settings the backend's settings, added to the URI's query
     * @param clientName the client's name on the broker; null for the default
     * @param group how the consumer group runs
     * @param tracing whether tracing is on
     */
    public ShoveProperties {
        settings = Map.copyOf(settings);
    }

    /**
     * {@return the broker config these properties describe: {@link #uri()} (or {@value #DEFAULT_URI}) with {@link
     * #settings()} added, read as {@link BrokerConfig#fromProperties} reads {@code shove.uri} and {@code shove.*}}
     *
     * @throws IllegalArgumentException naming what is wrong (an unknown scheme or setting, a value that does not parse)
     */
    public BrokerConfig<?> brokerConfig() {
        Properties properties = new Properties();
        settings.forEach((name, value) -> properties.setProperty("shove." + name, value));
        properties.setProperty("shove.uri", uri == null || uri.isBlank() ? DEFAULT_URI : uri);
        return BrokerConfig.fromProperties(properties, "shove.");
    }

    /**
     * How the consumer group runs ({@code shove.group.*}).
     *
     * @param autoStartup whether the group starts with the application context; when false the application calls
     *     {@link ShoveLifecycle#start()} itself. Default true
     * @param drainTimeout how long in-flight handlers may take to finish when the application stops; a drain past it
     *     makes the exit code 3. Default 30 s; keep it below {@code spring.lifecycle.timeout-per-shutdown-phase}
     * @param defaultHandlerTimeout the handler timeout of registrations that set none; unset: shove's default (30 s)
     * @param phase the {@link org.springframework.context.SmartLifecycle} phase: the group starts after and stops
     *     before beans of lower phases. Default {@link ShoveLifecycle#DEFAULT_PHASE}, the phase of Spring Boot's
     *     graceful shutdown of web servers
     */
    public record Group(
            @DefaultValue("true") boolean autoStartup,
            @DefaultValue("30s") Duration drainTimeout,
            @Nullable Duration defaultHandlerTimeout,
            @DefaultValue("" + ShoveLifecycle.DEFAULT_PHASE) int phase) {

        /**
         * Checks the components; see the class description.
         *
         * @param autoStartup whether the group starts with the application context
         * @param drainTimeout how long in-flight handlers may take to finish; positive
         * @param defaultHandlerTimeout the default handler timeout; null for shove's default
         * @param phase the lifecycle phase
         * @throws IllegalArgumentException when a duration is not positive
         */
        public Group {
            if (drainTimeout.isNegative() || drainTimeout.isZero()) {
                throw new IllegalArgumentException("shove.group.drain-timeout must be positive, was "
                        + DurationText.of(drainTimeout) + "; e.g. 30s");
            }
            if (defaultHandlerTimeout != null
                    && (defaultHandlerTimeout.isNegative() || defaultHandlerTimeout.isZero())) {
                throw new IllegalArgumentException("shove.group.default-handler-timeout must be positive, was "
                        + DurationText.of(defaultHandlerTimeout) + "; e.g. 60s, or leave it unset for shove's default");
            }
        }
    }

    /**
     * Tracing ({@code shove.tracing.*}), used when the application has an {@code OpenTelemetry} bean and {@code
     * shove-opentelemetry} is on the class path.
     *
     * @param enabled whether publishing and handling are traced. Default true
     */
    public record Tracing(@DefaultValue("true") boolean enabled) {}
}
