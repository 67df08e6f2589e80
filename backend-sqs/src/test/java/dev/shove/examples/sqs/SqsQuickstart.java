package dev.shove.examples.sqs;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.sqs.Sqs;
import dev.shove.sqs.SqsConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The quickstart on SQS and SNS (the local emulator): two orders, and the journey each one takes.
 *
 * <ul>
 *   <li>{@code o-1}: the ledger is down on its first delivery, so the handler returns {@link Outcome#retry()}; shove
 *       sends a copy back to the queue {@code quickstart-orders} with {@code DelaySeconds} 1 and deletes the original;
 *       a second later the copy arrives with {@code retryCount} 1 and is booked.
 *   <li>{@code o-2}: its amount is invalid, so the handler returns {@link Outcome#reject(String)}; shove sends it to
 *       the queue {@code quickstart-orders-dlq} at once, with the reason, and the group's dead-letter consumer passes
 *       it to {@link MessageHandler#handleDead handleDead}.
 * </ul>
 *
 * <p>Start the emulator ({@code scripts/brokers.sh up sqs}), then run {@code main}; {@code SHOVE_SQS_ENDPOINT} points
 * it elsewhere (default {@code http://127.0.0.1:4566}). It exits 0 when the journey completed.
 */
public final class SqsQuickstart {

    private SqsQuickstart() {}

    /** The message: a plain record, sent as JSON. */
    public record OrderPaid(String orderId, long cents) {}

    /** Runs the journey against the emulator at {@code SHOVE_SQS_ENDPOINT}; exits 0 when it completed. */
    public static void main(String[] args) {
        String endpoint = System.getenv().getOrDefault("SHOVE_SQS_ENDPOINT", "http://127.0.0.1:4566");
        boolean ok = run(System.out, endpoint, "quickstart-orders", Duration.ofSeconds(30));
        System.exit(ok ? 0 : 1);
    }

    /**
     * Declares the topic, publishes the two orders, consumes until both journeys ended (or {@code timeout} passed) and
     * stops the group. Returns whether everything happened as the class comment says.
     */
    public static boolean run(PrintStream out, String endpoint, String topicName, Duration timeout) {
        // region topic
        Topic<OrderPaid> orders = Topic.builder(topicName, OrderPaid.class)
                .holdQueue(Duration.ofSeconds(1)) // a retry is a copy sent back with DelaySeconds 1
                .dlq() // queue "<name>-dlq", also the redrive target
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
                        "%s: booked (retryCount %d, deliveryCount %s)%n",
                        order.orderId(), meta.retryCount(), meta.deliveryCount().orElse(0));
                booked.complete(null);
                return Outcome.ack();
            }

            @Override
            public void handleDead(OrderPaid order, DeadMessageMetadata meta, PrintStream log) {
                log.printf(
                        "%s: dead letter, reason \"%s\", from queue '%s'%n",
                        order.orderId(), meta.reason(), meta.originalQueue());
                deadSeen.complete(null);
            }
        };
        // endregion handler

        // region journey
        // SqsConfig.of("eu-west-1") on AWS; the emulator takes any credentials
        try (Broker<Sqs> broker = Broker.connect(SqsConfig.emulator(endpoint))) {
            broker.topology().declare(orders); // queue, DLQ, SNS topic, subscription, policy: idempotent

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
