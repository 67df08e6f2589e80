package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ShoveMeters;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class InflightGaugeTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Metrics metrics = new Metrics(registry);

    private double gauge(String topic, String group) {
        Gauge gauge = registry.find(ShoveMeters.INFLIGHT)
                .tag("topic", topic)
                .tag("consumer_group", group)
                .gauge();
        assertThat(gauge).isNotNull();
        return gauge.value();
    }

    @Test
    @DisplayName("meters made again for the same topic and group count into the gauge registered first")
    void sameIdSharesTheGauge() {
        Metrics.ConsumerMeters first = metrics.consumer("orders", "billing");
        first.handlerStarted();
        first.handlerEnded();
        Metrics.ConsumerMeters second = metrics.consumer("orders", "billing");
        second.handlerStarted();
        second.handlerStarted();

        assertThat(gauge("orders", "billing")).isEqualTo(2);
        second.handlerEnded();
        assertThat(gauge("orders", "billing")).isEqualTo(1);
    }

    @Test
    @DisplayName("each topic and group has its own gauge")
    void idsAreSeparate() {
        metrics.consumer("orders", "billing").handlerStarted();
        metrics.consumer("orders", "shipping");

        assertThat(gauge("orders", "billing")).isEqualTo(1);
        assertThat(gauge("orders", "shipping")).isZero();
    }
}
