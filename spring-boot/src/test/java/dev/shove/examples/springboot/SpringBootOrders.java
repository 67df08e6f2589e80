package dev.shove.examples.springboot;

import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Publisher;
import dev.shove.Topic;
import dev.shove.spring.boot.GroupContext;
import dev.shove.spring.boot.ShoveSpringApplication;
import dev.shove.spring.boot.TopicRegistration;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The quickstart as a Spring Boot service: the starter connects the broker from {@code shove.uri} (in memory when it
 * is not set), registers the {@link TopicRegistration} bean on its consumer group with the {@link GroupContext} bean,
 * starts the group with the application and drains it on SIGTERM, and the process exits with the group's exit code.
 *
 * <ul>
 *   <li>{@code o-1}: the ledger is down on its first delivery, so the handler returns {@link Outcome#retry()}; the
 *       message waits out the hold tier and comes back with {@code retryCount} 1, and is booked.
 *   <li>{@code o-2}: its amount is invalid, so it is rejected to the dead-letter queue and seen by {@code handleDead}.
 * </ul>
 *
 * <p>Run it with {@code ./mvnw -pl spring-boot -q exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=dev.shove.examples.springboot.SpringBootOrders} and stop it with Ctrl-C; add {@code
 * -Dshove.uri=amqp://guest:guest@localhost:5672} (or {@code kafka://localhost:9092}) for a real broker. {@code
 * SpringBootOrdersTest} runs {@link #run(PrintStream, String...)}.
 */
// region app
@SpringBootApplication
public class SpringBootOrders {
    /** The message: a plain record, sent as JSON. */
    public record OrderPaid(String orderId, long cents) {}

    /** The topic: {@code boot-orders}, one hold tier and a dead-letter queue. */
    static final Topic<OrderPaid> ORDERS = Topic.builder("boot-orders", OrderPaid.class)
            .holdQueue(Duration.ofMillis(500))
            .dlq()
            .build();

    /** The handlers' shared state: the group's context. */
    @Bean
    GroupContext<Ledger> shoveContext(Ledger ledger) {
        return GroupContext.of(ledger);
    }

    /** The handler of {@code boot-orders}: one per consumer, one to two consumers. */
    @Bean
    TopicRegistration<OrderPaid, Ledger> orders() {
        return TopicRegistration.of(ORDERS, ConsumerGroupConfig.of(1, 2), OrderHandler::new);
    }

    /** Exits with the group's exit code: 0 clean, 3 when the drain on SIGTERM timed out. */
    public static void main(String[] args) {
        System.exit(ShoveSpringApplication.run(SpringBootOrders.class, args));
    }
    // endregion app

    /** Publishes the two orders once the application is up. */
    // region publish
    @Bean
    ApplicationRunner publishOrders(Publisher publisher) {
        return args -> {
            publisher.publish(ORDERS, new OrderPaid("o-1", 1299));
            publisher.publish(ORDERS, new OrderPaid("o-2", -5));
        };
    }
    // endregion publish

    /** The ledger: books orders, and is down the first time it is asked. */
    @Bean
    Ledger ledger() {
        return new Ledger();
    }

    /** A ledger in memory; its first booking fails as if its database were down. Thread-safe. */
    public static final class Ledger {
        private final AtomicBoolean down = new AtomicBoolean(true);
        final Map<String, Long> booked = new ConcurrentHashMap<>();
        final List<String> journal = new CopyOnWriteArrayList<>();

        boolean book(OrderPaid order) {
            if (down.getAndSet(false)) {
                return false;
            }
            booked.put(order.orderId(), order.cents());
            return true;
        }
    }

    // region handler
    /** Books an order; retries while the ledger is down; rejects an invalid amount. */
    static final class OrderHandler implements MessageHandler<OrderPaid, Ledger> {
        @Override
        public Outcome handle(OrderPaid order, MessageMetadata meta, Ledger ledger) {
            if (order.cents() <= 0) {
                return Outcome.reject("amount must be positive, was " + order.cents());
            }
            if (!ledger.book(order)) {
                ledger.journal.add(order.orderId() + " retry " + meta.retryCount() + ": ledger down");
                return Outcome.retry();
            }
            ledger.journal.add(order.orderId() + " retry " + meta.retryCount() + ": booked");
            return Outcome.ack();
        }

        @Override
        public void handleDead(OrderPaid order, DeadMessageMetadata meta, Ledger ledger) {
            ledger.journal.add(order.orderId() + " dead: " + meta.reason());
        }
    }
    // endregion handler

    /**
     * Runs the application until both orders reached the end of their journey (or {@code timeout} passed), prints the
     * journal, and stops it.
     *
     * @param out where the journal goes
     * @param timeout how long to wait for the journey
     * @param args the command line, e.g. {@code --shove.uri=...}
     * @return the exit code: 0 when the journey completed and the group drained cleanly, else 1 or the group's code
     * @throws InterruptedException when interrupted while waiting
     */
    public static int run(PrintStream out, Duration timeout, String... args) throws InterruptedException {
        SpringApplication application = new SpringApplication(SpringBootOrders.class);
        application.setRegisterShutdownHook(false);
        ConfigurableApplicationContext context = application.run(args);
        Ledger ledger = context.getBean(Ledger.class);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!complete(ledger) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        ledger.journal.forEach(line -> out.println("  " + line));
        boolean complete = complete(ledger);
        int exitCode = SpringApplication.exit(context);
        out.println(complete ? "journey complete, exit code " + exitCode : "journey incomplete");
        return complete ? exitCode : 1;
    }

    private static boolean complete(Ledger ledger) {
        return ledger.booked.containsKey("o-1")
                && ledger.journal.stream().anyMatch(line -> line.startsWith("o-2 dead"));
    }
}
