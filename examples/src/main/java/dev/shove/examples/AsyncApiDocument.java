package dev.shove.examples;

import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.asyncapi.AsyncApi;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The AsyncAPI 3.0 document of the examples' own topics, for another team, a schema registry or AsyncAPI Studio: the
 * channels shove uses for each topic on a Kafka cluster (main topic or shards, hold tiers, dead-letter queue), what the
 * application sends and receives there, and each message's JSON Schema, from its Java record.
 *
 * <p>The topics are kept as an application keeps its own, as public constants of one class, which {@link
 * AsyncApi#topicsOf(Class)} reads (the way {@code shove asyncapi} will). Nothing connects to a broker: the document is
 * made from the declarations alone. Run it with {@code scripts/quickstart.sh AsyncApiDocument [yaml|json] [broker
 * URI]}; it prints YAML for {@code kafka://kafka-1:9092,kafka-2:9092?partitions=12} by default.
 */
public final class AsyncApiDocument {

    /** The broker the document describes unless the command line names another. */
    public static final String DEFAULT_BROKER = "kafka://kafka-1:9092,kafka-2:9092?partitions=12";

    private AsyncApiDocument() {}

    // region topics
    /** The examples' topics, declared once as an application declares its own. */
    public static final class ShopTopics {
        public static final Topic<Quickstart.OrderPaid> ORDERS = Quickstart.ordersTopic(Duration.ofSeconds(5));
        public static final Topic<SequencedOrders.OrderEvent> ORDER_EVENTS =
                SequencedOrders.orderEvents(SequenceFailure.SKIP, Duration.ofSeconds(5));
        public static final Topic<Replies.PriceRequest> PRICE_REQUESTS = Replies.PRICE_REQUESTS;
        public static final Topic<Replies.PriceQuote> PRICE_QUOTES = Replies.PRICE_QUOTES;
        public static final Topic<AuditedHandler.Invoice> INVOICES = AuditedHandler.INVOICES;
        public static final Topic<BatchInserts.Reading> READINGS = BatchInserts.readings(Duration.ofSeconds(10));
        public static final Topic<Broadcast.ConfigChange> CONFIG_CHANGES = Broadcast.CONFIG_CHANGES;
        public static final Topic<byte[]> LEGACY_FRAMES = RawGateway.LEGACY_FRAMES;

        private ShopTopics() {}
    }
    // endregion topics

    // region document
    /** The document of {@link ShopTopics} on the broker {@code brokerUri} names. */
    public static AsyncApi document(String brokerUri) {
        return AsyncApi.builder()
                .title("shove examples")
                .version("1.0.0")
                .description("The topics of shove's runnable examples.")
                .server("production", brokerUri)
                .topics(AsyncApi.topicsOf(ShopTopics.class)) // published and consumed
                .build();
    }
    // endregion document

    /** Prints the document: {@code [yaml|json] [broker URI]}; exits 0 when it describes every topic. */
    public static void main(String[] args) {
        String format = args.length > 0 ? args[0] : "yaml";
        String broker = args.length > 1 ? args[1] : DEFAULT_BROKER;
        Result result = run(System.out, format, broker);
        if (!result.problems().isEmpty()) {
            System.err.println("UNEXPECTED: " + result.problems());
        }
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Prints the document in {@code format} ({@code yaml} or {@code json}) for {@code brokerUri}. */
    public static Result run(PrintStream out, String format, String brokerUri) {
        AsyncApi api = document(brokerUri);
        String text = switch (format) {
            case "json" -> api.toJson();
            case "yaml" -> api.toYaml();
            default -> throw new IllegalArgumentException("format must be yaml or json, was '" + format + "'");
        };
        out.print(text);
        return new Result(api, text);
    }

    /**
     * What the run printed.
     *
     * @param api the document
     * @param text the document as printed
     */
    public record Result(AsyncApi api, String text) {
        /** Topics the document lacks a channel for; empty when it describes every one. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            var channels = api.toTree().path("channels");
            for (Topic<?> topic : AsyncApi.topicsOf(ShopTopics.class)) {
                if (!channels.has(topic.name())) {
                    problems.add("no channel for topic '" + topic.name() + "'");
                }
            }
            return problems;
        }
    }
}
