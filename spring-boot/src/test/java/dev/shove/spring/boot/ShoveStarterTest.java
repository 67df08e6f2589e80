package dev.shove.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.Publisher;
import dev.shove.ShoveMeters;
import dev.shove.Topic;
import dev.shove.spring.boot.OrdersApp.Ledger;
import dev.shove.spring.boot.OrdersApp.Order;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/** A real Spring Boot application on the in-memory broker: publish, retry, dead letters, health, shutdown. */
class ShoveStarterTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private ConfigurableApplicationContext context;

    @AfterEach
    void close() {
        if (context != null) {
            context.getBean(Ledger.class).release.countDown();
            context.close();
        }
    }

    @SuppressWarnings("unchecked")
    private Topic<Order> orders() {
        return (Topic<Order>) context.getBeanProvider(ResolvableType.forClassWithGenerics(Topic.class, Order.class))
                .getObject();
    }

    private void publish(Order order) {
        context.getBean(Publisher.class).publish(orders(), order);
    }

    @Test
    @DisplayName("with no shove.uri the application runs on the in-memory broker, its group started")
    void inMemoryByDefault() {
        context = OrdersApp.start();
        assertThat(context.getBean(Broker.class).backendName()).isEqualTo("memory");
        assertThat(context.getBean(ShoveLifecycle.class).isRunning()).isTrue();
    }

    @Test
    @DisplayName(
            "a message published with the Publisher bean reaches the registration bean's handler with the GroupContext")
    void publishAndHandle() {
        context = OrdersApp.start();
        publish(new Order("o-1", "ack"));
        Ledger ledger = context.getBean(Ledger.class);
        await().atMost(WAIT).until(() -> ledger.handled().contains("o-1 retry=0"));
    }

    @Test
    @DisplayName("a retried message comes back after the hold tier with retryCount 1")
    void retry() {
        context = OrdersApp.start();
        publish(new Order("o-2", "retry-once"));
        Ledger ledger = context.getBean(Ledger.class);
        await().atMost(WAIT).until(() -> ledger.handled().contains("o-2 retry=1"));
        assertThat(ledger.handled()).containsExactly("o-2 retry=0", "o-2 retry=1");
    }

    @Test
    @DisplayName("a rejected message goes to the dead-letter queue and reaches handleDead with its reason")
    void deadLetter() {
        context = OrdersApp.start();
        publish(new Order("o-3", "reject"));
        Ledger ledger = context.getBean(Ledger.class);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(ledger.dead)
                        .singleElement()
                        .asString()
                        .startsWith("o-3: ")
                        .contains("order o-3 is invalid"));
    }

    @Test
    @DisplayName("the Actuator's health shows the shove component UP with the registration while the group runs")
    void healthUp() {
        context = OrdersApp.start();
        HealthDescriptor shove = context.getBean(HealthEndpoint.class).healthForPath("shove");
        assertThat(shove).isNotNull();
        assertThat(shove.getStatus()).isEqualTo(Status.UP);
        ShoveHealthIndicator indicator = context.getBean(ShoveHealthIndicator.class);
        Map<String, Object> details = indicator.health().getDetails();
        assertThat(details).containsEntry("ready", true).containsKey("connection");
        @SuppressWarnings("unchecked")
        Map<String, Object> registrations = (Map<String, Object>) details.get("registrations");
        assertThat(registrations).containsKey(orders().name());
    }

    @Test
    @DisplayName("the health is OUT_OF_SERVICE once the group has stopped")
    void healthAfterStop() {
        context = OrdersApp.start();
        context.getBean(ShoveLifecycle.class).stop();
        assertThat(context.getBean(ShoveHealthIndicator.class).health().getStatus())
                .isEqualTo(Status.OUT_OF_SERVICE);
    }

    @Test
    @DisplayName("the application's MeterRegistry receives shove's meters")
    void meters() {
        context = OrdersApp.start();
        publish(new Order("o-4", "ack"));
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        await().atMost(WAIT)
                .until(() -> registry.find(ShoveMeters.CONSUMED)
                                .tags("topic", orders().name(), "outcome", "ack")
                                .counter()
                        != null);
    }

    @Test
    @DisplayName("closing the context waits for an in-flight handler, which finishes and acknowledges its message")
    void gracefulShutdown() throws Exception {
        context = OrdersApp.start();
        publish(new Order("o-5", "block"));
        Ledger ledger = context.getBean(Ledger.class);
        assertThat(ledger.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        ShoveLifecycle lifecycle = context.getBean(ShoveLifecycle.class);
        ConfigurableApplicationContext closing = context;
        CompletableFuture<Void> closed = CompletableFuture.runAsync(closing::close);
        // the drain has begun once the group no longer runs; the handler still blocks
        await().atMost(WAIT).until(() -> !lifecycle.group().health().running());
        assertThat(closed).isNotDone();
        assertThat(ledger.finished).isEmpty();
        ledger.release.countDown();
        closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(ledger.finished).containsExactly("o-5");
        assertThat(ledger.interrupted).isEmpty();
        assertThat(lifecycle.outcome())
                .hasValueSatisfying(o -> assertThat(o.exitCode()).isZero());
        context = null;
    }

    @Test
    @DisplayName(
            "a drain past shove.group.drain-timeout interrupts the handler and makes SpringApplication.exit return 3")
    void drainTimeoutExitCode() throws Exception {
        context = OrdersApp.start("--shove.group.drain-timeout=300ms");
        publish(new Order("o-6", "block-forever"));
        Ledger ledger = context.getBean(Ledger.class);
        assertThat(ledger.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        int exitCode = SpringApplication.exit(context);
        context = null;
        assertThat(exitCode).isEqualTo(3);
        assertThat(ledger.interrupted).containsExactly("o-6");
    }

    @Test
    @DisplayName("a clean stop makes SpringApplication.exit return 0")
    void cleanExitCode() {
        context = OrdersApp.start();
        publish(new Order("o-7", "ack"));
        Ledger ledger = context.getBean(Ledger.class);
        await().atMost(WAIT).until(() -> ledger.handled().contains("o-7 retry=0"));
        int exitCode = SpringApplication.exit(context);
        context = null;
        assertThat(exitCode).isZero();
    }
}
