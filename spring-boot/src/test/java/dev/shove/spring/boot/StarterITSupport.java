package dev.shove.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Publisher;
import dev.shove.Topic;
import dev.shove.spring.boot.OrdersApp.Ledger;
import dev.shove.spring.boot.OrdersApp.Order;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/**
 * The starter's contract on a real broker: the test application of {@link OrdersApp} connected by {@code shove.uri}
 * to {@link #uri()}, on a topic of its own.
 */
abstract class StarterITSupport {
    static final Duration WAIT = Duration.ofSeconds(60);

    ConfigurableApplicationContext context;

    /** {@return the broker URI the application connects to} */
    abstract String uri();

    @AfterEach
    void closeContext() {
        if (context != null) {
            context.close();
        }
    }

    void start(String... extra) {
        String topic = "it-boot-" + UUID.randomUUID().toString().substring(0, 8);
        String[] args = new String[extra.length + 3];
        args[0] = "--shove.uri=" + uri();
        args[1] = "--test.topic=" + topic;
        args[2] = "--shove.group.drain-timeout=5s";
        System.arraycopy(extra, 0, args, 3, extra.length);
        context = OrdersApp.start(args);
    }

    @SuppressWarnings("unchecked")
    Topic<Order> orders() {
        return (Topic<Order>) context.getBeanProvider(ResolvableType.forClassWithGenerics(Topic.class, Order.class))
                .getObject();
    }

    Ledger ledger() {
        return context.getBean(Ledger.class);
    }

    void publish(Order order) {
        context.getBean(Publisher.class).publish(orders(), order);
    }

    /** Makes the application's broker go away. */
    interface Vanish {
        void run() throws Exception;
    }

    Status health() {
        return context.getBean(HealthEndpoint.class).healthForPath("shove").getStatus();
    }

    @Test
    @DisplayName("a published message reaches the registration bean's handler, a retry comes back with retryCount 1,"
            + " a rejected one reaches handleDead")
    void publishRetryDeadLetter() {
        start();
        publish(new Order("o-1", "ack"));
        publish(new Order("o-2", "retry-once"));
        publish(new Order("o-3", "reject"));
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(ledger().handled()).contains("o-1 retry=0", "o-2 retry=0", "o-2 retry=1", "o-3 retry=0");
            assertThat(ledger().dead).singleElement().asString().startsWith("o-3: ");
        });
    }

    @Test
    @DisplayName("the shove health component is UP once the group's consumers run")
    void healthUp() {
        start();
        await().atMost(WAIT).until(() -> health().equals(Status.UP));
    }

    /** The application's broker connection goes away; the health must say DOWN, naming the connection. */
    void assertHealthDownWhenBrokerVanishes(Vanish vanish) throws Exception {
        start();
        await().atMost(WAIT).until(() -> health().equals(Status.UP));
        vanish.run();
        await().atMost(WAIT).until(() -> health().equals(Status.DOWN));
        @SuppressWarnings("unchecked")
        Map<String, Object> connection = (Map<String, Object>) context.getBean(ShoveHealthIndicator.class)
                .health()
                .getDetails()
                .get("connection");
        assertThat(connection).containsEntry("connected", false);
    }
}
