package dev.shove.spring.boot;

import dev.shove.Broker;
import dev.shove.HandlerInterceptor;
import dev.shove.MessageHandler;
import dev.shove.Publisher;
import dev.shove.Topic;
import dev.shove.opentelemetry.ShoveTracing;
import io.opentelemetry.api.OpenTelemetry;
import java.util.function.Supplier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Traces shove with the application's {@link OpenTelemetry} bean when {@code shove-opentelemetry} is on the class path
 * and {@code shove.tracing.enabled} is not false: a {@link ShoveTracing}, a traced {@link Publisher} (producer spans),
 * the tracing interceptor as the outermost group interceptor (consumer spans), and consumer spans around {@code
 * handleDead} of registrations whose topic has a dead-letter queue. See the tracing page for spans and attributes.
 *
 * @since 0.1.0
 */
@AutoConfiguration(
        before = ShoveAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration",
            "io.opentelemetry.instrumentation.spring.autoconfigure.OpenTelemetryAutoConfiguration"
        })
@ConditionalOnClass({ShoveTracing.class, OpenTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
@ConditionalOnProperty(name = "shove.tracing.enabled", havingValue = "true", matchIfMissing = true)
public class ShoveTracingAutoConfiguration {

    /** Called by Spring. */
    public ShoveTracingAutoConfiguration() {}

    /**
     * {@return shove's tracing over the application's OpenTelemetry, with the default propagators}
     *
     * @param openTelemetry the application's OpenTelemetry
     */
    @Bean
    @ConditionalOnMissingBean
    public ShoveTracing shoveTracing(OpenTelemetry openTelemetry) {
        return ShoveTracing.of(openTelemetry);
    }

    /**
     * {@return a publisher that starts a producer span per message and puts its context in the headers}
     *
     * @param tracing shove's tracing
     * @param broker the broker
     */
    @Bean
    @ConditionalOnMissingBean(Publisher.class)
    public Publisher shoveTracingPublisher(ShoveTracing tracing, Broker<?> broker) {
        return tracing.publisher(broker);
    }

    /**
     * {@return the interceptor that runs every handler call in a consumer span; outermost of the group's}
     *
     * @param tracing shove's tracing
     * @param broker the broker
     */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    public HandlerInterceptor shoveTracingInterceptor(ShoveTracing tracing, Broker<?> broker) {
        return tracing.interceptor(broker);
    }

    @Bean
    TopicRegistration.Decorator shoveDeadLetterSpans(ShoveTracing tracing, Broker<?> broker) {
        return new DeadLetterSpans(tracing, broker);
    }

    /** Wraps the handler factory of a topic with a dead-letter queue so that its handleDead runs in a span. */
    private record DeadLetterSpans(ShoveTracing tracing, Broker<?> broker) implements TopicRegistration.Decorator {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public <T, C> Supplier<? extends MessageHandler<T, ? super C>> decorate(
                Topic<T> topic, Supplier<? extends MessageHandler<T, ? super C>> factory) {
            if (topic.dlq().isEmpty()) {
                return factory;
            }
            // a handler of "? super C" takes a C: the erased types are the same
            Supplier<? extends MessageHandler<T, C>> typed = (Supplier) factory;
            return tracing.deadLetterSpans(broker, topic, typed);
        }
    }
}
