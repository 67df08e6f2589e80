package dev.shove.examples.opentelemetry;

import dev.shove.Broker;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Publisher;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.opentelemetry.ShoveTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Two orders traced from publish to their ends, on the in-memory broker, with the OpenTelemetry SDK.
 *
 * <ul>
 *   <li>{@code o-1}: the ledger is down on its first delivery ({@code retry}); a hold delay later it is booked and the
 *       handler replies with a receipt on {@code receipts}. One trace: the publish, both runs, the reply and its
 *       consumer.
 *   <li>{@code o-2}: an invalid amount ({@code reject}); the dead letter reaches {@code handleDead}. One trace: the
 *       publish, the run, and the dead letter.
 * </ul>
 *
 * <p>The SDK here keeps spans in memory so that the program can print them as trees; an application would configure
 * an exporter (OTLP, say) instead, and pass its {@code OpenTelemetry} the same way. Run {@code main}: it prints the
 * traces and exits 0 when they are as described.
 */
public final class TracedOrders {

    private TracedOrders() {}

    /** An order, sent as JSON. */
    public record OrderPaid(String orderId, long cents) {}

    /** The receipt a booked order is answered with. */
    public record Receipt(String orderId) {}

    /** Prints the traces of the two orders; exits 0 when they are as the class comment says. */
    public static void main(String[] args) {
        Result result = run(System.out, Duration.ofMillis(500), Duration.ofSeconds(20));
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Publishes the two orders, consumes until both are done (or {@code timeout} passed), and prints the traces. */
    public static Result run(PrintStream out, Duration holdDelay, Duration timeout) {
        Topic<OrderPaid> orders = Topic.builder("orders", OrderPaid.class)
                .holdQueue(holdDelay)
                .dlq()
                .build();
        Topic<Receipt> receipts = Topic.builder("receipts", Receipt.class)
                .holdQueue(holdDelay)
                .dlq()
                .build();

        // region sdk
        InMemorySpanExporter exporter = InMemorySpanExporter.create(); // an application: an OTLP exporter
        OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(exporter)) // an application: a batch processor
                        .build())
                .build();
        ShoveTracing tracing = ShoveTracing.of(openTelemetry);
        // endregion sdk

        Set<String> attempted = ConcurrentHashMap.newKeySet();
        CompletableFuture<Void> receiptRead = new CompletableFuture<>();
        CompletableFuture<Void> deadSeen = new CompletableFuture<>();
        MessageHandler<OrderPaid, NoContext> orderHandler = new MessageHandler<>() {
            @Override
            public Outcome handle(OrderPaid order, MessageMetadata meta, NoContext ctx) {
                if (order.cents() <= 0) {
                    return Outcome.reject("amount must be positive");
                }
                if (attempted.add(order.orderId())) {
                    return Outcome.retry(); // the ledger is down
                }
                return Outcome.ack().withReply(receipts, new Receipt(order.orderId()));
            }

            @Override
            public void handleDead(OrderPaid order, DeadMessageMetadata meta, NoContext ctx) {
                deadSeen.complete(null);
            }
        };

        Result result;
        try (openTelemetry;
                Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            // region wire
            Publisher publisher = tracing.publisher(broker); // "send orders" spans, trace context in the headers
            var group = broker.consumerGroup() // first on the group: it sees what every other interceptor decides
                    .withInterceptor(tracing.interceptor(broker)); // "process orders" around every handler call
            group.register(orders, tracing.deadLetterSpans(broker, orders, () -> orderHandler)); // and handleDead
            group.register(receipts, () -> (receipt, meta, ctx) -> {
                receiptRead.complete(null);
                return Outcome.ack();
            });

            publisher.publish(orders, new OrderPaid("o-1", 1299)); // fails once, then booked with a receipt
            publisher.publish(orders, new OrderPaid("o-2", -5)); // rejected to the dead-letter queue
            // endregion wire

            CompletableFuture<Void> done = CompletableFuture.allOf(receiptRead, deadSeen)
                    .completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
            SupervisorOutcome outcome = group.runUntil(done, Duration.ofSeconds(5));
            result = new Result(List.copyOf(exporter.getFinishedSpanItems()), outcome);
        }
        result.traces().forEach(out::println);
        List<String> problems = result.problems();
        out.println(problems.isEmpty() ? "two traces, as described" : "UNEXPECTED: " + problems);
        return result;
    }

    /**
     * The spans the run exported, and how the group stopped.
     *
     * @param spans every finished span
     * @param outcome how the group stopped
     */
    public record Result(List<SpanData> spans, SupervisorOutcome outcome) {
        private static final AttributeKey<Long> RETRY_COUNT = AttributeKey.longKey("shove.retry_count");
        private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("shove.outcome");
        private static final AttributeKey<String> DEATH_REASON = AttributeKey.stringKey("shove.death_reason");

        /** Each trace as an indented tree, children in the order they started; traces in the order they started. */
        public List<String> traces() {
            Map<String, List<SpanData>> children = spans.stream()
                    .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                    .collect(Collectors.groupingBy(SpanData::getParentSpanId, LinkedHashMap::new, Collectors.toList()));
            Set<String> ids = spans.stream().map(SpanData::getSpanId).collect(Collectors.toSet());
            List<String> traces = new ArrayList<>();
            spans.stream()
                    .filter(s -> !ids.contains(s.getParentSpanId()))
                    .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                    .forEach(root -> {
                        StringBuilder tree = new StringBuilder("trace " + root.getTraceId() + "\n");
                        print(tree, root, children, 1);
                        traces.add(tree.toString());
                    });
            return traces;
        }

        private static void print(StringBuilder out, SpanData span, Map<String, List<SpanData>> children, int depth) {
            StringBuilder line =
                    new StringBuilder("%-28s %-9s".formatted("  ".repeat(depth) + span.getName(), span.getKind()));
            Long retryCount = span.getAttributes().get(RETRY_COUNT);
            if (retryCount != null) {
                line.append(" retry_count=").append(retryCount);
            }
            String outcome = span.getAttributes().get(OUTCOME);
            if (outcome != null) {
                line.append(" outcome=").append(outcome);
            }
            String reason = span.getAttributes().get(DEATH_REASON);
            if (reason != null) {
                line.append(" death_reason=\"").append(reason).append('"');
            }
            if (span.getStatus().getStatusCode() == StatusCode.ERROR) {
                line.append(" ERROR");
            }
            out.append(line.toString().stripTrailing()).append('\n');
            for (SpanData child : children.getOrDefault(span.getSpanId(), List.of())) {
                print(out, child, children, depth + 1);
            }
        }

        /** What differs from the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            List<List<String>> expected = List.of(
                    List.of(
                            "  send orders PRODUCER",
                            "    process orders CONSUMER retry_count=0 outcome=retry ERROR",
                            "    process orders CONSUMER retry_count=1 outcome=ack",
                            "      create receipts PRODUCER",
                            "        process receipts CONSUMER retry_count=0 outcome=ack"),
                    List.of(
                            "  send orders PRODUCER",
                            "    process orders CONSUMER retry_count=0 outcome=reject ERROR",
                            "    process orders-dlq CONSUMER retry_count=0"
                                    + " death_reason=\"rejected: amount must be positive\""));
            List<List<String>> actual = traces().stream()
                    .map(t -> t.lines()
                            .skip(1) // "trace <id>"
                            .map(l -> l.stripTrailing().replaceAll("(?<=\\S) +", " "))
                            .toList())
                    .toList();
            if (!actual.containsAll(expected) || actual.size() != 2) {
                problems.add("expected the two traces " + expected + ", got " + actual);
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }
}
