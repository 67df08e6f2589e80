package dev.shove.examples.nats;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.nats.Nats;
import dev.shove.nats.NatsConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The quickstart on a real NATS server with JetStream: two orders, and the journey each one takes through the server.
 *
 * <ul>
 *   <li>{@code o-1}: the ledger is down on its first delivery, so the handler returns {@link Outcome#retry()}; shove
 *       publishes a copy to the group's retry subject {@code quickstart-orders.retry.quickstart-orders} in the topic's
 *       stream and acknowledges the original; the server holds the copy for a second ({@code nakWithDelay}), then
 *       delivers it with {@code retryCount} 1 and it is booked.
 *   <li>{@code o-2}: its amount is invalid, so the handler returns {@link Outcome#reject(String)}; shove publishes it
 *       to the stream {@code quickstart-orders-dlq} with the reason, and the group's dead-letter consumer passes it to
 *       {@link MessageHandler#handleDead handleDead}.
 * </ul>
 *
 * <p>Start a local server ({@code scripts/brokers.sh up nats}), then run {@code main}; {@code SHOVE_NATS_URL} points
 * it elsewhere (default {@code nats://127.0.0.1:4222}). It exits 0 when the journey completed.
 */
public final class NatsQuickstart {

    private NatsQuickstart() {}

    /** The message: a plain record, sent as JSON. */
    public record OrderPaid(String orderId, long cents) {}

    /** Runs the journey against the server at {@code SHOVE_NATS_URL}; exits 0 when it completed. */
    public static void main(String[] args) {
        String servers = System.getenv().getOrDefault("SHOVE_NATS_URL", "nats://127.0.0.1:4222");
        boolean ok = run(System.out, servers, "quickstart-orders", Duration.ofSeconds(30));
        System.exit(ok ? 0 : 1);
    }

    /**
     * Declares the topic, publishes the two orders, consumes until both journeys ended (or {@code timeout} passed) and
     * stops the group. Returns whether everything happened as the class comment says.
     */
    public static boolean run(PrintStream out, String servers, String topicName, Duration timeout) {
        // region topic
        Topic<OrderPaid> orders = Topic.builder(topicName, OrderPaid.class)
                .holdQueue(Duration.ofSeconds(1)) // a retry waits 1 s on the server (nakWithDelay)
                .dlq() // stream "<name>-dlq"
                .build();
        // endregion topic

        Set<String> attempted = ConcurrentHashMap.newKeySet();
        CompletableFuture<Void> booked = new CompletableFuture<>();
        CompletableFuture<Void> deadSeen = new CompletableFuture<>();

        // region handler
        MessageHandler<OrderPaid, PrintStream> handler = new MessageHandler<>() {
            @Override
            public Outcome handle(OrderPaid order, MessageMetadata meta, PrintStream log) {
                if (order.cents() <= 0) {
                    log.printf("%s: invalid amount -> reject%n", order.orderId());
                    return Outcome.reject("amount must be positive");
                }
                if (attempted.add(order.orderId())) {
                    log.printf("%s: ledger down (retryCount %d) -> retry%n", order.orderId(), meta.retryCount());
                    return Outcome.retry();
                }
                log.printf(
                        "%s: booked (retryCount %d, redelivered %s)%n",
                        order.orderId(), meta.retryCount(), meta.redelivered());
                booked.complete(null);
                return Outcome.ack();
            }

            @Override
            public void handleDead(OrderPaid order, DeadMessageMetadata meta, PrintStream log) {
                log.printf(
                        "%s: dead letter, reason \"%s\", from '%s'%n",
                        order.orderId(), meta.reason(), meta.originalQueue());
                deadSeen.complete(null);
            }
        };
        // endregion handler

        // region journey
        try (Broker<Nats> broker = Broker.connect(
                NatsConfig.builder(servers).connectionName("shove-quickstart").build())) {
            broker.topology().declare(orders); // idempotent: creates the streams once

            var group = broker.consumerGroup().withContext(out);
            group.register(orders, ConsumerGroupConfig.of(1, 2), () -> handler);

            broker.publisher().publish(orders, new OrderPaid("o-1", 1299)); // fails once, then succeeds
            broker.publisher().publish(orders, new OrderPaid("o-2", -5)); // rejected to the dead-letter queue

            CompletableFuture<Void> done = CompletableFuture.allOf(booked, deadSeen)
                    .completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
            SupervisorOutcome outcome = group.runUntil(done, Duration.ofSeconds(10));
            out.printf("group stopped, exit code %d%n", outcome.exitCode());
            boolean ok = booked.isDone() && deadSeen.isDone() && outcome.isClean();
            out.println(ok ? "journey complete" : "journey INCOMPLETE");
            return ok;
        }
        // endregion journey
    }
}
