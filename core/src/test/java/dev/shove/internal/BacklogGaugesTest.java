package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.ShoveMeters;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("backlog gauges")
class BacklogGaugesTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Metrics metrics = new Metrics(registry);
    private final Metrics.BacklogGauges gauges = metrics.backlog("orders", "billing");

    /** A registration whose figures come from the test; counts how often the gauges asked for fresh ones. */
    private static final class Registration implements Backlog.View {
        final AtomicInteger asked = new AtomicInteger();
        volatile long waiting;

        @Override
        public @Nullable QueueStats stats() {
            asked.incrementAndGet();
            return null;
        }

        @Override
        public long waiting() {
            return waiting;
        }

        @Override
        public long oldestWaitMillis() {
            return waiting > 0 ? 1500 : 0;
        }
    }

    private @Nullable Gauge gauge(String name) {
        return registry.find(name)
                .tag("topic", "orders")
                .tag("consumer_group", "billing")
                .gauge();
    }

    private double value(String name) {
        Gauge g = gauge(name);
        assertThat(g).as(name).isNotNull();
        return g.value();
    }

    @Test
    @DisplayName("before the broker's figures are known, ready, unacked and held are absent; waiting and oldest wait"
            + " are numbers")
    void absentUntilKnown() {
        Registration r = new Registration();
        gauges.attach(r);

        assertThat(gauge(ShoveMeters.BACKLOG_READY)).isNull();
        assertThat(gauge(ShoveMeters.BACKLOG_UNACKED)).isNull();
        assertThat(gauge(ShoveMeters.BACKLOG_HELD)).isNull();
        assertThat(value(ShoveMeters.BACKLOG_WAITING)).isZero();
        assertThat(value(ShoveMeters.BACKLOG_OLDEST_WAIT)).isZero();
    }

    @Test
    @DisplayName("the first figures register ready and unacked; held only once the backend counts its hold tiers")
    void registeredByFigures() {
        Registration r = new Registration();
        gauges.attach(r);

        gauges.figures(r, new QueueStats(5, 2));
        assertThat(value(ShoveMeters.BACKLOG_READY)).isEqualTo(5);
        assertThat(value(ShoveMeters.BACKLOG_UNACKED)).isEqualTo(2);
        assertThat(gauge(ShoveMeters.BACKLOG_HELD))
                .as("held is -1: not counted")
                .isNull();

        gauges.figures(r, new QueueStats(4, 1, 3));
        assertThat(value(ShoveMeters.BACKLOG_READY)).isEqualTo(4);
        assertThat(value(ShoveMeters.BACKLOG_HELD)).isEqualTo(3);
    }

    @Test
    @DisplayName("no backlog gauge ever reads NaN, whatever the figures and with no registration attached")
    void neverNaN() {
        Registration r = new Registration();
        gauges.attach(r);
        gauges.figures(r, new QueueStats(1, 0, 0));
        gauges.figures(r, new QueueStats(1, 0)); // a later read that could not count the hold tiers
        gauges.detach(r);

        for (String name : List.of(
                ShoveMeters.BACKLOG_READY,
                ShoveMeters.BACKLOG_UNACKED,
                ShoveMeters.BACKLOG_HELD,
                ShoveMeters.BACKLOG_WAITING,
                ShoveMeters.BACKLOG_OLDEST_WAIT)) {
            assertThat(value(name)).as(name).isNotNaN();
        }
    }

    @Test
    @DisplayName("reading a gauge asks the registration for fresh figures; waiting and oldest wait come from it")
    void readAsksForFigures() {
        Registration r = new Registration();
        gauges.attach(r);
        r.waiting = 2;

        assertThat(value(ShoveMeters.BACKLOG_WAITING)).isEqualTo(2);
        assertThat(value(ShoveMeters.BACKLOG_OLDEST_WAIT)).isEqualTo(1.5);
        assertThat(r.asked).hasValue(2);
    }

    @Test
    @DisplayName("the figures of a registration that was replaced are ignored; the newest keep showing after a stop")
    void replacedRegistration() {
        Registration first = new Registration();
        Registration second = new Registration();
        gauges.attach(first);
        gauges.attach(second);

        gauges.figures(first, new QueueStats(9, 9, 9));
        assertThat(gauge(ShoveMeters.BACKLOG_READY)).isNull();
        gauges.figures(second, new QueueStats(3, 0, 1));
        gauges.detach(first); // not the current one: nothing changes
        gauges.figures(second, new QueueStats(2, 0, 1));
        gauges.detach(second);
        gauges.figures(second, new QueueStats(7, 7, 7)); // after its stop

        assertThat(value(ShoveMeters.BACKLOG_READY)).isEqualTo(2);
        assertThat(value(ShoveMeters.BACKLOG_HELD)).isEqualTo(1);
        assertThat(value(ShoveMeters.BACKLOG_WAITING)).isZero();
    }

    @Test
    @DisplayName("a backlog's first read runs in the background and hands its figures on; a failed read is tried again"
            + " at the next ask")
    void backlogFirstRead() {
        AtomicInteger reads = new AtomicInteger();
        AtomicReference<@Nullable RuntimeException> failure =
                new AtomicReference<>(new IllegalStateException("broker away"));
        TestTransport transport = new TestTransport(Capabilities.builder().build()) {
            @Override
            public QueueStats stats(Topic<?> topic) {
                reads.incrementAndGet();
                RuntimeException e = failure.get();
                if (e != null) {
                    throw e;
                }
                return new QueueStats(6, 1, 0);
            }

            @Override
            public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
                throw new UnsupportedOperationException();
            }
        };
        List<QueueStats> handed = new CopyOnWriteArrayList<>();
        Backlog backlog = new Backlog(Topic.builder("orders", String.class).build(), "billing", transport, handed::add);

        assertThat(backlog.cached()).isNull();
        await().atMost(Duration.ofSeconds(5)).until(() -> reads.get() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            backlog.cached(); // asks again while no figures are known
            return reads.get() >= 2;
        });
        failure.set(null);
        await().atMost(Duration.ofSeconds(5)).until(() -> backlog.cached() != null);

        assertThat(backlog.cached()).isEqualTo(new QueueStats(6, 1, 0));
        assertThat(handed).containsExactly(new QueueStats(6, 1, 0));
    }
}
