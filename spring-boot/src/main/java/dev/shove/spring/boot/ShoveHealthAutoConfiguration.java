package dev.shove.spring.boot;

import dev.shove.ConsumerGroup;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code shove} health contributor ({@link ShoveHealthIndicator}) when Spring Boot's health support is on the
 * class path (Spring Boot 4's {@code spring-boot-health}, which {@code spring-boot-starter-actuator} brings) and
 * {@code management.health.shove.enabled} is not false.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = ShoveAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(ConsumerGroup.class)
@ConditionalOnEnabledHealthIndicator("shove")
public class ShoveHealthAutoConfiguration {

    /** Called by Spring. */
    public ShoveHealthAutoConfiguration() {}

    /**
     * {@return the health of the consumer group and the broker connection, named {@code shove}}
     *
     * @param group the starter's consumer group
     * @param meterRegistry the application's meter registry, for the backlog figures, if any
     */
    @Bean
    @ConditionalOnMissingBean(name = "shoveHealthIndicator")
    public ShoveHealthIndicator shoveHealthIndicator(
            ConsumerGroup<?, ?> group, ObjectProvider<MeterRegistry> meterRegistry) {
        return new ShoveHealthIndicator(group, meterRegistry.getIfAvailable());
    }
}
