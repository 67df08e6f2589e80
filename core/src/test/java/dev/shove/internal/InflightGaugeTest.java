package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ShoveMeters;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
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
        AtomicInteger first = metrics.consumer("orders", "billing").newRunningCount();
        first.incrementAndGet();
        first.decrementAndGet();
        AtomicInteger second = metrics.consumer("orders", "billing").newRunningCount();
        second.addAndGet(2);

        assertThat(gauge("orders", "billing")).isEqualTo(2);
        second.decrementAndGet();
        assertThat(gauge("orders", "billing")).isEqualTo(1);
    }

    @Test
    @DisplayName("the gauge sums the running handlers of every consumer of the registration")
    void sumsTheConsumers() {
        Metrics.ConsumerMeters meters = metrics.consumer("orders", "billing");
        meters.newRunningCount().addAndGet(3);
        meters.newRunningCount().addAndGet(4);

        assertThat(gauge("orders", "billing")).isEqualTo(7);
    }

    @Test
    @DisplayName("a stopped consumer's handlers count until they return, then the consumer leaves the gauge")
    void aStoppedConsumerCountsUntilItsHandlersReturn() {
        Metrics.ConsumerMeters meters = metrics.consumer("orders", "billing");
        AtomicInteger stopped = meters.newRunningCount();
        stopped.incrementAndGet(); // abandoned at the drain deadline, still running
        meters.stoppedCounting(stopped);
        AtomicInteger live = meters.newRunningCount();
        live.incrementAndGet();

        assertThat(gauge("orders", "billing")).isEqualTo(2);
        stopped.decrementAndGet();
        assertThat(gauge("orders", "billing")).isEqualTo(1);
        stopped.incrementAndGet(); // gone from the gauge: a stopped consumer starts nothing new
        assertThat(gauge("orders", "billing")).isEqualTo(1);
    }

    @Test
    @DisplayName("each topic and group has its own gauge")
    void idsAreSeparate() {
        metrics.consumer("orders", "billing").newRunningCount().incrementAndGet();
        metrics.consumer("orders", "shipping");

        assertThat(gauge("orders", "billing")).isEqualTo(1);
        assertThat(gauge("orders", "shipping")).isZero();
    }
}
