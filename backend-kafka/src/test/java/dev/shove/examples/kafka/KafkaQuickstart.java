package dev.shove.examples.kafka;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.kafka.Kafka;
import dev.shove.kafka.KafkaConfig;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The quickstart on a real Kafka broker: a message that fails once and succeeds when it comes back from the hold
 * topic, and one rejected to the dead-letter topic and seen by {@code handleDead}. Exits 0 when both happened.
 *
 * <p>Run against {@code SHOVE_KAFKA_BOOTSTRAP} (default {@code 127.0.0.1:9092}; start one with {@code
 * scripts/brokers.sh up kafka}) from the repository root:
 *
 * <pre>
 * ./mvnw -q -pl backend-kafka -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
 * java -cp "backend-kafka/target/test-classes:backend-kafka/target/classes:$(cat backend-kafka/target/test-classpath.txt)" \
 *     dev.shove.examples.kafka.KafkaQuickstart
 * </pre>
 */
public final class KafkaQuickstart {
    record OrderPaid(String orderId, long cents) {}

    private KafkaQuickstart() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = System.getenv().getOrDefault("SHOVE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
        // A fresh name per run, so the example never reads an earlier run's messages.
        // region topic
        Topic<OrderPaid> orders = Topic.builder("quickstart-orders-" + UUID.randomUUID(), OrderPaid.class)
                .holdQueue(Duration.ofMillis(500))
                .holdQueue(Duration.ofSeconds(5))
                .dlq()
                .build(); // on Kafka: {name}, {name}-hold-500ms, {name}-hold-5s, {name}-dlq
        // endregion topic
        CountDownLatch done = new CountDownLatch(2);

        // region connect
        try (Broker<Kafka> broker = Broker.connect(KafkaConfig.of(bootstrap))) {
            broker.topology().declare(orders);
            var group = broker.consumerGroup();
            group.register(
                    orders,
                    ConsumerGroupConfig.builder()
                            .consumers(1, 2)
                            .handlerTimeout(Duration.ofSeconds(10))
                            .build(),
                    // endregion connect
                    () -> new MessageHandler<OrderPaid, NoContext>() {
                        @Override
                        public Outcome handle(OrderPaid order, MessageMetadata meta, NoContext ctx) {
                            if (order.cents() < 0) {
                                return Outcome.reject("negative amount");
                            }
                            if (meta.retryCount() == 0) {
                                System.out.printf(
                                        "%s: first attempt fails (partition %s, offset %s)%n",
                                        order.orderId(),
                                        meta.partition().orElse(-1),
                                        meta.offset().orElse(-1));
                                return Outcome.retry(); // to orders-hold-500ms, back after the delay
                            }
                            System.out.printf("%s: handled on retry %d%n", order.orderId(), meta.retryCount());
                            done.countDown();
                            return Outcome.ack();
                        }

                        @Override
                        public void handleDead(OrderPaid order, DeadMessageMetadata meta, NoContext ctx) {
                            System.out.printf("%s: dead-lettered (%s)%n", order.orderId(), meta.reason());
                            done.countDown();
                        }
                    });
            broker.publisher().publish(orders, new OrderPaid("o-1", 1299));
            broker.publisher().publish(orders, new OrderPaid("o-2", -5));

            CompletableFuture<Boolean> finished = CompletableFuture.supplyAsync(() -> {
                try {
                    return done.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
            SupervisorOutcome outcome = group.runUntil(finished, Duration.ofSeconds(10));
            boolean ok = finished.join() && outcome.isClean();
            System.out.println(ok ? "quickstart done" : "quickstart did not finish: " + outcome);
            System.exit(ok ? 0 : 1);
        }
    }
}
