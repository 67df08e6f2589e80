package dev.shove.spring.boot;

import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The Boot application the tests run: one topic ({@code test.topic}, unique by default) with a short hold tier and a
 * dead-letter queue, a handler whose behaviour each message names, and a {@link Ledger} as the group's context.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class OrdersApp {
    /** {@code action}: ack, retry-once, reject, block (until released), block-forever (until interrupted). */
    record Order(String id, String action) {}

    /** What the handlers saw; the group's context. */
    static final class Ledger {
        final Queue<String> handled = new ConcurrentLinkedQueue<>();
        final Queue<String> dead = new ConcurrentLinkedQueue<>();
        final Queue<String> finished = new ConcurrentLinkedQueue<>();
        final Queue<String> interrupted = new ConcurrentLinkedQueue<>();
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        List<String> handled() {
            return List.copyOf(handled);
        }
    }

    static final class OrderHandler implements MessageHandler<Order, Ledger> {
        @Override
        public Outcome handle(Order order, MessageMetadata meta, Ledger ledger) throws Exception {
            ledger.handled.add(order.id() + " retry=" + meta.retryCount());
            return switch (order.action()) {
                case "retry-once" -> meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
                case "reject" -> Outcome.reject("order " + order.id() + " is invalid");
                case "block" -> {
                    ledger.started.countDown();
                    ledger.release.await();
                    ledger.finished.add(order.id());
                    yield Outcome.ack();
                }
                case "block-forever" -> {
                    ledger.started.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        ledger.interrupted.add(order.id());
                        throw e;
                    }
                    yield Outcome.ack();
                }
                default -> Outcome.ack();
            };
        }

        @Override
        public void handleDead(Order order, DeadMessageMetadata meta, Ledger ledger) {
            ledger.dead.add(order.id() + ": " + meta.reason());
        }
    }

    @Bean
    Ledger ledger() {
        return new Ledger();
    }

    @Bean
    GroupContext<Ledger> shoveContext(Ledger ledger) {
        return GroupContext.of(ledger);
    }

    @Bean
    Topic<Order> orders(Environment environment) {
        String name = environment.getProperty(
                "test.topic", "boot-orders-" + UUID.randomUUID().toString().substring(0, 8));
        return Topic.builder(name, Order.class)
                .holdQueue(Duration.ofMillis(200))
                .dlq()
                .build();
    }

    @Bean
    TopicRegistration<Order, Ledger> ordersRegistration(Topic<Order> orders) {
        return TopicRegistration.of(orders, OrderHandler::new);
    }

    /** Starts the application without a web server or shutdown hook, with {@code --name=value} arguments. */
    static ConfigurableApplicationContext start(String... args) {
        SpringApplication application = new SpringApplication(OrdersApp.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setRegisterShutdownHook(false);
        application.setBannerMode(Banner.Mode.OFF);
        return application.run(args);
    }
}
