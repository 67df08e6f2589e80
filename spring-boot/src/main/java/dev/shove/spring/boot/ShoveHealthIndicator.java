package dev.shove.spring.boot;

import dev.shove.ConnectionHealth;
import dev.shove.ConsumerGroup;
import dev.shove.GroupHealth;
import dev.shove.RegistrationHealth;
import dev.shove.ShoveMeters;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health of the starter's consumer group and its broker connection ({@link ConsumerGroup#health()}), as the
 * Actuator's {@code shove} component. Status: {@code UP} when the group is ready ({@link GroupHealth#isReady()}: it
 * runs, the connection is up, every registration runs its minimum of consumers); {@code OUT_OF_SERVICE} while the group
 * is not running (before the start, while draining, after the stop); {@code DOWN} otherwise. Details: the connection
 * ({@code connected}, {@code since}, {@code detail}) and per registration its status, consumers, failed consumers, the
 * last message received, stalled handlers and, where the backend measures it and the application has a {@link
 * MeterRegistry}, its backlog (the {@code shove.backlog.*} gauges: {@code ready}, {@code unacked}, {@code held}, {@code
 * waiting}). Cheap: no broker round trip. Thread-safe.
 *
 * @since 0.1.0
 */
public final class ShoveHealthIndicator implements HealthIndicator {
    private static final Map<String, String> BACKLOG = Map.of(
            "ready", ShoveMeters.BACKLOG_READY,
            "unacked", ShoveMeters.BACKLOG_UNACKED,
            "held", ShoveMeters.BACKLOG_HELD,
            "waiting", ShoveMeters.BACKLOG_WAITING);

    private final ConsumerGroup<?, ?> group;
    private final @Nullable MeterRegistry meterRegistry;

    /**
     * The health of {@code group}.
     *
     * @param group the consumer group
     * @param meterRegistry the registry the broker records its meters in, for the backlog; null for none
     */
    public ShoveHealthIndicator(ConsumerGroup<?, ?> group, @Nullable MeterRegistry meterRegistry) {
        this.group = Objects.requireNonNull(group, "group");
        this.meterRegistry = meterRegistry;
    }

    /** {@return the group's health now} */
    @Override
    public Health health() {
        GroupHealth health = group.health();
        Health.Builder builder;
        if (!health.running()) {
            builder = Health.outOfService();
        } else if (health.isReady() && health.isLive()) {
            builder = Health.up();
        } else {
            builder = Health.down();
        }
        ConnectionHealth connection = health.connection();
        Map<String, Object> conn = new LinkedHashMap<>();
        conn.put("connected", connection.connected());
        conn.put("since", connection.since().toString());
        if (!connection.detail().isEmpty()) {
            conn.put("detail", connection.detail());
        }
        builder.withDetail("running", health.running())
                .withDetail("live", health.isLive())
                .withDetail("ready", health.isReady())
                .withDetail("connection", conn);
        Map<String, Object> registrations = new LinkedHashMap<>();
        for (RegistrationHealth r : health.registrations()) {
            registrations.put(r.topic(), registration(r));
        }
        return builder.withDetail("registrations", registrations).build();
    }

    private Map<String, Object> registration(RegistrationHealth r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("group", r.group());
        out.put("status", r.status().name());
        out.put("consumers", r.consumers());
        out.put("minConsumers", r.minConsumers());
        out.put("failedConsumers", r.failedConsumers());
        r.lastReceived().ifPresent(at -> out.put("lastReceived", at.toString()));
        if (!r.stalledHandlers().isEmpty()) {
            List<Map<String, String>> stalled = r.stalledHandlers().stream()
                    .map(s -> Map.of(
                            "messageId",
                            s.messageId(),
                            "runningFor",
                            s.runningFor().toString()))
                    .toList();
            out.put("stalledHandlers", stalled);
        }
        Map<String, Object> backlog = backlog(r);
        if (!backlog.isEmpty()) {
            out.put("backlog", backlog);
        }
        return out;
    }

    /** The backlog gauges the engine registers per registration; NaN (not measured yet, or not by this backend) left out. */
    private Map<String, Object> backlog(RegistrationHealth r) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (meterRegistry == null) {
            return out;
        }
        for (String key : List.of("ready", "unacked", "held", "waiting")) {
            Gauge gauge = meterRegistry
                    .find(BACKLOG.get(key))
                    .tags("topic", r.topic(), "consumer_group", r.group())
                    .gauge();
            if (gauge != null) {
                double value = gauge.value();
                if (!Double.isNaN(value)) {
                    out.put(key, (long) value);
                }
            }
        }
        return out;
    }
}
