package dev.shove.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Publisher;
import dev.shove.ShutdownSignal;
import dev.shove.Topic;
import dev.shove.spring.boot.OrdersApp.Ledger;
import dev.shove.spring.boot.OrdersApp.Order;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/** How {@link ShoveSpringApplication} ends an application and which exit code it returns. */
class ShoveSpringApplicationTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @SuppressWarnings("unchecked")
    private static void publish(ConfigurableApplicationContext context, Order order) {
        Topic<Order> orders =
                (Topic<Order>) context.getBeanProvider(ResolvableType.forClassWithGenerics(Topic.class, Order.class))
                        .getObject();
        context.getBean(Publisher.class).publish(orders, order);
    }

    @Test
    @DisplayName("on the shutdown signal the group drains, the context closes, and a timed-out drain returns 3")
    void signalDrainTimeout() throws Exception {
        ConfigurableApplicationContext context = OrdersApp.start("--shove.group.drain-timeout=300ms");
        publish(context, new Order("s-1", "block-forever"));
        Ledger ledger = context.getBean(Ledger.class);
        assertThat(ledger.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        ShutdownSignal signal = ShutdownSignal.onJvmShutdown(WAIT);
        CompletableFuture<Integer> run =
                CompletableFuture.supplyAsync(() -> ShoveSpringApplication.runUntil(context, signal));
        assertThat(run).isNotDone();
        signal.complete(null);
        assertThat(run.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(3);
        assertThat(context.isActive()).isFalse();
        assertThat(ledger.interrupted).containsExactly("s-1");
    }

    @Test
    @DisplayName("a context closed another way ends the run with the group's exit code, 0 after a clean drain")
    void closedElsewhere() throws Exception {
        ConfigurableApplicationContext context = OrdersApp.start();
        ShutdownSignal signal = ShutdownSignal.onJvmShutdown(WAIT);
        CompletableFuture<Integer> run =
                CompletableFuture.supplyAsync(() -> ShoveSpringApplication.runUntil(context, signal));
        // the run listens for the close before it waits for the signal: once it waits, the close is seen
        await().atMost(WAIT).until(() -> signal.getNumberOfDependents() > 0);
        context.close();
        assertThat(run.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isZero();
        assertThat(signal).isDone();
    }
}
