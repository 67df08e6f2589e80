package dev.shove.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Broker;
import dev.shove.Codec;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SchemaVersions;
import dev.shove.ShoveHeaders;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Schema evolution: a consumer on version 3 of an order reads the orders that services still on versions 1 and 2
 * publish, through upcasters, and refuses one from a service already on version 4, naming the version.
 *
 * <p>Version 1 of an order had an id and cents; version 2 added the currency (every version 1 order was in euros);
 * version 3 renamed {@code cents} to {@code amountCents}. Each producer writes its version in the {@code
 * shove-schema-version} header (version 1 wrote none, which reads as 1). The consumer's codec upcasts the JSON of an
 * older version, step by step, before it binds it to today's {@link Order}. The version 4 order goes to the dead-letter
 * queue with its version in the reason, to wait for a consumer that knows it. The same {@code SchemaVersions} works with
 * the Protobuf and Avro codecs ({@code docs/concepts/codecs.md}). Run it with {@code scripts/quickstart.sh
 * VersionedOrders}.
 */
public final class VersionedOrders {

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private VersionedOrders() {}

    /**
     * An order, version 1.
     *
     * @param orderId the order
     * @param cents how much, in euro cents
     */
    public record OrderV1(String orderId, long cents) {}

    /**
     * An order, version 2.
     *
     * @param orderId the order
     * @param cents how much, in cents of the currency
     * @param currency ISO 4217
     */
    public record OrderV2(String orderId, long cents, String currency) {}

    /**
     * An order, version 3: what this consumer handles.
     *
     * @param orderId the order
     * @param amountCents how much, in cents of the currency
     * @param currency ISO 4217
     */
    public record Order(String orderId, long amountCents, String currency) {}

    // region versions
    /** Version 3, and how versions 1 and 2 become it. */
    static final SchemaVersions<JsonNode> VERSIONS = SchemaVersions.<JsonNode>builder(3)
            .upcaster(1, v1 -> ((ObjectNode) v1).put("currency", "EUR")) // 1 -> 2: version 1 was in euros
            .upcaster(
                    2,
                    v2 -> { // 2 -> 3: cents renamed amountCents
                        ObjectNode order = (ObjectNode) v2;
                        order.set("amountCents", order.remove("cents"));
                        return order;
                    })
            .build();

    static final Topic<Order> ORDERS = Topic.builder("versioned-orders", Codec.json(Order.class, VERSIONS))
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();
    // endregion versions

    // region producers
    /** The same topic as the services still on versions 1 and 2 publish it, and one already on version 4. */
    static final Topic<OrderV1> ORDERS_V1 = Topic.builder(ORDERS.name(), OrderV1.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    static final Topic<OrderV2> ORDERS_V2 = Topic.builder(
                    ORDERS.name(),
                    Codec.json(
                            OrderV2.class, SchemaVersions.<JsonNode>builder(2).build()))
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    static final Topic<Order> ORDERS_V4 = Topic.builder(
                    ORDERS.name(),
                    Codec.json(Order.class, SchemaVersions.<JsonNode>builder(4).build()))
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();
    // endregion producers

    /** Handles version 3 orders, whatever version they were written at. */
    static final class OrderHandler implements MessageHandler<Order, Desk> {
        @Override
        public Outcome handle(Order order, MessageMetadata meta, Desk desk) {
            String written = meta.header(ShoveHeaders.SCHEMA_VERSION).orElse("1 (no header)");
            desk.print("handled   " + order + ", written at version " + written);
            desk.handled().add(order);
            return Outcome.ack();
        }
    }

    /**
     * The context: where to print, and what was handled. Thread-safe.
     *
     * @param out where to print
     * @param handled the orders handled, as version 3
     */
    record Desk(PrintStream out, List<Order> handled) {
        Desk(PrintStream out) {
            this(out, new CopyOnWriteArrayList<>());
        }

        synchronized void print(String line) {
            out.println(line);
        }
    }

    /** Runs the example; exits 0 when every older order was upcast and the version 4 one was refused by name. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Publishes an order at each version and runs the version 3 consumer until all four reached their end. */
    public static Result run(PrintStream out, Duration timeout) {
        Desk desk = new Desk(out);
        List<String> deadReasons = new ArrayList<>();
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            var group = broker.consumerGroup().withContext(desk);
            group.register(
                    ORDERS,
                    ConsumerGroupConfig.builder()
                            .noDeadLetterConsumer() // the version 4 order waits in the DLQ for a newer consumer
                            .build(),
                    OrderHandler::new);
            group.start();
            var publisher = broker.publisher();
            publisher.publish(ORDERS_V1, new OrderV1("o-1", 1_500));
            publisher.publish(ORDERS_V2, new OrderV2("o-2", 2_000, "GBP"));
            publisher.publish(ORDERS, new Order("o-3", 990, "USD"));
            publisher.publish(ORDERS_V4, new Order("o-4", 100, "EUR"));
            long deadline = System.nanoTime() + timeout.toNanos();
            while ((desk.handled().size() < 3 || probe.rawDeadLetters(ORDERS).isEmpty())
                    && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(Duration.ofMillis(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            outcome = group.stop(Duration.ofSeconds(5));
            for (InMemoryProbe.RawMessage dead : probe.rawDeadLetters(ORDERS)) {
                String reason = dead.headers().get(ShoveHeaders.DEATH_REASON);
                desk.print("dead      version " + dead.headers().get(ShoveHeaders.SCHEMA_VERSION) + ": " + reason);
                deadReasons.add(reason);
            }
        }
        Result result = new Result(List.copyOf(desk.handled()), List.copyOf(deadReasons), outcome);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "versions 1, 2 and 3 were handled as version 3; version 4 waits in the dead-letter queue"
                        : "UNEXPECTED: " + problems);
        return result;
    }

    /**
     * What the run recorded.
     *
     * @param handled the orders handled, as version 3
     * @param deadReasons the reasons of the dead letters
     * @param outcome how the group stopped
     */
    public record Result(List<Order> handled, List<String> deadReasons, SupervisorOutcome outcome) {
        /** {@return what went otherwise than the example describes; empty when all went as described} */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            List<Order> expected = List.of(
                    new Order("o-1", 1_500, "EUR"), new Order("o-2", 2_000, "GBP"), new Order("o-3", 990, "USD"));
            if (!(handled.size() == 3 && handled.containsAll(expected))) {
                problems.add("handled " + handled + ", expected " + expected);
            }
            if (deadReasons.size() != 1 || !deadReasons.getFirst().contains("schema version 4 is newer")) {
                problems.add("dead letters " + deadReasons + ", expected the version 4 order");
            }
            if (outcome.exitCode() != 0) {
                problems.add("the group stopped with exit code " + outcome.exitCode());
            }
            return problems;
        }
    }
}
