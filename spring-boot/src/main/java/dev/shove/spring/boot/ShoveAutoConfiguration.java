package dev.shove.spring.boot;

import dev.shove.Broker;
import dev.shove.BrokerConfig;
import dev.shove.ConsumerGroup;
import dev.shove.HandlerInterceptor;
import dev.shove.NoContext;
import dev.shove.Publisher;
import dev.shove.Topic;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * Spring Boot auto-configuration of shove: a {@link BrokerConfig} from {@link ShoveProperties} ({@code shove.uri},
 * {@code shove.settings.*}; the in-memory broker when none is set), a {@link Broker} connected with the application's
 * {@link MeterRegistry} when there is one, its {@link Publisher}, one {@link ConsumerGroup} with the application's
 * {@link GroupContext} on which every {@link TopicRegistration} bean is registered (and every {@link Topic} bean
 * declared), with every {@link HandlerInterceptor} bean as a group interceptor in {@code @Order}, and the {@link
 * ShoveLifecycle} that runs it. Each bean gives way to one of the same type the application defines.
 *
 * @since 0.1.0
 */
@AutoConfiguration(
        afterName = {
            // a MeterRegistry and an OpenTelemetry the application's Boot version configures (4.x, then 3.x names)
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration",
            "io.opentelemetry.instrumentation.spring.autoconfigure.OpenTelemetryAutoConfiguration"
        })
@EnableConfigurationProperties(ShoveProperties.class)
public class ShoveAutoConfiguration {

    /** Called by Spring. */
    public ShoveAutoConfiguration() {}

    /**
     * {@return the broker config {@code shove.uri} and {@code shove.settings.*} describe}
     *
     * @param properties the {@code shove.*} properties
     */
    @Bean
    @ConditionalOnMissingBean
    public BrokerConfig<?> shoveBrokerConfig(ShoveProperties properties) {
        return properties.brokerConfig();
    }

    /**
     * {@return the broker, connected; closed with the application context}
     *
     * @param config the broker config
     * @param properties the {@code shove.*} properties
     * @param environment for {@code spring.application.name}
     * @param meterRegistry the application's meter registry, if any
     */
    @Bean
    @ConditionalOnMissingBean
    public Broker<?> shoveBroker(
            BrokerConfig<?> config,
            ShoveProperties properties,
            Environment environment,
            ObjectProvider<MeterRegistry> meterRegistry) {
        Broker.Builder<?> builder = Broker.builder(config);
        meterRegistry.ifAvailable(builder::meterRegistry);
        String name = properties.clientName() != null
                ? properties.clientName()
                : environment.getProperty("spring.application.name");
        if (name != null && !name.isBlank()) {
            builder.clientName(name);
        }
        return builder.connect();
    }

    /**
     * {@return the broker's publisher}
     *
     * @param broker the broker
     */
    @Bean
    @ConditionalOnMissingBean
    public Publisher shovePublisher(Broker<?> broker) {
        return broker.publisher();
    }

    /**
     * {@return the consumer group: the application's context, interceptors and registrations; not started}
     *
     * @param broker the broker
     * @param properties the {@code shove.*} properties
     * @param context the application's group context, if any
     * @param interceptors the application's interceptors, in {@code @Order}
     * @param topics topics to declare
     * @param decorator wraps handler factories (tracing), if any
     * @param beanFactory to read the registration beans' declared types
     */
    @Bean
    @ConditionalOnMissingBean
    public ConsumerGroup<?, ?> shoveConsumerGroup(
            Broker<?> broker,
            ShoveProperties properties,
            ObjectProvider<GroupContext<?>> context,
            ObjectProvider<HandlerInterceptor> interceptors,
            ObjectProvider<Topic<?>> topics,
            ObjectProvider<TopicRegistration.Decorator> decorator,
            ConfigurableListableBeanFactory beanFactory) {
        GroupContext<?> groupContext = context.getIfAvailable();
        Object value = groupContext == null ? NoContext.INSTANCE : groupContext.value();
        ConsumerGroup<?, ?> group = broker.consumerGroup().withContext(value);
        if (properties.group().defaultHandlerTimeout() != null) {
            group.withDefaultHandlerTimeout(properties.group().defaultHandlerTimeout());
        }
        interceptors.orderedStream().forEach(group::withInterceptor);
        Set<String> registered = new LinkedHashSet<>();
        TopicRegistration.Decorator wrap = decorator.getIfAvailable(() -> TopicRegistration.Decorator.NONE);
        for (String name : registrationNames(beanFactory)) {
            TopicRegistration<?, ?> registration = beanFactory.getBean(name, TopicRegistration.class);
            checkContext(beanFactory, name, registration, value);
            registration.registerOn(group, wrap);
            registered.add(registration.topic().name());
        }
        topics.orderedStream()
                .filter(topic -> !registered.contains(topic.name()))
                .forEach(topic -> broker.topology().declare(topic));
        return group;
    }

    /**
     * {@return the lifecycle that starts the group with the context and drains it on shutdown}
     *
     * @param group the consumer group
     * @param properties the {@code shove.*} properties
     */
    @Bean
    @ConditionalOnMissingBean
    public ShoveLifecycle shoveLifecycle(ConsumerGroup<?, ?> group, ShoveProperties properties) {
        ShoveProperties.Group settings = properties.group();
        return new ShoveLifecycle(group, settings.drainTimeout(), settings.autoStartup(), settings.phase());
    }

    private static List<String> registrationNames(ConfigurableListableBeanFactory beanFactory) {
        return new ArrayList<>(List.of(beanFactory.getBeanNamesForType(TopicRegistration.class)));
    }

    /** Refuses a registration bean whose declared context type the group's context is not an instance of. */
    private static void checkContext(
            ConfigurableListableBeanFactory beanFactory,
            String name,
            TopicRegistration<?, ?> registration,
            Object value) {
        if (!beanFactory.containsBeanDefinition(name)) {
            return;
        }
        ResolvableType declared = beanFactory
                .getMergedBeanDefinition(name)
                .getResolvableType()
                .as(TopicRegistration.class)
                .getGeneric(1);
        Class<?> contextType = declared.resolve();
        if (contextType != null && !contextType.isInstance(value)) {
            throw new IllegalStateException("TopicRegistration bean '" + name + "' of topic '"
                    + registration.topic().name() + "' takes a context of type " + contextType.getName()
                    + ", but the group's context is " + value.getClass().getName()
                    + "; declare a GroupContext<" + contextType.getSimpleName() + "> bean, or change the"
                    + " registration's context type");
        }
    }
}
