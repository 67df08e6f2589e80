package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Request and reply between two topics, with a continuation.
 *
 * <p>A shop asks the pricing service for quotes on {@code price-requests}, each request with a {@code correlation-id}
 * header, and waits for the answers on {@code price-quotes}. The pricing handler answers with {@link
 * Outcome#reply}: shove publishes the quote (with the request's correlation id) before it acknowledges the request,
 * and, once the acknowledgement reached the broker, runs the handler's continuation ({@link Outcome#andThen}) on a
 * thread of its own, here to count the quote as sent.
 *
 * <p>Requests {@code q-1} and {@code q-2} name products in the catalogue and get quotes; {@code q-3} names an unknown
 * product and is rejected: no reply, no continuation, and the request reaches {@code handleDead}.
 *
 * <p>Run it with {@code scripts/quickstart.sh Replies}.
 */
public final class Replies {

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Replies() {}

    /**
     * A request for a price.
     *
     * @param requestId the request
     * @param sku the product
     * @param quantity how many
     */
    public record PriceRequest(String requestId, String sku, int quantity) {}

    /**
     * The answer to a {@link PriceRequest}.
     *
     * @param requestId the request answered
     * @param sku the product
     * @param totalCents the price of the whole quantity
     */
    public record PriceQuote(String requestId, String sku, long totalCents) {}

    static final Topic<PriceRequest> PRICE_REQUESTS = Topic.builder("price-requests", PriceRequest.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    static final Topic<PriceQuote> PRICE_QUOTES = Topic.builder("price-quotes", PriceQuote.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    // region reply
    /** Prices a request and answers on {@code price-quotes}, or rejects a request for an unknown product. */
    static final class PricingHandler implements MessageHandler<PriceRequest, Pricing> {
        @Override
        public Outcome handle(PriceRequest request, MessageMetadata meta, Pricing pricing) {
            Long unitCents = pricing.catalogue().get(request.sku());
            if (unitCents == null) {
                return Outcome.reject("unknown product " + request.sku()); // no reply
            }
            PriceQuote quote = new PriceQuote(request.requestId(), request.sku(), unitCents * request.quantity());
            Map<String, String> headers = meta.header("correlation-id")
                    .map(id -> Map.of("correlation-id", id))
                    .orElse(Map.of());
            return Outcome.ack()
                    .withReply(PRICE_QUOTES, quote, headers) // published before the request is acknowledged
                    .andThen(() -> pricing.sent(quote)); // runs once the acknowledgement reached the broker
        }

        @Override
        public void handleDead(PriceRequest request, DeadMessageMetadata meta, Pricing pricing) {
            pricing.log(request.requestId(), "handleDead: " + meta.reason());
            pricing.dead().put(request.requestId(), meta.reason());
        }
    }
    // endregion reply

    /**
     * The pricing service's context. Thread-safe.
     *
     * @param out where to print
     * @param catalogue unit prices by product
     * @param sentBy per quote sent, the name of the thread its continuation ran on
     * @param dead requests seen by handleDead, with the reason
     */
    record Pricing(PrintStream out, Map<String, Long> catalogue, Map<String, String> sentBy, Map<String, String> dead) {
        void sent(PriceQuote quote) {
            sentBy.merge(quote.requestId(), Thread.currentThread().getName(), (a, b) -> a + ", " + b);
            log(
                    quote.requestId(),
                    "continuation: quote sent, request acknowledged (on " + sentBy.get(quote.requestId()) + ")");
        }

        synchronized void log(String requestId, String text) {
            out.printf("%-4s %s%n", requestId, text);
        }
    }

    /** The shop's side: waits for the quote of each request it sent, by correlation id. Thread-safe. */
    static final class Shop {
        private final Map<String, CompletableFuture<PriceQuote>> pending = new ConcurrentHashMap<>();
        private final Map<String, String> correlations = new ConcurrentHashMap<>();

        /** The headers of a new request, and the future its quote completes. */
        Map<String, String> expect(String requestId) {
            String correlationId = "corr-" + requestId;
            pending.put(correlationId, new CompletableFuture<>());
            correlations.put(requestId, correlationId);
            return Map.of("correlation-id", correlationId);
        }

        // region requester
        /** Reads quotes: matches each to its request by the correlation id the pricing handler copied. */
        MessageHandler<PriceQuote, Pricing> quotes() {
            return (quote, meta, pricing) -> {
                String correlationId = meta.header("correlation-id").orElse("(none)");
                CompletableFuture<PriceQuote> waiting = pending.get(correlationId);
                if (waiting == null) {
                    return Outcome.reject("no request waits for correlation id " + correlationId);
                }
                pricing.log(
                        quote.requestId(),
                        "quote received: %d cents (%s)".formatted(quote.totalCents(), correlationId));
                waiting.complete(quote);
                return Outcome.ack();
            };
        }
        // endregion requester

        CompletableFuture<PriceQuote> quoteOf(String requestId) {
            return pending.get(correlations.get(requestId));
        }
    }

    /** Runs the example; exits 0 when the quotes arrived and the continuations ran as the class comment says. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Sends the three requests and runs both sides until every request reached its end, or {@code timeout} passes. */
    public static Result run(PrintStream out, Duration timeout) {
        Pricing pricing = new Pricing(
                out, Map.of("sku-1", 250L, "sku-2", 1_999L), new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
        Shop shop = new Shop();
        Map<String, PriceQuote> quotes = new LinkedHashMap<>();
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup().withContext(pricing);
            group.register(PRICE_REQUESTS, PricingHandler::new);
            group.register(PRICE_QUOTES, shop::quotes);
            group.start();

            List<PriceRequest> requests = List.of(
                    new PriceRequest("q-1", "sku-1", 4),
                    new PriceRequest("q-2", "sku-2", 1),
                    new PriceRequest("q-3", "sku-9", 2));
            for (PriceRequest r : requests) {
                broker.publisher().publishWithHeaders(PRICE_REQUESTS, r, shop.expect(r.requestId()));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() - deadline < 0
                    && !(shop.quoteOf("q-1").isDone()
                            && shop.quoteOf("q-2").isDone()
                            && pricing.sentBy().size() == 2
                            && pricing.dead().containsKey("q-3"))) {
                sleep(Duration.ofMillis(5));
            }
            outcome = group.stop(Duration.ofSeconds(5));
            for (PriceRequest r : requests) {
                CompletableFuture<PriceQuote> q = shop.quoteOf(r.requestId());
                if (q.isDone()) {
                    quotes.put(r.requestId(), q.getNow(null));
                }
            }
        }
        Result result = new Result(quotes, Map.copyOf(pricing.sentBy()), Map.copyOf(pricing.dead()), outcome);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "q-1 and q-2 quoted (continuations ran after the acks), q-3 rejected without a reply"
                        : "UNEXPECTED: " + problems);
        return result;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What the run recorded.
     *
     * @param quotes the quotes the shop received, by request
     * @param continuations per quote sent, the thread(s) its continuation ran on
     * @param dead requests seen by handleDead, with the reason
     * @param outcome how the group stopped
     */
    public record Result(
            Map<String, PriceQuote> quotes,
            Map<String, String> continuations,
            Map<String, String> dead,
            SupervisorOutcome outcome) {

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            Map<String, PriceQuote> expected =
                    Map.of("q-1", new PriceQuote("q-1", "sku-1", 1_000), "q-2", new PriceQuote("q-2", "sku-2", 1_999));
            if (!quotes.equals(expected)) {
                problems.add("the shop should receive quotes " + expected.values() + ", received " + quotes.values());
            }
            if (!continuations.keySet().equals(expected.keySet())
                    || !continuations.values().stream().allMatch(t -> t.equals("shove-continuation-price-requests"))) {
                problems.add("one continuation per quote should run, on its own thread, ran: " + continuations);
            }
            if (!dead.equals(Map.of("q-3", "rejected: unknown product sku-9"))) {
                problems.add("q-3 should be rejected for its unknown product, dead letters were " + dead);
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }
}
